"""OS::Swift::Container and AWS::S3::Bucket through the engine.

Stacks are created, updated and deleted by the cloud's member user with
the native API of keel-heat; after each step openstacksdk, as the same
user, looks at Swift.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from swift_pack_checks import container_headers, empty_and_delete

from keel_heat_core.testing.cloud import InProcessCloud
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]


def container_template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "box": {"type": "OS::Swift::Container", "properties": props}
        },
        "outputs": {
            name: {"value": {"get_attr": ["box", name]}}
            for name in (
                "DomainName",
                "WebsiteURL",
                "RootURL",
                "ObjectCount",
                "BytesUsed",
                "HeadContainer",
            )
        }
        | {
            "ref": {"value": {"get_resource": "box"}},
            "show": {"value": {"get_attr": ["box", "show"]}},
        },
    }


def _resource_id(
    heat: InProcessCloud, user: Any, stack: str, name: str
) -> str:
    status, body = heat.request(
        "GET", f"{heat.path(stack)}/resources/{name}", user=user
    )
    assert status == 200, body
    return str(body["resource"]["physical_resource_id"])


def test_container_create_replace_delete(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    member = openstack_cloud.member
    props = {
        "name": unique,
        "X-Container-Read": ".r:*",
        "X-Container-Write": f"{member.project_name}:{member.username}",
        "X-Container-Meta": {"Color": "blue", "Size": "7"},
        "X-Account-Meta": {"Owner": unique},
    }
    stack = heat.create(unique, container_template(**props), user=member)
    try:
        shown = heat.wait_state(stack, "CREATE_COMPLETE", user=member)
        headers = container_headers(store, unique)
        assert headers is not None
        assert headers["x-container-read"] == ".r:*"
        assert headers["x-container-write"] == props["X-Container-Write"]
        assert headers["x-container-meta-color"] == "blue"
        assert headers["x-container-meta-size"] == "7"
        account = store.get_account_metadata()
        assert account.metadata.get("owner") == unique
        outputs = {
            o["output_key"]: o.get("output_value") for o in shown["outputs"]
        }
        endpoint = store.get_endpoint().rstrip("/")
        assert outputs["ref"] == unique
        assert outputs["RootURL"] == endpoint
        assert outputs["WebsiteURL"] == f"{endpoint}/{unique}"
        assert outputs["DomainName"] == "127.0.0.1"
        assert int(outputs["ObjectCount"]) == 0
        assert int(outputs["BytesUsed"]) == 0
        assert outputs["HeadContainer"]["x-container-meta-color"] == "blue"
        assert outputs["show"]["x-container-read"] == ".r:*"
        assert outputs["show"]["x-container-object-count"] == "0"

        # every property is fixed: a change makes a new container (no
        # name here, so the new one has a new physical name)
        del props["name"]
        status, body = heat.request(
            "PUT",
            heat.path(stack),
            {"template": container_template(**props)},
            user=member,
        )
        assert status == 202, body
        heat.wait_state(stack, "UPDATE_COMPLETE", user=member)
        first = _resource_id(heat, member, stack, "box")
        assert first.startswith(f"{unique}-box-")
        assert container_headers(store, first) is not None
        assert container_headers(store, unique) is None

        props["X-Container-Meta"] = {"Color": "red"}
        status, body = heat.request(
            "PUT",
            heat.path(stack),
            {"template": container_template(**props)},
            user=member,
        )
        assert status == 202, body
        heat.wait_state(stack, "UPDATE_COMPLETE", user=member)
        second = _resource_id(heat, member, stack, "box")
        assert second != first
        headers = container_headers(store, second)
        assert headers is not None
        assert headers["x-container-meta-color"] == "red"
        assert container_headers(store, first) is None
        assert heat.outputs(stack, user=member)["ref"] == second

        # objects put in the container show in the attributes; without
        # PurgeOnDelete the container cannot be deleted
        store.upload_object(container=second, name="x.txt", data=b"12345")
        outputs = heat.outputs(stack, user=member)
        assert int(outputs["ObjectCount"]) == 1
        assert int(outputs["BytesUsed"]) == 5
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        failed = heat.wait_state(stack, "DELETE_FAILED", user=member)
        assert failed["stack_status_reason"] == (
            "Resource DELETE failed: ResourceActionNotSupported: "
            f"resources.box: Deleting non-empty container ({second}) when "
            "PurgeOnDelete is False is not supported for resource."
        )
        assert container_headers(store, second) is not None
        store.delete_object("x.txt", container=second)
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        heat.wait_deleted(stack, user=member)
        assert container_headers(store, second) is None
    finally:
        for name in (unique, f"{unique}-box"):
            empty_and_delete(store, name)


def test_purge_on_delete_empties_the_container(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    member = openstack_cloud.member
    template = container_template(name=unique, PurgeOnDelete=True)
    stack = heat.create(unique, template, user=member)
    try:
        heat.wait_state(stack, "CREATE_COMPLETE", user=member)
        for n in range(3):
            store.upload_object(container=unique, name=f"o{n}", data=b"x")
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        heat.wait_deleted(stack, user=member)
        assert container_headers(store, unique) is None
    finally:
        empty_and_delete(store, unique)


def bucket_template(policy: str | None = None, **props: Any) -> dict[str, Any]:
    bucket: dict[str, Any] = {"Type": "AWS::S3::Bucket", "Properties": props}
    if policy:
        bucket["DeletionPolicy"] = policy
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"Bucket": bucket},
        "Outputs": {
            "ref": {"Value": {"Ref": "Bucket"}},
            "DomainName": {"Value": {"Fn::GetAtt": ["Bucket", "DomainName"]}},
            "WebsiteURL": {"Value": {"Fn::GetAtt": ["Bucket", "WebsiteURL"]}},
        },
    }


@pytest.mark.parametrize(
    ("acl", "read", "write"),
    [
        ("PublicRead", ".r:*", "{owner}"),
        ("AuthenticatedRead", "{project}", "{owner}"),
        ("Private", "{owner}", "{owner}"),
        ("BucketOwnerFullControl", "{owner}", "{owner}"),
    ],
)
def test_bucket_acl_tags_website_and_delete(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    acl: str,
    read: str,
    write: str,
) -> None:
    member = openstack_cloud.member
    name = "swpb-" + uuid.uuid4().hex[:8]
    template = bucket_template(
        AccessControl=acl,
        Tags=[{"Key": "Team", "Value": "blue"}],
        WebsiteConfiguration={
            "IndexDocument": "index.html",
            "ErrorDocument": "error.html",
        },
    )
    stack = heat.create(name, template, user=member)
    bucket = ""
    try:
        heat.wait_state(stack, "CREATE_COMPLETE", user=member)
        outputs = heat.outputs(stack, user=member)
        bucket = outputs["ref"]
        assert bucket.startswith(f"{name}-Bucket-")
        headers = container_headers(store, bucket)
        assert headers is not None
        owner = f"{member.project_name}:{member.username}"
        expected = {"{owner}": owner, "{project}": member.project_name}
        assert headers["x-container-read"] == expected.get(read, read)
        assert headers["x-container-write"] == expected.get(write, write)
        assert headers["x-container-meta-s3-tag-team"] == "blue"
        assert headers["x-container-meta-web-index"] == "index.html"
        assert headers["x-container-meta-web-error"] == "error.html"
        endpoint = store.get_endpoint().rstrip("/")
        assert outputs["WebsiteURL"] == f"{endpoint}/{bucket}"
        assert outputs["DomainName"] == "127.0.0.1"
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        heat.wait_deleted(stack, user=member)
        assert container_headers(store, bucket) is None
    finally:
        if bucket:
            empty_and_delete(store, bucket)


def test_bucket_not_empty_and_retained(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    member = openstack_cloud.member
    stack = heat.create(unique, bucket_template(), user=member)
    retained = ""
    try:
        heat.wait_state(stack, "CREATE_COMPLETE", user=member)
        bucket = heat.outputs(stack, user=member)["ref"]
        store.upload_object(container=bucket, name="keep", data=b"k")
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        failed = heat.wait_state(stack, "DELETE_FAILED", user=member)
        assert failed["stack_status_reason"] == (
            "Resource DELETE failed: ResourceActionNotSupported: "
            "resources.Bucket: The bucket you tried to delete is not empty "
            f"({bucket}). is not supported for resource."
        )
        store.delete_object("keep", container=bucket)
        status, body = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, body
        heat.wait_deleted(stack, user=member)
        assert container_headers(store, bucket) is None

        # DeletionPolicy Retain keeps the container
        kept = heat.create(
            unique + "-r", bucket_template("Retain"), user=member
        )
        heat.wait_state(kept, "CREATE_COMPLETE", user=member)
        retained = heat.outputs(kept, user=member)["ref"]
        status, body = heat.request("DELETE", heat.path(kept), user=member)
        assert status == 204, body
        heat.wait_deleted(kept, user=member)
        assert container_headers(store, retained) is not None
    finally:
        if retained:
            empty_and_delete(store, retained)


def test_bucket_public_read_write_is_refused_by_swift(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    # Heat asks for a write ACL of any referrer, which Swift refuses
    member = openstack_cloud.member
    template = bucket_template(AccessControl="PublicReadWrite")
    stack = heat.create(unique, template, user=member)
    failed = heat.wait_state(stack, "CREATE_FAILED", user=member)
    reason = failed["stack_status_reason"]
    assert reason.startswith(
        "Resource CREATE failed: BadRequest: resources.Bucket: "
        "Container PUT failed: "
    )
    assert " 400 Bad Request  [first 60 chars of response] " in reason
    assert "Referrers not allowed in write ACL" in reason
    assert not [
        c.name for c in store.containers() if c.name.startswith(unique)
    ]
    status, body = heat.request("DELETE", heat.path(stack), user=member)
    assert status == 204, body
    heat.wait_deleted(stack, user=member)
