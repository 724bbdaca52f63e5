"""A database as Python Heat 27 leaves it, written with raw SQL.

Built from Heat 27's schema and formats (see docs/design/persistence.md):
JSON columns hold ``json.dumps``
text, secrets are Fernet tokens of Heat's key derivation (made here
with the ``cryptography`` library, not with keel-heat), sync points are
half filled with both key forms, and a legacy (convergence = 0) stack has
its lock and its ``<name>*`` backup stack.

Contents (ids are fixed so the test can name them):

- root stack ``A`` (UPDATE_IN_PROGRESS, traversal ``T2``) with tags, a
  trust in ``user_creds``, a template with files and an encrypted hidden
  parameter; resources ``server`` (1001, locked by an engine, encrypted
  properties, cached attributes with tuple keys, redacted resource data)
  and ``group`` (1002, an ``OS::Heat::ResourceGroup`` whose nested stack
  is ``B``);
- ``B`` nested in ``A`` (resources ``0`` and ``1``), ``C`` nested in
  ``B``;
- ``D`` CREATE_FAILED, ``E`` deleted, ``F`` legacy with lock and backup;
- a software config and a deployment on the server, an old snapshot of
  ``A`` without ``action`` plus a ``resource_snapshot`` row, events (one
  legacy with pickled properties), a service row.
"""

from __future__ import annotations

import base64
import datetime
import json
import pickle
from typing import Any

import sqlalchemy as sa
from cryptography import fernet

KEY = "0123456789abcdef0123456789abcdef"
PROJECT = "8e0d0c2bd3b54b8a9c1b9e5d1f7e6a11"
ENGINE = "e0000000-0000-4000-8000-000000000001"
T1 = "11111111-1111-4111-8111-111111111111"
T2 = "22222222-2222-4222-8222-222222222222"
STACKS = {
    "A": "aaaaaaaa-0000-4000-8000-00000000000a",
    "B": "bbbbbbbb-0000-4000-8000-00000000000b",
    "C": "cccccccc-0000-4000-8000-00000000000c",
    "D": "dddddddd-0000-4000-8000-00000000000d",
    "E": "eeeeeeee-0000-4000-8000-00000000000e",
    "F": "ffffffff-0000-4000-8000-00000000000f",
    "F*": "ffffffff-0000-4000-8000-0000000000ff",
}
SERVER_PHYSICAL = "9a1f6c2e-5d0b-4d7e-8f4a-2b6c8d0e1f3a"
NOW = datetime.datetime(2026, 3, 1, 12, 0, 0)


def heat_encrypt(value: str) -> str:
    """A Fernet token as Heat 27 writes it (the key, doubled when shorter
    than 32 characters and cut to 32, base64-encoded as the Fernet key)."""
    raw = (KEY * 2 if len(KEY) < 32 else KEY)[:32].encode()
    token = fernet.Fernet(base64.b64encode(raw)).encrypt(value.encode())
    return token.decode()


def _dumps(value: Any) -> str:
    return json.dumps(value)


def _insert(conn: sa.Connection, table: str, **values: Any) -> None:
    quote = conn.dialect.identifier_preparer.quote
    columns = ", ".join(quote(c) for c in values)
    params = ", ".join(f":{c}" for c in values)
    conn.execute(
        sa.text(f"INSERT INTO {table} ({columns}) VALUES ({params})"), values
    )


def _templates(conn: sa.Connection) -> None:
    _insert(
        conn,
        "raw_template_files",
        id=501,
        files=_dumps({"file:///init.sh": "#!/bin/sh\necho hi\n"}),
        created_at=NOW,
    )
    env = {
        "parameters": {
            "flavor": "m1.small",
            "db_password": ["cryptography_decrypt_v1", heat_encrypt("pw!")],
        },
        "parameter_defaults": {},
        "resource_registry": {"resources": {}},
        "event_sinks": [],
        "encrypted_param_names": ["db_password"],
    }
    group_tmpl = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "server": {"type": "OS::Nova::Server"},
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": 2},
            },
        },
    }
    _insert(
        conn,
        "raw_template",
        id=601,
        template=_dumps(group_tmpl),
        environment=_dumps(env),
        files=None,
        files_id=501,
        created_at=NOW,
    )
    plain_env = dict(env, parameters={}, encrypted_param_names=[])
    for tid in (602, 603, 604, 605, 606, 607, 608):
        _insert(
            conn,
            "raw_template",
            id=tid,
            template=_dumps({"heat_template_version": "2021-04-16"}),
            environment=_dumps(plain_env),
            files="null",
            created_at=NOW,
        )


def _stack(conn: sa.Connection, key: str, **values: Any) -> None:
    row: dict[str, Any] = {
        "id": STACKS[key],
        "name": key.lower(),
        "tenant": PROJECT,
        "username": "demo",
        "disable_rollback": True,
        "backup": False,
        "nested_depth": 0,
        "convergence": True,
        "action": "CREATE",
        "status": "COMPLETE",
        "status_reason": "Stack CREATE completed successfully",
        "created_at": NOW,
    }
    row.update(values)
    _insert(conn, "stack", **row)


