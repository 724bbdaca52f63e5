"""One engine, the native API and SQLite in this process, on ``fake://``.

Requests go the whole way: HTTP (python-heatclient, OSC or urllib) → the
native API → RPC → the engine → the database (``keel_soft_<random>``).
Two API applications serve two projects (neither admin) so that project
scoping can be seen from outside. The set-up is
:class:`keel_heat_core.testing.cloud.InProcessCloud`.
"""

from __future__ import annotations

import pathlib
from typing import Any

from keel_heat_core.testing.cloud import (
    BIN,
    KEY,
    InProcessCloud,
    NoauthAPI,
    wait_for,
)

__all__ = ["BIN", "KEY", "PROJECTS", "Cloud", "wait_for"]

PROJECTS = ("project-a", "project-b")


class Cloud(InProcessCloud):
    """The engine and one native API per project of :data:`PROJECTS`.

    :param options: more ``{(group, option): value}`` configuration.
    """

    def __init__(
        self,
        tmp: pathlib.Path,
        prefix: str = "keel_soft_",
        options: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        super().__init__(
            tmp,
            prefix=prefix,
            apis={p: NoauthAPI(p, token="anything") for p in PROJECTS},
            options=options,
        )

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        project: str = PROJECTS[0],
    ) -> tuple[int, Any]:
        """One JSON request; returns (status, decoded body or None)."""
        return super().request(method, path, body, api=project)

    def openstack(self, *args: str, project: str = PROJECTS[0]) -> str:
        """Run OSC against a project; returns stdout (asserts success)."""
        return super().openstack(*args, api=project).stdout
