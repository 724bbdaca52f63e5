"""AWS::IAM::User and AWS::IAM::AccessKey."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.access_policy import AccessPolicy
from keel_heat_pack_heat.iam import AccessKey, User
from keel_heat_pack_heat.none_resource import NoneResource

from keel_heat_core import exception


def test_user_and_key(resource_driver, fake_keystone):
    resource_driver.resource("server", NoneResource)
    policy = resource_driver.resource(
        "policy", AccessPolicy, {"AllowedResources": ["server"]}
    )
    resource_driver.create(policy)
    user = resource_driver.resource(
        "user",
        User,
        {"Policies": ["policy"], "LoginProfile": {"Password": "pw"}},
    )
    resource_driver.create(user)
    record = fake_keystone.users[user.resource_id]
    assert record["password"] == "pw"
    assert user.get_reference_id() == user.physical_resource_name()
    assert user.access_allowed("server")
    assert not user.access_allowed("user")

    key = resource_driver.resource(
        "key", AccessKey, {"UserName": user.get_reference_id()}
    )
    resource_driver.create(key)
    keypair = fake_keystone.keypairs[user.data()["credential_id"]]
    assert key.resource_id == keypair.access
    assert key.FnGetAtt("SecretAccessKey") == keypair.secret
    assert key.FnGetAtt("UserName") == user.get_reference_id()
    resource_driver.delete(key)
    assert fake_keystone.keypairs == {}
    resource_driver.delete(user)
    assert fake_keystone.users == {}


def test_user_with_unknown_policy(resource_driver, fake_keystone):
    user = resource_driver.resource("user", User, {"Policies": ["nope"]})
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(user)
    assert "The Referenced Attribute (user Policies) is incorrect." in str(
        err.value
    )


def test_key_for_unknown_user(resource_driver, fake_keystone):
    key = resource_driver.resource("key", AccessKey, {"UserName": "ghost"})
    with pytest.raises(exception.ResourceFailure, match="could not find"):
        resource_driver.create(key)
