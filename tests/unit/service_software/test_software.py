"""SoftwareService against a real (SQLite) database."""

from __future__ import annotations

import re
from typing import Any

import pytest
from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.conf import register_opts
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database
from keel_heat_core.service.software import SoftwareService
from tests.unit.service_software.conftest import context

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
CTX = context()
OTHER = context("project-2")
ADMIN = context("admin-project", admin=True)


@pytest.fixture
def svc(db: Database) -> SoftwareService:
    service = SoftwareService(db, sleep=lambda s: None)
    service.poll_interval = 0.01
    return service


def _config(svc: SoftwareService, ctxt: Any = CTX, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "group": "script",
        "name": "cfg",
        "config": "#!/bin/sh\necho hi",
        "inputs": [{"name": "foo"}],
        "outputs": [{"name": "result"}],
        "options": None,
    }
    args.update(kw)
    return svc.create_software_config(ctxt, **args)


def _deployment(
    svc: SoftwareService, config_id: str, ctxt: Any = CTX, **kw: Any
) -> Any:
    args: dict[str, Any] = {
        "server_id": "server-1",
        "config_id": config_id,
        "input_values": {"foo": "bar"},
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "status_reason": "Deploy data available",
        "stack_user_project_id": None,
    }
    args.update(kw)
    return svc.create_software_deployment(ctxt, **args)


# -- configs -----------------------------------------------------------------


def test_config_shape_and_normalised_io(svc: SoftwareService) -> None:
    sc = _config(
        svc,
        inputs=[
            {"name": "a"},
            {"name": "n", "type": "Number", "default": "3"},
            {"name": "r", "replace_on_change": True, "description": "x"},
            {"name": "v", "value": None},
        ],
        outputs=[{"name": "o", "error_output": True}],
        options={"k": "v"},
    )
    assert list(sc) == [
        "id",
        "name",
        "group",
        "creation_time",
        "config",
        "inputs",
        "outputs",
        "options",
    ]
    assert TIME.match(sc["creation_time"])
    assert sc["inputs"] == [
        {"name": "a", "type": "String"},
        {"name": "n", "type": "Number", "default": 3},
        {
            "name": "r",
            "type": "String",
            "description": "x",
            "replace_on_change": True,
        },
        {"name": "v", "type": "String", "value": None},
    ]
    assert sc["outputs"] == [
        {"name": "o", "type": "String", "error_output": True}
    ]
    assert svc.show_software_config(CTX, sc["id"]) == sc


def test_config_io_errors(svc: SoftwareService) -> None:
    with pytest.raises(TypeError, match="must be in a list"):
        _config(svc, inputs={"name": "a"})
    with pytest.raises(TypeError, match="must be a dict"):
        _config(svc, outputs=["a"])
    with pytest.raises(ValueError, match="type"):
        _config(svc, inputs=[{"name": "a", "type": "Wrong"}])
    with pytest.raises(ValueError):
        _config(svc, inputs=[{"description": "no name"}])


def test_config_of_another_project_is_not_found(
    svc: SoftwareService,
) -> None:
    sc = _config(svc)
    with pytest.raises(exception.NotFound) as err:
        svc.show_software_config(OTHER, sc["id"])
    assert str(err.value) == f"Software config with id {sc['id']} not found"
    assert svc.show_software_config(ADMIN, sc["id"])["id"] == sc["id"]
    with pytest.raises(exception.NotFound):
        svc.delete_software_config(OTHER, sc["id"])


def test_list_configs(svc: SoftwareService) -> None:
    first = _config(svc, name="one")
    second = _config(svc, name="two")
    _config(svc, OTHER, name="theirs")
    listed = svc.list_software_configs(CTX)
    assert {c["id"] for c in listed} == {first["id"], second["id"]}
    assert list(listed[0]) == ["id", "name", "group", "creation_time"]
    everyone = svc.list_software_configs(ADMIN)
    assert len(everyone) == 3
    assert {c["project"] for c in everyone} == {"project-1", "project-2"}
    assert len(svc.list_software_configs(CTX, limit=1)) == 1


def test_delete_config_in_use_is_restricted(svc: SoftwareService) -> None:
    sc = _config(svc)
    sd = _deployment(svc, sc["id"])
    with pytest.raises(exception.InvalidRestrictedAction) as err:
        svc.delete_software_config(CTX, sc["id"])
    assert str(err.value) == (
        f"Software config with id {sc['id']} can not be deleted as it is "
        "referenced."
    )
    svc.delete_software_deployment(CTX, sd["id"])
    svc.delete_software_config(CTX, sc["id"])
    with pytest.raises(exception.NotFound):
        svc.show_software_config(CTX, sc["id"])


