"""A 404 from the engine is an answer, not a fault: the API returns
Heat's error and the engine's RPC server logs no traceback for it."""

from __future__ import annotations

import logging
import pathlib

import pytest

from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI


def test_a_missing_stack_is_not_logged_as_a_fault(
    tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    with InProcessCloud(
        tmp_path, apis={"member": NoauthAPI("project-a")}
    ) as cloud:
        caplog.set_level(logging.INFO)
        status, body = cloud.request(
            "GET", "/stacks/nope/6c5ad0c5-0c0b-4a5f-9a3e-5a4d3f0b6a11"
        )
        assert status == 404
        assert body["error"]["type"] == "EntityNotFound"
        assert body["error"]["message"] == (
            "The Stack (nope) could not be found."
        )
        status, body = cloud.request(
            "POST",
            "/stacks",
            {"stack_name": "bad", "template": {"heat_template_version": 1}},
        )
        assert status == 400, body
    faults = [
        record
        for record in caplog.records
        if record.levelno >= logging.ERROR
        and record.name.startswith("oslo_messaging")
    ]
    assert faults == []
