"""One engine and the native API in this process, on ``fake://`` + SQLite.

Requests go the whole way: the real ``openstack`` CLI (OSC +
python-heatclient) or urllib → HTTP → the native API (noauth) → RPC →
the engine → the database (``keel_typ_<random>``).  Two API applications
serve the same project, one with the admin role and one with member
roles only, so that per-type policy can be seen from outside. The
set-up is :class:`keel_heat_core.testing.cloud.InProcessCloud`.
"""

from __future__ import annotations

import pathlib
import subprocess
from typing import Any

from keel_heat_core.testing.cloud import BIN, KEY, InProcessCloud, NoauthAPI

__all__ = ["BIN", "KEY", "PROJECT", "ROLES", "Cloud"]

PROJECT = "embedded"
ROLES = {
    "admin": ["admin", "member", "reader"],
    "member": ["member", "reader"],
}


class Cloud(InProcessCloud):
    """The engine and one native API per role set of :data:`ROLES`."""

    def __init__(self, tmp: pathlib.Path) -> None:
        super().__init__(
            tmp,
            prefix="keel_typ_",
            apis={
                who: NoauthAPI(PROJECT, tuple(roles))
                for who, roles in ROLES.items()
            },
        )

    def url(self, who: str = "admin") -> str:
        """The orchestration endpoint (``…/v1/<project>``)."""
        return super().url(who)

    def request(
        self, method: str, path: str, body: Any = None, who: str = "admin"
    ) -> tuple[int, Any]:
        """One JSON request; returns (status, decoded body or None)."""
        return super().request(method, path, body, api=who)

    def openstack(
        self, *args: str, who: str = "admin", ok: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run the ``openstack`` CLI against the API of ``who``."""
        return super().openstack(*args, api=who, check=ok)