def test_config_limit(db: Database) -> None:
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("max_software_configs_per_tenant", 1)
    svc = SoftwareService(db, conf)
    _config(svc)
    with pytest.raises(exception.RequestLimitExceeded) as err:
        _config(svc)
    assert "maximum software configs per tenant, 1" in str(err.value)
    _config(svc, ADMIN)


# -- deployments -------------------------------------------------------------


def test_deployment_shape(svc: SoftwareService) -> None:
    sc = _config(svc)
    sd = _deployment(svc, sc["id"], deployment_id="dep-1")
    assert sd == {
        "id": "dep-1",
        "server_id": "server-1",
        "input_values": {"foo": "bar"},
        "output_values": None,
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "status_reason": "Deploy data available",
        "config_id": sc["id"],
        "creation_time": sd["creation_time"],
    }
    assert TIME.match(sd["creation_time"])
    assert svc.show_software_deployment(CTX, "dep-1") == sd
    assert svc.list_software_deployments(CTX, "server-1") == [sd]
    assert svc.list_software_deployments(CTX, "server-2") == []
    assert svc.list_software_deployments(OTHER, None) == []


def test_deployment_naming_another_projects_config_is_404(
    svc: SoftwareService,
) -> None:
    theirs = _config(svc, OTHER)
    with pytest.raises(exception.NotFound) as err:
        _deployment(svc, theirs["id"])
    assert str(err.value) == (
        f"Software config with id {theirs['id']} not found"
    )
    assert svc.list_software_deployments(ADMIN, None) == []
    mine = _config(svc)
    sd = _deployment(svc, mine["id"])
    with pytest.raises(exception.NotFound):
        svc.update_software_deployment(CTX, sd["id"], config_id=theirs["id"])


def test_deployment_visible_to_stack_user_project(
    svc: SoftwareService,
) -> None:
    sc = _config(svc)
    sd = _deployment(svc, sc["id"], stack_user_project_id="project-2")
    assert svc.show_software_deployment(OTHER, sd["id"])["id"] == sd["id"]
    with pytest.raises(exception.NotFound) as err:
        svc.show_software_deployment(context("project-3"), sd["id"])
    assert str(err.value) == f"Deployment with id {sd['id']} not found"


def test_update_writes_given_fields(svc: SoftwareService) -> None:
    sc = _config(svc)
    sd = _deployment(svc, sc["id"])
    out = svc.update_software_deployment(
        CTX,
        sd["id"],
        status="COMPLETE",
        status_reason="",
        output_values={"result": 1},
        updated_at="2026-01-02T03:04:05Z",
    )
    assert out["status"] == "COMPLETE"
    assert out["status_reason"] == "Deploy data available"
    assert out["output_values"] == {"result": 1}
    assert out["updated_time"] == "2026-01-02T03:04:05Z"
    again = svc.update_software_deployment(CTX, sd["id"], action="UPDATE")
    assert again["action"] == "UPDATE"
    assert TIME.match(again["updated_time"])


def test_signal_success(svc: SoftwareService) -> None:
    sc = _config(svc, outputs=[{"name": "result"}])
    sd = _deployment(svc, sc["id"])
    outcome = svc.signal_software_deployment(
        CTX,
        sd["id"],
        {"result": "ok", "deploy_stdout": "out", "ignored": 1},
        None,
    )
    assert outcome == f"deployment {sd['id']} succeeded"
    done = svc.show_software_deployment(CTX, sd["id"])
    assert done["status"] == "COMPLETE"
    assert done["status_reason"] == "Outputs received"
    assert done["output_values"] == {
        "result": "ok",
        "deploy_stdout": "out",
        "deploy_stderr": None,
        "deploy_status_code": None,
    }
    # only an IN_PROGRESS deployment takes outputs
    assert svc.signal_software_deployment(CTX, sd["id"], {}, None) is None


