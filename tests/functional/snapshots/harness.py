"""One engine, the native API and SQLite in this process, on ``fake://``.

The software harness's cloud (HTTP → API → RPC → engine → database) with
this suite's database prefix (``keel_snp_``) and abandon/adopt enabled.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from tests.functional.software import harness

PREFIX = "keel_snp_"

TEMPLATE = {
    "heat_template_version": "2016-10-14",
    "parameters": {
        "val": {"type": "string", "default": "one"},
        "len": {"type": "number", "default": 8},
    },
    "resources": {
        "test": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "val"}},
        },
        "rand": {
            "type": "OS::Heat::RandomString",
            "properties": {"length": {"get_param": "len"}},
        },
    },
    "outputs": {
        "val": {"value": {"get_attr": ["test", "output"]}},
        "rand": {"value": {"get_attr": ["rand", "value"]}},
    },
}


class SnapshotCloud(harness.Cloud):
    """:class:`harness.Cloud` on a ``keel_snp_`` database."""

    def __init__(self, tmp: pathlib.Path) -> None:
        super().__init__(
            tmp,
            prefix=PREFIX,
            options={
                ("DEFAULT", "enable_stack_abandon"): True,
                ("DEFAULT", "enable_stack_adopt"): True,
                ("DEFAULT", "max_snapshots_per_stack"): 3,
            },
        )

    def create(self, name: str, **params: Any) -> dict[str, Any]:
        """Create a stack of :data:`TEMPLATE` and wait for it."""
        stack_id = super().create(name, TEMPLATE, parameters=params)
        return self.wait_state(stack_id, "CREATE_COMPLETE")

    def show(self, name: str) -> dict[str, Any]:
        """``openstack stack show -f json``."""
        return dict(
            json.loads(self.openstack("stack", "show", name, "-f", "json"))
        )

    def wait_state(self, name: str, state: str) -> dict[str, Any]:
        """Wait until the stack shows ``state``; returns the stack."""
        return super().wait_state(name, state, timeout=60)
