"""Hidden parameters are stored encrypted when
``encrypt_parameters_and_properties`` is on, and still work."""

import json
import pathlib
from collections.abc import Iterator

import pytest

from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database, wait_for

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {
        "password": {"type": "string", "hidden": True},
        "name": {"type": "string"},
    },
    "resources": {
        "echo": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "password"}},
        }
    },
    "outputs": {"echoed": {"value": {"get_attr": ["echo", "output"]}}},
}


@pytest.fixture
def cloud(tmp_path: pathlib.Path) -> Iterator[Cloud]:
    with scratch_database("sqlite", tmp_path) as url:
        cloud = Cloud(url, engines=1)
        try:
            yield cloud
        finally:
            cloud.close()


@pytest.mark.parametrize("encrypt", [True, False])
def test_hidden_parameter_storage(cloud: Cloud, encrypt: bool) -> None:
    cloud.conf.set_override("encrypt_parameters_and_properties", encrypt)
    api = cloud.endpoint()
    params = {"parameters": {"password": "pa55w0rd", "name": "n"}}
    ident = api.create_stack(cloud.ctxt, "hidden", TEMPLATE, params, {}, {})

    def complete() -> bool:
        rec = stack_repo.get(cloud.db, ident["stack_id"])
        return rec is not None and rec.status == "COMPLETE"

    wait_for(complete, what="CREATE_COMPLETE")
    rec = stack_repo.get(cloud.db, ident["stack_id"])
    assert rec is not None
    with cloud.db.engine.connect() as conn:
        stored = conn.exec_driver_sql(
            "SELECT environment FROM raw_template WHERE id = ?",
            (rec.raw_template_id,),
        ).scalar_one()
    assert ("pa55w0rd" in stored) is not encrypt
    env = json.loads(stored)
    if encrypt:
        assert env["encrypted_param_names"] == ["password"]
        assert env["parameters"]["password"][0] == "cryptography_decrypt_v1"
        assert env["parameters"]["name"] == "n"
    (shown,) = api.show_stack(cloud.ctxt, ident)
    assert shown["parameters"]["password"] == "******"
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs["echoed"] == "pa55w0rd"
