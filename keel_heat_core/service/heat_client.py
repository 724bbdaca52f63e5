"""The engine's own ``heat`` client plugin: where the orchestration and
CFN APIs are, for the URLs resources hand out (signal URLs, metadata).

Used when no installed distribution registers a ``heat`` client plugin
(``keel_heat.clients``). It has no service client: remote stacks need a
plugin with python-heatclient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.plugin_api.client_plugin import ClientPlugin

ORCHESTRATION = "orchestration"
CLOUDFORMATION = "cloudformation"


class EngineHeatClientPlugin(ClientPlugin):
    """Endpoint URLs of the orchestration service (no client).

    :param context: an engine context (``keystone_session``,
        ``engine_conf``, ``project_id``, ``region_name``).
    """

    service_types = (ORCHESTRATION,)

    def _create(self, version: Any = None) -> Any:
        raise exception.NotSupported(feature="A python-heatclient client")

    def _conf(self) -> cfg.ConfigOpts | None:
        """The engine's configuration; None in a context without one."""
        conf: cfg.ConfigOpts | None = getattr(
            self.context, "engine_conf", None
        )
        return conf

    def _option(self, read: Callable[[cfg.ConfigOpts], Any]) -> Any:
        """An option of the engine's configuration; None without one."""
        conf = self._conf()
        return None if conf is None else read(conf)

    def _url_for(self, service_type: str) -> str:
        sess = getattr(self.context, "keystone_session", None)
        url = None
        if sess is not None:
            url = sess.get_endpoint(
                service_type=service_type,
                interface="public",
                region_name=getattr(self.context, "region_name", None)
                or self._option(lambda c: c.region_name_for_services),
            )
        if not url:
            raise exception.EntityNotFound(
                entity="Endpoint of service", name=service_type
            )
        return str(url)

    def get_heat_url(self) -> str:
        """The native API of the context's project."""
        configured = self._option(lambda c: c.clients_heat.url)
        if configured:
            project = getattr(self.context, "project_id", "") or ""
            return str(configured) % {"tenant_id": project}
        return self._url_for(ORCHESTRATION)

    def get_heat_cfn_url(self) -> str:
        """The CFN API (``…/v1``)."""
        waitcond = self._option(lambda c: c.heat_waitcondition_server_url)
        if waitcond:
            return str(waitcond).replace("/waitcondition", "")
        return self._url_for(CLOUDFORMATION)

    def get_cfn_metadata_server_url(self) -> str:
        """The metadata server servers poll, with a trailing slash."""
        url = self._option(lambda c: c.heat_metadata_server_url)
        url = str(url) if url else self.get_heat_cfn_url()
        return url if url.endswith("/") else url + "/"

    def get_insecure_option(self) -> bool:
        """Whether servers may skip TLS checks of the APIs."""
        return bool(self._option(lambda c: c.clients_heat.insecure))