def _stacks(conn: sa.Connection) -> None:
    _insert(
        conn,
        "user_creds",
        id=701,
        trust_id=heat_encrypt("trust-4f1e"),
        trustor_user_id="u-trustor",
        decrypt_method="cryptography_decrypt_v1",
        tenant="demo-project",
        tenant_id=PROJECT,
        auth_url="http://keystone:5000/v3",
        region_name="RegionOne",
        created_at=NOW,
    )
    deps = {"edges": [[[1001, True], None], [[1002, True], [1001, True]]]}
    _stack(
        conn,
        "A",
        raw_template_id=601,
        prev_raw_template_id=602,
        user_creds_id=701,
        stack_user_project_id="sup-a",
        action="UPDATE",
        status="IN_PROGRESS",
        status_reason="Stack UPDATE started",
        current_traversal=T2,
        current_deps=_dumps(deps),
        updated_at=NOW + datetime.timedelta(minutes=5),
        timeout=60,
    )
    _stack(
        conn,
        "B",
        raw_template_id=603,
        user_creds_id=701,
        owner_id=STACKS["A"],
        nested_depth=1,
        parent_resource_name="group",
        name="a-group-x7q2",
        current_traversal=T1,
        current_deps=_dumps({"edges": [[[1003, True], None]]}),
    )
    _stack(
        conn,
        "C",
        raw_template_id=604,
        owner_id=STACKS["B"],
        nested_depth=2,
        parent_resource_name="0",
        current_traversal=T1,
    )
    _stack(
        conn,
        "D",
        raw_template_id=605,
        status="FAILED",
        status_reason="Resource CREATE failed: ResourceInError: "
        'resources.vm: Went to status ERROR due to "boom"',
        disable_rollback=False,
        current_traversal="",
    )
    _stack(
        conn,
        "E",
        raw_template_id=606,
        action="DELETE",
        status="COMPLETE",
        deleted_at=NOW,
    )
    _stack(conn, "F", raw_template_id=607, convergence=False)
    _stack(
        conn,
        "F*",
        name="f*",
        raw_template_id=608,
        owner_id=STACKS["F"],
        backup=True,
        convergence=False,
    )
    _insert(conn, "stack_lock", stack_id=STACKS["F"], engine_id=ENGINE)
    for tag in ("web", "prod"):
        _insert(conn, "stack_tag", tag=tag, stack_id=STACKS["A"])


def _resources(conn: sa.Connection) -> None:
    props = {
        "flavor": ["cryptography_decrypt_v1", heat_encrypt('"m1.small"')],
        "user_data": ["cryptography_decrypt_v1", heat_encrypt('"#!/bin/sh"')],
    }
    _insert(
        conn,
        "resource_properties_data",
        id=801,
        data=_dumps(props),
        encrypted=True,
        created_at=NOW,
    )
    attrs = {
        "first_address": "10.0.0.4",
        "tuple:('networks', 'private', 0)": "10.0.0.4",
    }
    _insert(
        conn,
        "resource_properties_data",
        id=802,
        data=_dumps(attrs),
        encrypted=False,
        created_at=NOW,
    )
    _insert(
        conn,
        "resource_properties_data",
        id=803,
        data=_dumps({"count": 2}),
        encrypted=False,
        created_at=NOW,
    )
    common = {
        "stack_id": STACKS["A"],
        "root_stack_id": STACKS["A"],
        "created_at": NOW,
        "needed_by": "[]",
    }
    _insert(
        conn,
        "resource",
        id=1001,
        uuid="r-1001",
        name="server",
        nova_instance=SERVER_PHYSICAL,
        action="UPDATE",
        status="IN_PROGRESS",
        status_reason="state changed",
        rsrc_metadata=_dumps({"deployments": []}),
        engine_id=ENGINE,
        atomic_key=3,
        requires="[]",
        current_template_id=601,
        rsrc_prop_data_id=801,
        attr_data_id=802,
        **common,
    )
    _insert(
        conn,
        "resource",
        id=1002,
        uuid="r-1002",
        name="group",
        nova_instance=STACKS["B"],
        action="CREATE",
        status="COMPLETE",
        status_reason="state changed",
        rsrc_metadata="{}",
        atomic_key=2,
        requires="[1001]",
        current_template_id=602,
        rsrc_prop_data_id=803,
        **common,
    )
    nested = dict(common, stack_id=STACKS["B"])
    for rid, name in ((1003, "0"), (1004, "1")):
        _insert(
            conn,
            "resource",
            id=rid,
            uuid=f"r-{rid}",
            name=name,
            nova_instance=STACKS["C"] if name == "0" else None,
            action="CREATE",
            status="COMPLETE",
            atomic_key=1,
            requires="[]",
            current_template_id=603,
            **nested,
        )
    _insert(
        conn,
        "resource",
        id=1005,
        uuid="r-1005",
        name="vm",
        stack_id=STACKS["D"],
        root_stack_id=STACKS["D"],
        action="CREATE",
        status="FAILED",
        status_reason="ResourceInError: resources.vm: boom",
        atomic_key=2,
        requires="[]",
        needed_by="[]",
        current_template_id=605,
        created_at=NOW,
    )
    # Legacy: no lock columns, no current template, legacy properties.
    _insert(
        conn,
        "resource",
        id=1006,
        uuid="r-1006",
        name="vol",
        stack_id=STACKS["F"],
        root_stack_id=STACKS["F"],
        action="CREATE",
        status="COMPLETE",
        nova_instance="vol-1",
        properties_data=_dumps({"size": 1}),
        properties_data_encrypted=False,
        created_at=NOW,
    )
    _insert(
        conn,
        "resource_data",
        resource_id=1001,
        key="password",
        value=heat_encrypt("s3cr3t"),
        redact=True,
        decrypt_method="cryptography_decrypt_v1",
        created_at=NOW,
    )
    _insert(
        conn,
        "resource_data",
        resource_id=1001,
        key="pre-update",
        value="True",
        redact=False,
        decrypt_method="",
        created_at=NOW,
    )


