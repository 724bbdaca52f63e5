"""Parameters declared ``immutable: true`` through the native API and the
engine (Heat's functional ``test_immutable_parameters``): an update
(PUT or PATCH) or an update preview that changes one is refused with
Heat's ``ImmutableParameterModified`` 400, and the stack is left alone.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

TEMPLATE = """
heat_template_version: '2014-10-16'
parameters:
  param1:
    type: string
    default: default_value
    immutable: {immutable}
  param2:
    type: string
    default: free
    immutable: {immutable}
outputs:
  param1_output:
    value: {{ get_param: param1 }}
"""
IMMUTABLE = TEMPLATE.format(immutable="true")
MUTABLE = TEMPLATE.format(immutable="false")
REFUSED = "The following parameters are immutable and may not be updated: "


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _create(cloud: Cloud, stacks: Stacks, template: str) -> str:
    ident = stacks.create(
        yaml.safe_load(template),
        env={"parameters": {"param1": "value1", "param2": "free"}},
    )
    stacks.wait_status(ident, "CREATE_COMPLETE")
    return ident


def _output(stacks: Stacks, ident: str) -> Any:
    outputs = stacks.show(ident)["outputs"]
    return next(
        o["output_value"]
        for o in outputs
        if o["output_key"] == "param1_output"
    )


def _send(
    cloud: Cloud, method: str, path: str, template: str | None, **params: Any
) -> tuple[int, Any]:
    body: dict[str, Any] = {"parameters": params, "disable_rollback": True}
    if template is not None:
        body["template"] = template
    return cloud.request(method, path, body)


def _assert_refused(status: int, body: Any, names: str) -> None:
    assert status == 400, body
    assert body["title"] == "Bad Request"
    assert body["error"]["type"] == "ImmutableParameterModified"
    assert body["error"]["message"] == REFUSED + names


@pytest.mark.parametrize(
    ("method", "suffix", "template"),
    [
        pytest.param("PUT", "", IMMUTABLE, id="put"),
        pytest.param("PATCH", "", None, id="patch"),
        pytest.param("PUT", "/preview", IMMUTABLE, id="preview"),
    ],
)
def test_changed_immutable_parameter_is_refused(
    cloud: Cloud,
    stacks: Stacks,
    method: str,
    suffix: str,
    template: str | None,
) -> None:
    ident = _create(cloud, stacks, IMMUTABLE)
    path = f"/stacks/{ident}{suffix}"

    status, body = _send(cloud, method, path, template, param1="value2")
    _assert_refused(status, body, "param1")
    status, body = _send(
        cloud, method, path, template, param1="value2", param2="other"
    )
    _assert_refused(status, body, "param1, param2")

    shown = stacks.show(ident)
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert _output(stacks, ident) == "value1"


def test_unchanged_immutable_parameter_updates(
    cloud: Cloud, stacks: Stacks
) -> None:
    ident = _create(cloud, stacks, IMMUTABLE)
    # PATCH keeps the stored values; PUT gives the same value again
    status, body = _send(cloud, "PATCH", f"/stacks/{ident}", None)
    assert status == 202, body
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    status, body = _send(
        cloud, "PUT", f"/stacks/{ident}", IMMUTABLE, param1="value1"
    )
    assert status == 202, body
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert _output(stacks, ident) == "value1"


def test_mutable_parameter_updates(cloud: Cloud, stacks: Stacks) -> None:
    ident = _create(cloud, stacks, MUTABLE)
    status, body = _send(
        cloud, "PUT", f"/stacks/{ident}", MUTABLE, param1="value2"
    )
    assert status == 202, body
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert _output(stacks, ident) == "value2"
