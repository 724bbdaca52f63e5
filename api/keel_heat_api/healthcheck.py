"""``/healthcheck``: oslo.middleware's health check, before authentication.

Requests for the path go to oslo.middleware's ``Healthcheck`` with the
``[healthcheck]`` options (``backends``, ``detailed``,
``allowed_source_ranges``, ``ignore_proxied_requests``,
``disable_by_file_path``, ...), so its answers, formats (text, JSON,
HTML) and status codes are the ones operators' tools already parse, as
for Heat's paste pipeline. A request the options make it ignore goes on
to the API like any other path.

keel-heat adds one backend, :data:`DATABASE_BACKEND`, on by default:
the API answers 503 when its database does not answer. Operators who
set ``backends`` list it beside the others they want, e.g.
``backends = keel_heat_database,disable_by_file``.
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from keel_heat_api.fault import StartResponse, WSGIApp
from keel_heat_api.opts import DATABASE_BACKEND
from keel_heat_core.db.health import database_check

__all__ = ["DATABASE_BACKEND", "DatabaseHealthcheck", "Healthcheck"]


class DatabaseHealthcheck(pluginbase.HealthcheckBaseExtension):
    """The ``keel_heat_database`` backend: is ``[database] connection``
    answering? (An API without a database has nothing to check.)"""

    def __init__(self, oslo_conf: cfg.ConfigOpts, conf: Any) -> None:
        super().__init__(oslo_conf, conf)
        self._check = database_check(oslo_conf)

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        reason = self._check()
        if reason is None:
            return pluginbase.HealthcheckResult(True, "OK")
        return pluginbase.HealthcheckResult(False, reason)


class Healthcheck:
    """Send ``/healthcheck`` to oslo.middleware's check, the rest to
    ``app``.

    :param app: the application for every other path.
    :param conf: the configuration holding ``[healthcheck]``
        (:func:`keel_heat_api.opts.register_opts` registered it).
    :param path: the path served.
    """

    def __init__(
        self, app: WSGIApp, conf: cfg.ConfigOpts, path: str = "/healthcheck"
    ) -> None:
        self.app = app
        self.path = path
        self.check = healthcheck.Healthcheck(app, conf)

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        if environ.get("PATH_INFO", "").rstrip("/") != self.path:
            return self.app(environ, start_response)
        return self.check(environ, start_response)
