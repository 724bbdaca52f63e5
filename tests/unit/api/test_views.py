"""Response shapes: key names and order as Heat emits them."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import webob

from tests.contract.harness import Harness

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {"r": {"type": "OS::Heat::None"}},
    "outputs": {"o": {"value": 1}},
}


@pytest.fixture(scope="module")
def created() -> Iterator[tuple[Harness, webob.Response]]:
    h = Harness(overrides={("api", "noauth_roles"): ["member", "reader"]})
    req = webob.Request.blank("/v1/embedded/stacks", method="POST")
    req.json = {"stack_name": "s", "template": TEMPLATE}
    yield h, req.get_response(h.app)
    h.stop()


def get(h: Harness, path: str) -> webob.Response:
    return webob.Request.blank(path).get_response(h.app)


def test_create_body(created: tuple[Harness, webob.Response]) -> None:
    _h, resp = created
    assert resp.status_int == 201
    body = json.loads(resp.text)
    href = resp.headers["Location"]
    assert body == {
        "stack": {
            "id": href.rsplit("/", 1)[1],
            "links": [{"href": href, "rel": "self"}],
        }
    }
    assert resp.text.startswith('{"stack": {"id": ')


def test_summary_key_order(created: tuple[Harness, webob.Response]) -> None:
    h, _resp = created
    stack = get(h, "/v1/embedded/stacks").json["stacks"][0]
    assert "project" not in stack
    assert set(stack) == {
        "id", "links", "stack_name", "description", "stack_status",
        "stack_status_reason", "creation_time", "updated_time",
        "deletion_time", "stack_owner", "parent", "stack_user_project_id",
        "tags",
    }  # fmt: skip
    assert list(stack)[:2] == ["id", "links"]


def test_show_key_order(created: tuple[Harness, webob.Response]) -> None:
    h, resp = created
    path = resp.headers["Location"].replace("http://localhost", "")
    stack = get(h, path).json["stack"]
    assert list(stack) == [
        "stack_name", "id", "links", "creation_time", "updated_time",
        "deletion_time", "notification_topics", "parameters", "description",
        "template_description", "capabilities", "disable_rollback",
        "timeout_mins", "stack_owner", "parent", "stack_user_project_id",
        "tags", "stack_status", "stack_status_reason", "outputs",
    ]  # fmt: skip
    assert all(isinstance(v, str) for v in stack["parameters"].values())


def test_resource_and_event_keys(
    created: tuple[Harness, webob.Response],
) -> None:
    h, resp = created
    path = resp.headers["Location"].replace("http://localhost", "")
    res = get(h, path + "/resources").json["resources"][0]
    assert list(res)[:4] == [
        "updated_time", "creation_time", "logical_resource_id",
        "resource_name",
    ]  # fmt: skip
    assert "metadata" not in res and "resource_action" not in res
    event = get(h, path + "/events?sort_dir=asc").json["events"][0]
    assert set(event) == {
        "id", "links", "event_time", "logical_resource_id", "resource_name",
        "physical_resource_id", "resource_status", "resource_status_reason",
    }  # fmt: skip
    assert event["physical_resource_id"] == path.rsplit("/", 1)[1]
