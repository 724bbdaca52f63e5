"""Issue 9's acceptance: the engine works on after the user's token dies.

A member creates a stack through keystonemiddleware with a token; the
engine stores a trust. The token is then revoked in Keystone. A scaling
signal (OS::Heat::ScalingPolicy on an AutoScalingGroup of OS::Heat::None)
and a stack update still work: the engine acts through the trust. A probe
resource calls Keystone with the session the engine gives it and records
the token's trust, so the test sees which credentials the traversal used.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session

from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import user_creds as creds_repo
from keel_heat_core.plugin_api import attributes
from keel_heat_core.plugin_api import properties as props
from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.testing import cloud_setup
from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import SCALING, KeystoneCloud, wait_for

pytestmark = pytest.mark.keystone

PROBE = "KeelTest::TrustProbe"


class TrustProbe(Resource):
    """Reads the stack's project from Keystone at create and update."""

    properties_schema = {
        "generation": props.Schema(
            props.Schema.INTEGER, "Changed to update.", update_allowed=True
        )
    }
    attributes_schema = {
        "trust_id": attributes.Schema("The trust of the engine's token."),
        "user_id": attributes.Schema("The user the token acts for."),
        "project_name": attributes.Schema("What Keystone answered."),
        "generation": attributes.Schema("The generation last seen."),
    }

    def _probe(self, generation: Any) -> None:
        sess = self.context.keystone_session
        access = sess.auth.get_access(sess)
        url = sess.get_endpoint(service_type="identity", interface="public")
        project = sess.get(
            f"{url.rstrip('/')}/v3/projects/{access.project_id}"
        ).json()["project"]
        self.data_set("trust_id", str(access.trust_id))
        self.data_set("user_id", str(access.user_id))
        self.data_set("project_name", project["name"])
        self.data_set("generation", str(generation))

    def handle_create(self) -> None:
        self._probe(self.properties["generation"])
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        self._probe(prop_diff.get("generation"))

    def _resolve_attribute(self, name: str) -> Any:
        return self.data().get(name)


def _template(generation: int) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            **SCALING,
            "probe": {
                "type": PROBE,
                "properties": {"generation": generation},
            },
        },
        "outputs": {
            "size": {"value": {"get_attr": ["group", "current_size"]}},
            "trust_id": {"value": {"get_attr": ["probe", "trust_id"]}},
            "user_id": {"value": {"get_attr": ["probe", "user_id"]}},
            "project": {"value": {"get_attr": ["probe", "project_name"]}},
            "generation": {"value": {"get_attr": ["probe", "generation"]}},
        },
    }


@pytest.fixture(scope="module")
def probe_type() -> Iterator[None]:
    """The probe type in the engine's global environment, for this
    module only."""
    with cloud_setup.registered_types({PROBE: TrustProbe}):
        yield


def _outputs(cloud: KeystoneCloud, user: Any, stack_id: str) -> dict[str, Any]:
    return cloud.outputs(user, stack_id)


def _stack_users(keystone: KeystoneServer) -> list[dict[str, Any]]:
    found = keystone.admin_session().get(
        f"{keystone.v3_url}/users",
        params={"domain_id": keystone.stack_domain_id},
    )
    return list(found.json()["users"])


