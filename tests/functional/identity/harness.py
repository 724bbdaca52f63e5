"""The native API behind keystonemiddleware, one engine, the real Keystone.

Requests go the whole way: HTTP with a Keystone token → auth_token →
the native API → RPC (``fake://``) → the engine → SQLite, and the engine
acts in Keystone through the stack's stored trust (``[trustee]`` is the
fixture's ``heat`` user). The set-up is
:class:`keel_heat_core.testing.cloud.InProcessCloud` given the Keystone
fixture; this module's class puts the user first in every helper.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

from keel_heat_core.testing import cloud as kit
from keel_heat_core.testing.keystone import Credentials, KeystoneServer

__all__ = ["KEY", "SCALING", "KeystoneCloud", "wait_for"]

KEY = kit.KEY


#: a group of OS::Heat::None that a signal on ``up`` grows by one (the
#: policy and its stack user, a trust-using pair of resources)
SCALING: dict[str, Any] = {
    "group": {
        "type": "OS::Heat::AutoScalingGroup",
        "properties": {
            "min_size": 1,
            "max_size": 3,
            "resource": {"type": "OS::Heat::None"},
        },
    },
    "up": {
        "type": "OS::Heat::ScalingPolicy",
        "properties": {
            "adjustment_type": "change_in_capacity",
            "auto_scaling_group_id": {"get_resource": "group"},
            "scaling_adjustment": 1,
            "cooldown": 0,
        },
    },
}


class KeystoneCloud(kit.InProcessCloud):
    """The engine and the native API of one test module.

    :param keystone: the Keystone fixture.
    :param tmp: a folder for the database and the configuration.
    :param extra: ``{(group, option): value}`` configuration.
    """

    def __init__(
        self,
        keystone: KeystoneServer,
        tmp: pathlib.Path,
        extra: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        super().__init__(
            tmp,
            prefix="keel_ks_",
            keystone=keystone,
            options=extra,
            timeout=90.0,
        )

    def request(
        self,
        user: Credentials,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One JSON request as ``user``; returns (status, decoded body)."""
        return super().request(
            method, path, body, user=user, token=token, headers=headers
        )

    def create(
        self, user: Credentials, name: str, template: Any, **extra: Any
    ) -> str:
        """POST a stack as ``user``; return its id (asserts 201)."""
        return super().create(name, template, user=user, **extra)

    def stack(self, user: Credentials, stack_id: str) -> dict[str, Any]:
        return super().stack(stack_id, user=user)

    def outputs(self, user: Credentials, stack_id: str) -> dict[str, Any]:
        """The stack's output values by key, as ``user`` sees them."""
        return super().outputs(stack_id, user=user)

    def wait_state(
        self,
        user: Credentials,
        stack_id: str,
        states: tuple[str, ...],
        timeout: float = 90.0,
    ) -> dict[str, Any]:
        """Poll the stack until its ``<action>_<status>`` is one of
        ``states``; fail on another final state."""
        return super().wait_state(
            stack_id, states, user=user, timeout=timeout, strict=True
        )

    def wait_deleted(
        self, user: Credentials, stack_id: str, timeout: float = 90.0
    ) -> None:
        """Poll until the stack is gone (404) or ``DELETE_COMPLETE``."""
        super().wait_deleted(stack_id, user=user, timeout=timeout)


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = ""
) -> Any:
    """:func:`keel_heat_core.testing.cloud.wait_for`, every 0.3 s."""
    return kit.wait_for(predicate, timeout, what, interval=0.3)
