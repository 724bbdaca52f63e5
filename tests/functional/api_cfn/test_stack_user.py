"""The in-instance agent's view: a stack user's key and its metadata.

cfn-init, cfn-hup and os-collect-config's ``cfn`` collector sign
``DescribeStackResource`` with the EC2 key of the stack's user, which
lives in the stack's project of the stack-user domain and holds only
``heat_stack_user``. Heat's default policy refuses this call (empty
policy target); here it works, and the stack user can do nothing else.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from xml.etree import ElementTree

import pytest

from keel_heat_core.identity.stack_domain import (
    AccessKey,
    StackDomain,
    StackDomainSettings,
)
from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.api_cfn.conftest import CfnServer, SignedClient

pytestmark = pytest.mark.keystone

TEMPLATE = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "Server": {
            "Type": "OS::Heat::None",
            "Metadata": {"AWS::CloudFormation::Init": {"config": {}}},
        }
    },
}


@pytest.fixture(scope="module")
def stack_user(
    keystone: KeystoneServer,
) -> Iterator[tuple[str, AccessKey]]:
    domain = StackDomain(
        StackDomainSettings(
            auth_url=keystone.url,
            admin_user=keystone.domain_admin.username,
            admin_password=keystone.domain_admin.password,
            domain_id=keystone.stack_domain_id,
        )
    )
    project_id = domain.create_project(
        keystone.demo.project_id or "", str(uuid.uuid4())
    )
    user_id = domain.create_user("agent", project_id, "pw")
    key = domain.create_ec2_keypair(user_id, project_id)
    yield project_id, key
    domain.delete_user(user_id, project_id)
    domain.delete_project(project_id)


def test_stack_user_reads_metadata_only(
    cfn: CfnServer, stack_user: tuple[str, AccessKey]
) -> None:
    project_id, key = stack_user
    cfn.harness.engine.add_stack(
        cfn.project_id, "app", TEMPLATE, stack_user_project_id=project_id
    )
    agent = SignedClient(cfn.client.base, key.access, key.secret)
    resp = agent.v2(
        {
            "Action": "DescribeStackResource",
            "StackName": "app",
            "LogicalResourceId": "Server",
        }
    )
    assert resp.status_code == 200, resp.text
    root = ElementTree.fromstring(resp.text)
    metadata = root.findtext(
        "DescribeStackResourceResult/StackResourceDetail/Metadata"
    )
    assert metadata == '{"AWS::CloudFormation::Init": {"config": {}}}'
    for action in ("ListStacks", "DescribeStacks", "DeleteStack"):
        resp = agent.v4({"Action": action, "StackName": "app"})
        assert resp.status_code == 403, action
        assert f"Action {action} not allowed for user" in resp.text, resp.text