def _sync_points(conn: sa.Connection) -> None:
    node_data = {
        "id": 1001,
        "name": "server",
        "uuid": "r-1001",
        "reference_id": SERVER_PHYSICAL,
        "attrs": {"tuple:('networks', 'private', 0)": "10.0.0.4"},
        "action": "UPDATE",
        "status": "COMPLETE",
    }
    rows = [
        ("1002", True, 1, {"tuple:(1001, True)": node_data}, None),
        (
            "1001",
            False,
            1,
            {"tuple:(1002, False, 'resource')": None},
            {
                "extra_data": {
                    "resource_failures": {"x": "y"},
                    "skip_propagate": True,
                }
            },
        ),
        (STACKS["A"], True, 0, {}, None),
    ]
    for entity, is_update, key, inner, extra in rows:
        _insert(
            conn,
            "sync_point",
            entity_id=entity,
            traversal_id=T2,
            is_update=is_update,
            atomic_key=key,
            stack_id=STACKS["A"],
            input_data=_dumps({"input_data": inner}),
            extra_data=None if extra is None else _dumps(extra),
            created_at=NOW,
        )


def _others(conn: sa.Connection) -> None:
    config = {
        "config": "#!/bin/sh\necho deploy",
        "inputs": [],
        "outputs": [{"name": "result"}],
        "options": {},
    }
    _insert(
        conn,
        "software_config",
        id="sc-1",
        name="deploy",
        group="script",
        config=_dumps(config),
        tenant=PROJECT,
        created_at=NOW,
    )
    _insert(
        conn,
        "software_deployment",
        id="sd-1",
        server_id=SERVER_PHYSICAL,
        config_id="sc-1",
        input_values=_dumps({"foo": "bar"}),
        output_values="{}",
        action="CREATE",
        status="COMPLETE",
        status_reason="Outputs received",
        tenant=PROJECT,
        stack_user_project_id="sup-a",
        created_at=NOW,
        updated_at=NOW,
    )
    _insert(
        conn,
        "snapshot",
        id="snap-1",
        stack_id=STACKS["A"],
        name="before",
        status="COMPLETE",
        status_reason="",
        data=_dumps({"id": STACKS["A"], "resources": {}}),
        tenant=PROJECT,
        created_at=NOW,
    )
    _insert(
        conn,
        "resource_snapshot",
        id="rs-1",
        snapshot_id="snap-1",
        resource_name="server",
        data=_dumps({"name": "server", "resource_data": {}}),
        created_at=NOW,
    )
    _insert(
        conn,
        "event",
        id=901,
        uuid="ev-1",
        stack_id=STACKS["A"],
        resource_action="UPDATE",
        resource_status="IN_PROGRESS",
        resource_name="server",
        physical_resource_id=SERVER_PHYSICAL,
        resource_status_reason="state changed",
        resource_type="OS::Nova::Server",
        rsrc_prop_data_id=801,
        created_at=NOW,
    )
    legacy_props = pickle.dumps({"size": 1}, protocol=2)
    _insert(
        conn,
        "event",
        id=902,
        uuid="ev-2",
        stack_id=STACKS["F"],
        resource_action="CREATE",
        resource_status="COMPLETE",
        resource_name="vol",
        physical_resource_id="vol-1",
        resource_status_reason="",
        resource_type="OS::Cinder::Volume",
        resource_properties=legacy_props,
        created_at=NOW,
    )
    _insert(
        conn,
        "service",
        id="svc-1",
        engine_id=ENGINE,
        host="node1",
        hostname="node1",
        binary="heat-engine",
        topic="engine",
        report_interval=60,
        created_at=NOW,
        updated_at=NOW,
    )


def populate(engine: sa.Engine) -> None:
    """Write the whole fixture in one transaction."""
    with engine.begin() as conn:
        _templates(conn)
        _stacks(conn)
        _resources(conn)
        _sync_points(conn)
        _others(conn)
        if conn.dialect.name == "postgresql":
            for table in ("resource", "raw_template", "event"):
                conn.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{table}', "
                        f"'id'), (SELECT MAX(id) FROM {table}))"
                    )
                )
