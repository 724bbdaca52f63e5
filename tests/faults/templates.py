"""Templates of OS::Heat::TestResource for the fault scenarios."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

VERSION = "2021-04-16"

#: resources of the engine-kill stacks (``KEEL_FAULT_RESOURCES``, 200 by
#: default as the issue says; the repeated CI step uses fewer so that
#: five rounds fit its budget). The broker and database stacks have half.
RESOURCES = max(int(os.environ.get("KEEL_FAULT_RESOURCES", "200")), 8)


def layered(
    count: int,
    value: str,
    waits: Mapping[str, float],
    layer: int = 50,
    slow: dict[str, float] | None = None,
) -> dict[str, Any]:
    """``count`` TestResources in layers of ``layer``: ``rNNN`` depends on
    the resource one layer below, so the traversal has depth.

    :param waits: seconds each action waits (``action_wait_secs``).
    :param slow: ``{name: seconds}`` of independent TestResources whose
        create takes that long (locked rows across a fault).
    """
    resources: dict[str, Any] = {
        name: {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": value,
                "action_wait_secs": {"create": secs},
            },
        }
        for name, secs in (slow or {}).items()
    }
    for i in range(count):
        body: dict[str, Any] = {
            "type": "OS::Heat::TestResource",
            "properties": {"value": value, "action_wait_secs": waits},
        }
        if i >= layer:
            body["depends_on"] = [f"r{i - layer:03d}"]
        resources[f"r{i:03d}"] = body
    return {"heat_template_version": VERSION, "resources": resources}


def named(names: list[str], value: str, wait: float) -> dict[str, Any]:
    """Independent TestResources of the given names."""
    return {
        "heat_template_version": VERSION,
        "resources": {
            name: {
                "type": "OS::Heat::TestResource",
                "properties": {"value": value, "wait_secs": wait},
            }
            for name in names
        },
    }
