"""Stack tags on update and hidden stacks, through the native API
(heat-tempest-plugin ``test_stack_tags``)."""

from __future__ import annotations

import uuid
from typing import Any

from tests.functional.software.harness import Cloud, wait_for

TEMPLATE = {
    "heat_template_version": "2014-10-16",
    "parameters": {"input": {"type": "string", "default": "test"}},
    "resources": {
        "not-used": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "input"}},
        }
    },
}


def _create(cloud: Cloud, tags: str) -> str:
    name = f"tags-{uuid.uuid4().hex[:8]}"
    status, body = cloud.request(
        "POST",
        "/stacks",
        {"stack_name": name, "template": TEMPLATE, "tags": tags},
    )
    assert status == 201, body
    ident = f"{name}/{body['stack']['id']}"
    _wait(cloud, ident, "CREATE_COMPLETE")
    return ident


def _show(cloud: Cloud, ident: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"/stacks/{ident}")
    assert status == 200, body
    return dict(body["stack"])


def _wait(cloud: Cloud, ident: str, state: str) -> None:
    wait_for(
        lambda: _show(cloud, ident)["stack_status"] == state,
        what=f"{ident} {state}",
    )


def _update(cloud: Cloud, ident: str, method: str, body: Any) -> None:
    status, answer = cloud.request(method, f"/stacks/{ident}", body)
    assert status == 202, answer
    _wait(cloud, ident, "UPDATE_COMPLETE")


def test_tags_follow_updates(cloud: Cloud):
    ident = _create(cloud, "foo,bar")
    assert _show(cloud, ident)["tags"] == ["foo", "bar"]
    _update(
        cloud,
        ident,
        "PUT",
        {
            "template": TEMPLATE,
            "tags": "tag1,tag2",
            "parameters": {"input": "next"},
        },
    )
    assert _show(cloud, ident)["tags"] == ["tag1", "tag2"]
    # PATCH keeps the tags unless it names new ones
    _update(cloud, ident, "PATCH", {"parameters": {"input": "again"}})
    assert _show(cloud, ident)["tags"] == ["tag1", "tag2"]
    _update(cloud, ident, "PATCH", {"tags": "tag3"})
    assert _show(cloud, ident)["tags"] == ["tag3"]
    # PUT without tags leaves none
    _update(
        cloud,
        ident,
        "PUT",
        {"template": TEMPLATE, "parameters": {"input": "none"}},
    )
    assert _show(cloud, ident)["tags"] == []
    status, body = cloud.request("GET", "/stacks?tags=tag3")
    assert ident.split("/")[1] not in [s["id"] for s in body["stacks"]]


def test_hidden_stacks_are_listed_only_on_request(cloud: Cloud):
    cloud.conf.set_override("hidden_stack_tags", ["hidden"])
    try:
        hidden = _create(cloud, "foo,hidden")
        shown = _create(cloud, "foo")
        status, body = cloud.request("GET", "/stacks")
        assert status == 200, body
        ids = [s["id"] for s in body["stacks"]]
        assert shown.split("/")[1] in ids
        assert hidden.split("/")[1] not in ids
        assert all("hidden" not in (s["tags"] or []) for s in body["stacks"])
        status, body = cloud.request("GET", "/stacks?with_count=true")
        assert body["count"] == len(ids)
        status, body = cloud.request("GET", "/stacks?show_hidden=true")
        assert hidden.split("/")[1] in [s["id"] for s in body["stacks"]]
        # still reachable by name
        assert _show(cloud, hidden)["tags"] == ["foo", "hidden"]
    finally:
        cloud.conf.clear_override("hidden_stack_tags")
