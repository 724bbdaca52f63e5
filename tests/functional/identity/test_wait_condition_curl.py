"""Issue 9's acceptance: a wait condition completes when curl, run as an
instance would run it, posts to the handle's URL.

The native handle's ``curl_cli`` carries the stack user's Keystone token
and the handle's signal URL (keystonemiddleware checks the token); the CFN
handle's reference is a pre-signed ``/v1/waitcondition`` URL on the CFN
API (EC2 signature checked through Keystone's ec2tokens).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from typing import Any

import pytest

from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import KeystoneCloud

pytestmark = [
    pytest.mark.keystone,
    pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl"),
]

NATIVE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {
                "handle": {"get_resource": "handle"},
                "count": 1,
                "timeout": 300,
            },
        },
    },
    "outputs": {
        "curl": {"value": {"get_attr": ["handle", "curl_cli"]}},
        "data": {"value": {"get_attr": ["wait", "data"]}},
    },
}

CFN = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
        "wait": {
            "Type": "AWS::CloudFormation::WaitCondition",
            "Properties": {"Handle": {"Ref": "handle"}, "Timeout": "300"},
        },
    },
    "Outputs": {
        "url": {"Value": {"Ref": "handle"}},
        "data": {"Value": {"Fn::GetAtt": ["wait", "Data"]}},
    },
}


def _output(cloud: KeystoneCloud, user: Any, stack_id: str, key: str) -> Any:
    status, body = cloud.request(
        user, "GET", f"{cloud.path(stack_id)}/outputs/{key}"
    )
    assert status == 200, body
    return body["output"]["output_value"]


def _resource_state(cloud: KeystoneCloud, user: Any, stack_id: str) -> str:
    status, body = cloud.request(
        user, "GET", f"{cloud.path(stack_id)}/resources/handle"
    )
    assert status == 200, body
    return str(body["resource"]["resource_status"])


def _curl(command: str) -> str:
    done = subprocess.run(
        command, shell=True, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _wait_handle(cloud: KeystoneCloud, user: Any, stack_id: str) -> None:
    from tests.functional.identity.harness import wait_for

    wait_for(
        lambda: _resource_state(cloud, user, stack_id) == "CREATE_COMPLETE",
        120,
        "the handle to be created",
    )


def test_native_handle_completes_through_its_curl_cli(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    demo = keystone.demo
    stack_id = cloud.create(demo, "curlwait", NATIVE, timeout_mins=5)
    _wait_handle(cloud, demo, stack_id)
    command = str(_output(cloud, demo, stack_id, "curl"))
    assert "X-Auth-Token: " in command
    assert cloud.server.url in command
    # the user's own token is not in what the instance is given
    assert cloud.token(demo) not in command
    body = {"status": "SUCCESS", "reason": "done", "data": "ok", "id": "1"}
    out = _curl(f"{command} --data-binary {shlex.quote(json.dumps(body))}")
    assert "200 OK" in out.splitlines()[0], out
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    assert json.loads(_output(cloud, demo, stack_id, "data")) == {"1": "ok"}


def test_cfn_handle_completes_through_its_signed_url(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    demo = keystone.demo
    stack_id = cloud.create(demo, "cfnwait", CFN, timeout_mins=5)
    _wait_handle(cloud, demo, stack_id)
    url = str(_output(cloud, demo, stack_id, "url"))
    assert url.startswith(f"{cloud.cfn_server.url}/v1/waitcondition/")
    assert "Signature=" in url and "AWSAccessKeyId=" in url
    body = {
        "Status": "SUCCESS",
        "Reason": "done",
        "UniqueId": "1",
        "Data": "from cfn",
    }
    command = (
        "curl -s -i -X PUT -H 'Content-Type:' --data-binary "
        f"{shlex.quote(json.dumps(body))} {shlex.quote(url)}"
    )
    out = _curl(command)
    assert "200 OK" in out.splitlines()[0], out
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    assert json.loads(_output(cloud, demo, stack_id, "data")) == {
        "1": "from cfn"
    }


def test_cfn_wait_condition_stack_deletes(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    # Issue 30 (17): while the wait condition is deleted, its ``Handle``
    # (a reference to the handle) resolves without the handle's data:
    # the wait condition still finds its handle and the delete completes.
    demo = keystone.demo
    stack_id = cloud.create(demo, "cfnwaitdel", CFN, timeout_mins=5)
    _wait_handle(cloud, demo, stack_id)
    url = str(_output(cloud, demo, stack_id, "url"))
    body = {"Status": "SUCCESS", "Reason": "ok", "UniqueId": "1", "Data": "d"}
    out = _curl(
        "curl -s -i -X PUT -H 'Content-Type:' --data-binary "
        f"{shlex.quote(json.dumps(body))} {shlex.quote(url)}"
    )
    assert "200 OK" in out.splitlines()[0], out
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    status, shown = cloud.request(
        demo, "GET", f"{cloud.path(stack_id)}/resources/handle"
    )
    assert status == 200, shown
    user_id = shown["resource"]["physical_resource_id"]

    status, answer = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204, answer
    cloud.wait_deleted(demo, stack_id)
    gone = keystone.admin_session().get(
        f"{keystone.v3_url}/users/{user_id}", raise_exc=False
    )
    assert gone.status_code == 404
