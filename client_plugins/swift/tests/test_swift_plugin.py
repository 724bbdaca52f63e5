"""The swift client plugin against the test cloud's Swift.

The plugin acts as the member user (the catalog gives Swift's storage
URL); openstacksdk, as the same user, checks what it did.
"""

from __future__ import annotations

import json
from urllib import parse

import pytest
import requests
from keel_heat_client_swift import plugin as plugin_mod
from keel_heat_client_swift.plugin import SwiftClientPlugin

from keel_heat_core import exception
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]


def test_storage_url_comes_from_the_catalog(
    member_plugin: SwiftClientPlugin, openstack_cloud: CloudAccess
) -> None:
    client = member_plugin.client()
    project = openstack_cloud.member.project_id
    assert client.url.endswith(f"/v1/AUTH_{project}")
    expected = openstack_cloud.conn.object_store.get_endpoint()
    assert client.url == expected.rstrip("/")


def test_container_calls_and_error_classes(
    member_plugin: SwiftClientPlugin,
    openstack_cloud: CloudAccess,
    container: str,
) -> None:
    client = member_plugin.client()
    client.put_container(container, {"X-Container-Meta-Color": "blue"})
    client.put_object(container, "a b.txt", "hello")
    headers, objects = client.get_container(container)
    assert [o["name"] for o in objects] == ["a b.txt"]
    assert headers["x-container-meta-color"] == "blue"
    assert client.get_object(container, "a b.txt")[1] == b"hello"
    store = openstack_cloud.conn.object_store
    assert store.get_container_metadata(container).metadata == {
        "color": "blue"
    }
    with pytest.raises(Exception) as conflict:
        client.delete_container(container)
    assert member_plugin.is_conflict(conflict.value)
    assert not member_plugin.is_not_found(conflict.value)
    assert member_plugin.is_client_exception(conflict.value)
    # the message says what failed, as python-swiftclient's do
    assert str(conflict.value).startswith(
        f"Container DELETE failed: {client.url}/{container} 409 Conflict  "
        "[first 60 chars of response] "
    )
    client.delete_object(container, "a b.txt")
    client.delete_container(container)
    with pytest.raises(Exception) as missing:
        client.head_container(container)
    assert member_plugin.is_not_found(missing.value)
    assert str(missing.value).startswith(
        f"Container HEAD failed: {client.url}/{container} 404 Not Found"
    )
    with pytest.raises(Exception) as no_object:
        client.get_object(container, "gone")
    assert str(no_object.value).startswith(
        f"Object GET failed: {client.url}/{container}/gone 404 Not Found"
    )
    assert not member_plugin.is_conflict(missing.value)
    member_plugin.ignore_not_found(missing.value)


def test_temp_url_sets_the_key_and_lets_a_plain_put_in(
    member_plugin: SwiftClientPlugin,
    openstack_cloud: CloudAccess,
    container: str,
) -> None:
    client = member_plugin.client()
    client.put_container(container)
    url = member_plugin.get_temp_url(container, "obj", timeout=300)
    key = client.head_account()["x-account-meta-temp-url-key"]
    assert key
    # a second URL reuses the account's key
    member_plugin.get_temp_url(container, "other")
    assert client.head_account()["x-account-meta-temp-url-key"] == key
    path = parse.urlparse(url).path
    assert member_plugin.is_valid_temp_url_path(path)
    answer = requests.put(url, data=b"via temp url", timeout=30)
    assert answer.status_code == 201, answer.text
    body = openstack_cloud.conn.object_store.download_object(
        "obj", container=container
    )
    assert body == b"via temp url"
    # the URL is for PUT only, and a forged signature is refused
    assert requests.get(url, timeout=30).status_code == 401
    forged = url.replace("temp_url_sig=", "temp_url_sig=0")
    assert requests.put(forged, data=b"x", timeout=30).status_code == 401


def test_signal_url_keeps_every_put(
    member_plugin: SwiftClientPlugin,
    openstack_cloud: CloudAccess,
    container: str,
) -> None:
    url = member_plugin.get_signal_url(container, "handle")
    store = openstack_cloud.conn.object_store
    assert (
        store.download_object("handle", container=container)
        == plugin_mod.IN_PROGRESS.encode()
    )
    for n in (1, 2):
        answer = requests.put(
            url, data=json.dumps({"status": "SUCCESS", "n": n}), timeout=30
        )
        assert answer.status_code == 201, answer.text
    names = [o.name for o in store.objects(container)]
    assert "handle" in names
    # the two older bodies are kept as versions named after the object
    assert len([n for n in names if "handle" in n]) == 3
    bodies = sorted(
        store.download_object(n, container=container) for n in names
    )
    assert bodies == sorted(
        [
            plugin_mod.IN_PROGRESS.encode(),
            b'{"status": "SUCCESS", "n": 1}',
            b'{"status": "SUCCESS", "n": 2}',
        ]
    )


def test_files_from_container(
    member_plugin: SwiftClientPlugin, container: str
) -> None:
    client = member_plugin.client()
    client.put_container(container)
    client.put_object(container, "child.yaml", "heat_template_version: 1")
    client.put_object(container, "dir/env.yaml", "parameters: {}")
    client.put_object(container, "main.yaml", "skipped")
    files = member_plugin.get_files_from_container(
        container, files_to_skip=["main.yaml"]
    )
    assert files == {
        "child.yaml": "heat_template_version: 1",
        "dir/env.yaml": "parameters: {}",
    }
    with pytest.raises(exception.DownloadLimitExceeded) as over:
        member_plugin.get_files_from_container(container, max_bytes=10)
    assert "exceeds maximum allowed (10 bytes)" in str(over.value)
    with pytest.raises(exception.NotFound) as missing:
        member_plugin.get_files_from_container(container + "-none")
    assert str(missing.value).startswith(
        f"Could not fetch files from container {container}-none, reason: "
    )


def test_no_session_is_an_authorization_failure(
    member_plugin: SwiftClientPlugin,
) -> None:
    member_plugin.context.keystone_session = None
    with pytest.raises(exception.AuthorizationFailure):
        member_plugin.client()
