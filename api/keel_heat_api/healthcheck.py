"""``/healthcheck``: no authentication, a database check."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import webob

from keel_heat_api.fault import StartResponse, WSGIApp

LOG = logging.getLogger(__name__)

#: A check returns ``None`` when healthy, else a short reason.
HealthCheck = Callable[[], str | None]


class Healthcheck:
    """Answer ``GET|HEAD /healthcheck`` before authentication.

    200 ``OK`` when every check passes, else 503 with the reasons.

    :param app: the application for every other path.
    :param checks: named checks, for example the database one.
    :param path: the path served.
    """

    def __init__(
        self,
        app: WSGIApp,
        checks: dict[str, HealthCheck],
        path: str = "/healthcheck",
    ) -> None:
        self.app = app
        self.checks = checks
        self.path = path

    def _failures(self) -> list[str]:
        failures = []
        for name, check in self.checks.items():
            try:
                reason = check()
            except Exception as exc:  # noqa: BLE001 - report, do not raise
                LOG.warning("Health check %s raised: %s", name, exc)
                reason = f"{type(exc).__name__}"
            if reason:
                failures.append(f"{name}: {reason}")
        return failures

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        if environ.get("PATH_INFO", "").rstrip("/") != self.path:
            return self.app(environ, start_response)
        failures = self._failures()
        resp = webob.Response(
            status=503 if failures else 200,
            content_type="text/plain",
            charset="UTF-8",
        )
        resp.text = "\n".join(failures) if failures else "OK"
        if environ.get("REQUEST_METHOD") == "HEAD":
            resp.body = b""
        return resp(environ, start_response)