def test_signal_failures(svc: SoftwareService) -> None:
    sc = _config(
        svc, outputs=[{"name": "err", "error_output": True}, {"name": "ok"}]
    )
    sd = _deployment(svc, sc["id"])
    outcome = svc.signal_software_deployment(
        CTX, sd["id"], {"deploy_status_code": 2}, None
    )
    assert outcome == f"deployment {sd['id']} failed (2)"
    failed = svc.show_software_deployment(CTX, sd["id"])
    assert failed["status"] == "FAILED"
    assert failed["status_reason"] == (
        "deploy_status_code : Deployment exited with non-zero status code: 2"
    )
    sd2 = _deployment(svc, sc["id"])
    outcome = svc.signal_software_deployment(
        CTX, sd2["id"], {"err": "boom", "deploy_status_code": "0"}, None
    )
    assert outcome == f"deployment {sd2['id']} failed"
    assert (
        svc.show_software_deployment(CTX, sd2["id"])["status_reason"]
        == "err : boom"
    )
    with pytest.raises(ValueError, match="deployment_id must be specified"):
        svc.signal_software_deployment(CTX, None, {}, None)


def test_check_waits_for_the_outcome(svc: SoftwareService) -> None:
    sc = _config(svc)
    sd = _deployment(svc, sc["id"])
    calls = []

    def signal_later(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) == 2:
            svc.signal_software_deployment(CTX, sd["id"], {}, None)

    svc._sleep = signal_later
    out = svc.check_software_deployment(CTX, sd["id"], 30)
    assert out["status"] == "COMPLETE"
    assert len(calls) == 2
    # a timeout returns the deployment as it is
    sd2 = _deployment(svc, sc["id"])
    svc._sleep = lambda s: None
    assert (
        svc.check_software_deployment(CTX, sd2["id"], 0)["status"]
        == "IN_PROGRESS"
    )


# -- the server's metadata ---------------------------------------------------


def _server(db: Database, physical_id: str = "server-1") -> int:
    tmpl = template_repo.create(
        db, {"heat_template_version": "2018-08-31"}, {}
    )
    stack = stack_repo.create(
        db,
        {
            "id": "stack-1",
            "name": "s",
            "raw_template_id": tmpl.id,
            "tenant": "project-1",
            "disable_rollback": True,
            "action": "CREATE",
            "status": "COMPLETE",
        },
    )
    res = resource_repo.create(
        db,
        {
            "name": "server",
            "stack_id": stack.id,
            "nova_instance": physical_id,
            "action": "CREATE",
            "status": "COMPLETE",
            "rsrc_metadata": {"keep": "me"},
        },
    )
    return res.id


def test_metadata_sorted_by_config_name(svc: SoftwareService) -> None:
    b = _config(svc, name="b")
    a = _config(svc, name="a")
    _deployment(svc, b["id"])
    _deployment(svc, a["id"])
    _deployment(svc, a["id"], server_id="server-2")
    names = [
        c["name"] for c in svc.metadata_software_deployments(CTX, "server-1")
    ]
    assert names == ["a", "b"]
    with pytest.raises(ValueError, match="server_id must be specified"):
        svc.metadata_software_deployments(CTX, "")


def test_deployments_pushed_to_server_metadata(
    db: Database, svc: SoftwareService
) -> None:
    rid = _server(db)
    put: list[tuple[str, Any]] = []
    svc._put_metadata = lambda url, md: put.append((url, md))
    data_repo.set_value(db, rid, "metadata_put_url", "http://swift/obj")
    sc = _config(svc)
    sd = _deployment(svc, sc["id"])
    md = resource_repo.get(db, rid).rsrc_metadata  # type: ignore[union-attr]
    assert md["keep"] == "me"
    assert md["deployments"] == [svc.show_software_config(CTX, sc["id"])]
    assert put == [("http://swift/obj", md)]
    # a new config id is pushed again; a status change is not
    other = _config(svc, name="zz")
    svc.update_software_deployment(CTX, sd["id"], status="COMPLETE")
    assert len(put) == 1
    svc.update_software_deployment(CTX, sd["id"], config_id=other["id"])
    md = resource_repo.get(db, rid).rsrc_metadata  # type: ignore[union-attr]
    assert [c["id"] for c in md["deployments"]] == [other["id"]]
    svc.delete_software_deployment(CTX, sd["id"])
    md = resource_repo.get(db, rid).rsrc_metadata  # type: ignore[union-attr]
    assert md["deployments"] == []


def test_push_respects_the_resource_lock(
    db: Database, svc: SoftwareService
) -> None:
    rid = _server(db)
    assert resource_repo.update(db, rid, {}, None, None)
    assert resource_repo.update(db, rid, {"engine_id": "busy"}, 1, None)
    sc = _config(svc)
    with pytest.raises(exception.ConcurrentTransaction):
        _deployment(svc, sc["id"])
    assert "deployments" not in (
        resource_repo.get(db, rid).rsrc_metadata or {}  # type: ignore[union-attr]
    )
