"""Requests that used to end in a 500 (or never end) get a 400 that says
what is wrong, through the real API, engine and database; nothing is
stored for them."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest

from tests.functional.software.harness import Cloud

HOT = "heat_template_version: 2021-04-16\n"


def _raw(
    cloud: Cloud, path: str, data: bytes, content_type: str
) -> tuple[int, Any]:
    req = urllib.request.Request(  # noqa: S310
        cloud.url() + path,
        data=data,
        method="POST",
        headers={"Content-Type": content_type, "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _nested(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def _message(body: Any) -> str:
    return str(body["error"]["message"])


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_a_template_nested_thousands_deep_is_refused(
    cloud: Cloud, form: str
) -> None:
    deep = _nested(3000)
    if form == "json":
        text = json.dumps(
            {"heat_template_version": "2021-04-16", "outputs": {}}
        ).replace("{}", '{"o": {"value": ' + deep + "}}")
    else:
        text = HOT + "outputs:\n  o:\n    value: " + deep + "\n"
    status, body = cloud.request("POST", "/validate", {"template": text})
    assert status == 400, body
    assert _message(body) == (
        "Template not in valid format: "
        "The template is nested more than 128 levels deep."
    )


def test_an_environment_nested_thousands_deep_is_refused(
    cloud: Cloud,
) -> None:
    env = "parameters:\n  x: " + _nested(3000) + "\n"
    status, body = cloud.request(
        "POST", "/validate", {"template": HOT, "environment": env}
    )
    assert status == 400, body
    assert "The environment is nested more than 128 levels deep." in (
        _message(body)
    )


def test_a_deep_but_allowed_template_validates(cloud: Cloud) -> None:
    text = HOT + "outputs:\n  o:\n    value: " + _nested(120) + "\n"
    status, body = cloud.request("POST", "/validate", {"template": text})
    assert status == 200, body


def test_a_raw_body_of_nested_brackets_is_refused(cloud: Cloud) -> None:
    status, body = _raw(cloud, "/stacks", b"[" * 100000, "application/json")
    assert status == 400, body
    assert "nested more than 128 levels deep" in _message(body)


@pytest.mark.parametrize(
    "registry",
    [{"A": "B", "B": "A"}, {"A": "A"}],
    ids=["two-types", "itself"],
)
def test_a_registry_loop_is_refused(
    cloud: Cloud, registry: dict[str, str]
) -> None:
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {"r": {"type": "A"}},
    }
    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "looped",
            "template": template,
            "environment": {"resource_registry": registry},
        },
    )
    assert status == 400, body
    assert "The resource_registry maps A back to itself: A -> " in (
        _message(body)
    )
    status, listed = cloud.request("GET", "/stacks")
    assert all(s["stack_name"] != "looped" for s in listed["stacks"])


def test_an_unknown_charset_is_read_as_utf8(cloud: Cloud) -> None:
    body = json.dumps({"template": HOT}).encode()
    status, answer = _raw(
        cloud, "/validate", body, "application/json; charset=\u00e9"
    )
    assert status == 200, answer
    assert answer["Description"] == "No description"


def test_integers_beyond_the_database_are_refused(cloud: Cloud) -> None:
    status, body = cloud.request("GET", "/stacks?limit=99999999999999999999")
    assert status == 400, body
    assert "accepts integers up to 2147483647" in _message(body)
    status, body = cloud.request(
        "POST",
        "/stacks",
        {"stack_name": "long", "template": HOT, "timeout_mins": 2**63},
    )
    assert status == 400, body
    assert "'timeout_mins'" in _message(body)


def test_names_must_be_strings_that_fit(cloud: Cloud) -> None:
    status, body = cloud.request(
        "POST", "/software_configs", {"name": ["a"], "config": "x"}
    )
    assert (status, _message(body)) == (400, "'name' must be a string.")
    status, body = cloud.request(
        "POST", "/software_configs", {"name": "a" * 256, "config": "x"}
    )
    assert status == 400, body
    assert "256 characters long, more than the 255 allowed" in _message(body)
    status, body = cloud.request(
        "POST", "/software_deployments", {"config_id": 7, "server_id": "s"}
    )
    assert (status, _message(body)) == (400, "'config_id' must be a string.")
    status, listed = cloud.request("GET", "/software_configs")
    assert listed["software_configs"] == []


def test_a_resource_name_longer_than_its_column_is_refused(
    cloud: Cloud,
) -> None:
    def template(name: str) -> dict[str, Any]:
        return {
            "heat_template_version": "2021-04-16",
            "resources": {name: {"type": "OS::Heat::None"}},
        }

    status, body = cloud.request(
        "POST",
        "/stacks",
        {"stack_name": "long", "template": template("r" * 256)},
    )
    assert status == 400, body
    assert "is longer than 255 characters" in _message(body)
    status, listed = cloud.request("GET", "/stacks")
    assert "long" not in [s["stack_name"] for s in listed["stacks"]]
    status, body = cloud.request(
        "POST", "/validate", {"template": template("r" * 255)}
    )
    assert status == 200, body


def test_an_error_page_of_the_framework_has_heats_fault_shape(
    cloud: Cloud,
) -> None:
    """A body that is not UTF-8 and a path no route takes, sent without
    ``Accept`` (as curl sends them), are refused with Heat's JSON fault,
    not an HTML page."""
    for path, data, code, kind in (
        ("/validate", b"\xff\xfe", 400, "HTTPBadRequest"),
        ("/stacks/../../etc/passwd", b"{}", 404, "HTTPNotFound"),
    ):
        req = urllib.request.Request(  # noqa: S310
            cloud.url() + path,
            data=data,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            urllib.request.urlopen(req, timeout=60)  # noqa: S310
        except urllib.error.HTTPError as err:
            assert err.code == code
            assert err.headers["Content-Type"].startswith("application/json")
            body = json.loads(err.read())
        else:
            raise AssertionError(f"{path} was accepted")
        assert body["code"] == code and body["error"]["type"] == kind


def test_a_chunked_body_is_answered_at_once(cloud: Cloud) -> None:
    where = urllib.parse.urlsplit(cloud.url())
    project = where.path.rstrip("/")
    with socket.create_connection(
        (where.hostname, where.port), timeout=10
    ) as conn:
        conn.sendall(
            f"POST {project}/validate HTTP/1.1\r\nHost: x\r\n".encode()
            + b"Content-Type: application/json\r\n"
            + b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n'
        )
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        answer = b"".join(chunks).decode()
    assert answer.startswith("HTTP/1.0 400"), answer
    assert "does not accept chunked request bodies" in answer
