"""Wait-condition and signal URLs pre-signed as the engine signs them."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.functional.api_cfn.conftest import CfnServer, SignedClient

pytestmark = pytest.mark.keystone

WAIT = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "Handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"}
    },
}


def _paths(cfn: CfnServer, route: str) -> tuple[str, str]:
    st = cfn.harness.engine.add_stack(cfn.project_id, "waiter", WAIT)
    arn = (
        f"arn:openstack:heat::{cfn.project_id}:stacks/waiter/{st['id']}"
        "/resources/Handle"
    )
    # The engine signs the unquoted path and writes the quoted one.
    return f"/v1/{route}/{arn}", f"/v1/{route}/" + quote(arn, safe="")


def test_waitcondition_url(cfn: CfnServer) -> None:
    unquoted, quoted = _paths(cfn, "waitcondition")
    body = {"Status": "SUCCESS", "Reason": "up", "UniqueId": "i-1", "Data": ""}
    resp = cfn.client.presigned(
        "PUT", unquoted, quoted, json.dumps(body).encode()
    )
    assert resp.status_code == 200, resp.text
    assert resp.text == "<resource>Handle</resource>"
    (call,) = [
        kw for n, kw in cfn.harness.engine.calls if n == "resource_signal"
    ]
    assert call["details"] == body
    assert call["sync_call"] is True
    assert call["ctxt"]["project_id"] == cfn.project_id


def test_signal_url(cfn: CfnServer) -> None:
    unquoted, quoted = _paths(cfn, "signal")
    resp = cfn.client.presigned("POST", unquoted, quoted, b"")
    assert resp.status_code == 200, resp.text
    assert resp.text == ""
    assert resp.headers["Content-Type"] == "text/html; charset=UTF-8"


def test_signal_url_with_wrong_secret_or_verb(cfn: CfnServer) -> None:
    unquoted, quoted = _paths(cfn, "waitcondition")
    bad = SignedClient(cfn.client.base, cfn.client.access, "wrong")
    resp = bad.presigned("PUT", unquoted, quoted, b"{}")
    assert resp.status_code == 403
    assert "<Code>AccessDenied</Code>" in resp.text
    signal_unquoted = unquoted.replace("waitcondition", "signal")
    signal_quoted = quoted.replace("waitcondition", "signal")
    # The signal route takes POST only, whatever the signature.
    resp = cfn.client.presigned("PUT", signal_unquoted, signal_quoted, b"")
    assert resp.status_code == 404
    assert not [
        n for n, _ in cfn.harness.engine.calls if n == "resource_signal"
    ]
