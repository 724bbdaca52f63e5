"""The 13 actions over HTTP with real EC2 signatures (v2 and v4)."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree

import pytest
import requests

from tests.functional.api_cfn import signing
from tests.functional.api_cfn.conftest import CfnServer, SignedClient

pytestmark = pytest.mark.keystone

TEMPLATE = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Parameters": {"Size": {"Type": "String", "Default": "m1"}},
    "Resources": {"R": {"Type": "OS::Heat::None", "Metadata": {"k": "v"}}},
}


def _actions(cfn: CfnServer) -> list[tuple[str, dict[str, str]]]:
    """Each action with parameters that make it succeed."""
    st = cfn.harness.engine.add_stack(cfn.project_id, "live", TEMPLATE)
    physical = st["resources"]["R"]["physical_id"]
    body = json.dumps(TEMPLATE)
    return [
        ("ListStacks", {}),
        ("DescribeStacks", {"StackName": "live"}),
        ("DescribeStackEvents", {"StackName": "live"}),
        ("GetTemplate", {"StackName": "live"}),
        ("EstimateTemplateCost", {}),
        ("ValidateTemplate", {"TemplateBody": body}),
        (
            "DescribeStackResource",
            {"StackName": "live", "LogicalResourceId": "R"},
        ),
        ("DescribeStackResources", {"PhysicalResourceId": physical}),
        ("ListStackResources", {"StackName": "live"}),
        (
            "CreateStack",
            {
                "StackName": "made",
                "TemplateBody": body,
                "Parameters.member.1.ParameterKey": "Size",
                "Parameters.member.1.ParameterValue": "m2",
            },
        ),
        ("UpdateStack", {"StackName": "made", "TemplateBody": body}),
        ("CancelUpdateStack", {"StackName": "made"}),
        ("DeleteStack", {"StackName": "made"}),
    ]


def _before(cfn: CfnServer, action: str) -> None:
    """What the engine is doing when ``action`` comes: the engine cancels
    only an update in progress (the fake's updates complete at once)."""
    if action == "CancelUpdateStack":
        for st in cfn.harness.engine.stacks.values():
            if st["name"] == "made":
                st["action"], st["status"] = "UPDATE", "IN_PROGRESS"


def _check_ok(resp: requests.Response, action: str) -> ElementTree.Element:
    assert resp.status_code == 200, (action, resp.text)
    root = ElementTree.fromstring(resp.text)
    assert root.tag == f"{action}Response"
    assert root[0].tag == f"{action}Result"
    return root[0]


def test_the_13_actions_with_v2_signatures(cfn: CfnServer) -> None:
    actions = _actions(cfn)
    assert len(actions) == 13
    for action, params in actions:
        _before(cfn, action)
        method = "POST" if action in ("CreateStack", "UpdateStack") else "GET"
        resp = cfn.client.v2({"Action": action, **params}, method)
        _check_ok(resp, action)
    creates = [kw for n, kw in cfn.harness.engine.calls if n == "create_stack"]
    assert creates[0]["params"] == {"Size": "m2"}
    # The engine acted in the key's project, for the key's user.
    ctxt = creates[0]["ctxt"]
    assert ctxt["project_id"] == cfn.project_id
    assert "member" in ctxt["roles"]


def test_the_13_actions_with_v4_signatures(cfn: CfnServer) -> None:
    for action, params in _actions(cfn):
        _before(cfn, action)
        resp = cfn.client.v4({"Action": action, **params})
        _check_ok(resp, action)
    resp = cfn.client.v4({"Action": "ListStacks"}, method="GET")
    result = _check_ok(resp, "ListStacks")
    names = [e.text for e in result.iter("StackName")]
    assert names == ["live"]


def test_json_results(cfn: CfnServer) -> None:
    cfn.harness.engine.add_stack(cfn.project_id, "j", TEMPLATE)
    resp = cfn.client.v2(
        {
            "Action": "DescribeStackResource",
            "StackName": "j",
            "LogicalResourceId": "R",
            "ContentType": "JSON",
        }
    )
    assert resp.status_code == 200
    detail = resp.json()["DescribeStackResourceResponse"][
        "DescribeStackResourceResult"
    ]["StackResourceDetail"]
    assert detail["Metadata"] == {"k": "v"}


def _error(resp: requests.Response) -> tuple[int, str, str]:
    root = ElementTree.fromstring(resp.text)
    return (
        resp.status_code,
        root.findtext("Error/Code") or "",
        root.findtext("Error/Message") or "",
    )


def test_engine_errors_keep_their_aws_codes(cfn: CfnServer) -> None:
    resp = cfn.client.v2({"Action": "DescribeStacks", "StackName": "gone"})
    assert _error(resp) == (
        400,
        "InvalidParameterValue",
        "A bad or out-of-range value was supplied:"
        "The Stack (gone) could not be found.",
    )
    resp = cfn.client.v4(
        {
            "Action": "DescribeStacks",
            "StackName": "gone",
            "ContentType": "JSON",
        }
    )
    assert resp.status_code == 400
    assert resp.json()["ErrorResponse"]["Error"]["Code"] == (
        "InvalidParameterValue"
    )
    resp = cfn.client.v2({"Action": "Nonsense"})
    assert _error(resp)[:2] == (400, "InvalidAction")


def _wrong_secret(client: SignedClient) -> SignedClient:
    return SignedClient(client.base, client.access, "not-the-secret")


def test_wrong_secret_is_access_denied(cfn: CfnServer) -> None:
    bad = _wrong_secret(cfn.client)
    for resp in (
        bad.v2({"Action": "ListStacks"}),
        bad.v4({"Action": "ListStacks"}),
    ):
        assert resp.status_code == 403
        assert resp.reason == "AccessDenied"
        assert _error(resp) == (
            403,
            "AccessDenied",
            "User is not authorized to perform action",
        )
    assert not cfn.harness.engine.calls


def test_unknown_key_and_tampering(cfn: CfnServer) -> None:
    stranger = SignedClient(cfn.client.base, "no-such-key", "x")
    resp = stranger.v2({"Action": "ListStacks"})
    assert _error(resp) == (
        403,
        "InvalidClientTokenId",
        "The certificate or AWS Key ID provided does not exist",
    )
    # A signature made for another action does not pass.
    params = signing.v2_params(cfn.client.access, Action="ListStacks")
    params["Signature"] = signing.sign_v2(
        cfn.client.secret, "GET", cfn.client.host, "/v1/", params
    )
    params["Action"] = "DeleteStack"
    resp = requests.get(cfn.client.base + "/v1/", params=params, timeout=30)
    assert _error(resp)[:2] == (403, "AccessDenied")


def test_unsigned_requests_are_refused(cfn: CfnServer, keystone: Any) -> None:
    url = cfn.client.base + "/v1/"
    resp = requests.get(url, params={"Action": "ListStacks"}, timeout=30)
    assert _error(resp) == (
        400,
        "IncompleteSignature",
        "The request signature does not conform to AWS standards",
    )
    # A Keystone token alone is refused as in Heat.
    token = keystone.session(keystone.demo).get_token()
    resp = requests.get(
        url,
        params={"Action": "ListStacks"},
        headers={"X-Auth-Token": token},
        timeout=30,
    )
    assert _error(resp)[:2] == (400, "IncompleteSignature")
    resp = requests.get(
        url,
        params={"Action": "ListStacks", "Signature": "abc"},
        timeout=30,
    )
    assert _error(resp)[:2] == (403, "MissingAuthenticationToken")


def test_token_path_with_x_auth_user(cfn: CfnServer, keystone: Any) -> None:
    # No signature but X-Auth-User: keystonemiddleware decides.
    token = keystone.session(keystone.demo).get_token()
    cfn.harness.engine.add_stack(cfn.project_id, "tok", TEMPLATE)
    resp = requests.get(
        cfn.client.base + "/v1/",
        params={"Action": "ListStacks"},
        headers={"X-Auth-User": "demo", "X-Auth-Token": token},
        timeout=30,
    )
    result = _check_ok(resp, "ListStacks")
    assert [e.text for e in result.iter("StackName")] == ["tok"]
    resp = requests.get(
        cfn.client.base + "/v1/",
        params={"Action": "ListStacks"},
        headers={"X-Auth-User": "demo", "X-Auth-Token": "bogus"},
        timeout=30,
    )
    assert resp.status_code == 401