def test_signal_and_update_work_after_the_users_token_is_revoked(
    probe_type: None, cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    demo = keystone.demo
    users_before = {u["id"] for u in _stack_users(keystone)}
    first_token = cloud.token(demo, fresh=True)
    stack_id = cloud.create(demo, "scaled", _template(1), timeout_mins=5)
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))

    rec = stack_repo.get(cloud.db, stack_id)
    assert rec is not None and rec.user_creds_id is not None
    creds = creds_repo.get(cloud.db, rec.user_creds_id)
    assert creds is not None and creds.trust_id
    assert creds.trustor_user_id == demo.user_id
    # the policy's stack user has a project in the stack domain
    assert rec.stack_user_project_id
    domain_project = rec.stack_user_project_id
    project = (
        keystone.admin_session()
        .get(f"{keystone.v3_url}/projects/{domain_project}")
        .json()["project"]
    )
    assert project["domain_id"] == keystone.stack_domain_id
    assert project["name"] == f"{demo.project_id}-{stack_id}"[:64]
    out = _outputs(cloud, demo, stack_id)
    assert out["size"] == 1
    assert out["trust_id"] == creds.trust_id
    assert out["user_id"] == demo.user_id
    assert out["project"] == "demo"
    # the policy's stack user lives in the stack domain
    new_users = [
        u for u in _stack_users(keystone) if u["id"] not in users_before
    ]
    assert len(new_users) == 1
    assert new_users[0]["name"].startswith("scaled-up-")

    keystone.revoke_token(first_token)
    with pytest.raises(ks_exc.Unauthorized):
        ks_session.Session().get(
            f"{keystone.v3_url}/projects/{demo.project_id}",
            headers={"X-Auth-Token": first_token},
        )

    # the user signs in again; the engine still acts through the trust
    cloud.token(demo, fresh=True)
    status, body = cloud.request(
        demo, "POST", f"{cloud.path(stack_id)}/resources/up/signal", {}
    )
    assert status == 200, body

    def scaled() -> bool:
        return bool(_outputs(cloud, demo, stack_id)["size"] == 2)

    wait_for(scaled, 60, "the group to grow to 2")

    status, body = cloud.request(
        demo, "PUT", cloud.path(stack_id), {"template": _template(2)}
    )
    assert status == 202, body
    cloud.wait_state(demo, stack_id, ("UPDATE_COMPLETE",))
    out = _outputs(cloud, demo, stack_id)
    assert out["generation"] == "2"
    assert out["trust_id"] == creds.trust_id
    assert out["user_id"] == demo.user_id
    assert out["size"] == 2

    status, body = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204, body
    cloud.wait_deleted(demo, stack_id)
    assert new_users[0]["id"] not in {u["id"] for u in _stack_users(keystone)}

    def project_gone() -> bool:
        # deleted once the stack shows DELETE_COMPLETE, as in Heat
        try:
            keystone.admin_session().get(
                f"{keystone.v3_url}/projects/{domain_project}"
            )
        except ks_exc.NotFound:
            return True
        return False

    wait_for(project_gone, 60, "the stack's domain project to be deleted")
    assert creds_repo.get(cloud.db, rec.user_creds_id) is None


WAIT = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"}
    },
    "Outputs": {"url": {"Value": {"Ref": "handle"}}},
}


def test_a_refused_wait_condition_signal_is_a_400_with_heats_text(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    """The CFN signal is a synchronous engine call: the handle's refusal
    (``ResourceFailure``) crosses RPC and is answered as a sender error."""
    demo = keystone.demo
    stack_id = cloud.create(demo, "waiter", WAIT, timeout_mins=5)
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    url = _outputs(cloud, demo, stack_id)["url"]
    assert url.startswith(cloud.cfn_server.url.lower() + "/v1/waitcondition/")

    resp = requests.put(url, data=json.dumps({"Status": "BOGUS"}), timeout=30)
    assert resp.status_code == 400, resp.text
    assert "<Code>InvalidParameterValue</Code>" in resp.text
    assert (
        "<Message>A bad or out-of-range value was supplied:"
        "ValueError: resources.handle: Metadata format invalid</Message>"
    ) in resp.text

    good = {"Status": "SUCCESS", "Reason": "up", "UniqueId": "1", "Data": "x"}
    resp = requests.put(url, data=json.dumps(good), timeout=30)
    assert resp.status_code == 200, resp.text
    assert resp.text == "<resource>handle</resource>"
    status, body = cloud.request(
        demo, "GET", f"{cloud.path(stack_id)}/resources/handle/metadata"
    )
    assert status == 200, body
    assert body["metadata"]["1"]["Status"] == "SUCCESS"
    status, _ = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204
    cloud.wait_deleted(demo, stack_id)
