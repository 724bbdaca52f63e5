"""The engine's own ``heat`` client plugin: where the orchestration and
CFN APIs are, for the URLs resources hand out (signal URLs, metadata).

Used when no installed distribution registers a ``heat`` client plugin
(``keel_heat.clients``). It has no service client: remote stacks need a
plugin with python-heatclient.
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.plugin_api.client_plugin import ClientPlugin

ORCHESTRATION = "orchestration"
CLOUDFORMATION = "cloudformation"


def _opt(conf: Any, group: str | None, name: str) -> Any:
    if conf is None:
        return None
    try:
        section = conf if group is None else getattr(conf, group)
        return getattr(section, name)
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError, AttributeError):
        return None


class EngineHeatClientPlugin(ClientPlugin):
    """Endpoint URLs of the orchestration service (no client).

    :param context: an engine context (``keystone_session``,
        ``engine_conf``, ``project_id``, ``region_name``).
    """

    service_types = (ORCHESTRATION,)

    def _create(self, version: Any = None) -> Any:
        raise exception.NotSupported(feature="A python-heatclient client")

    def _conf(self) -> Any:
        return getattr(self.context, "engine_conf", None)

    def _url_for(self, service_type: str) -> str:
        sess = getattr(self.context, "keystone_session", None)
        url = None
        if sess is not None:
            url = sess.get_endpoint(
                service_type=service_type,
                interface="public",
                region_name=getattr(self.context, "region_name", None)
                or _opt(self._conf(), None, "region_name_for_services"),
            )
        if not url:
            raise exception.EntityNotFound(
                entity="Endpoint of service", name=service_type
            )
        return str(url)

    def get_heat_url(self) -> str:
        """The native API of the context's project."""
        configured = _opt(self._conf(), "clients_heat", "url")
        if configured:
            project = getattr(self.context, "project_id", "") or ""
            return str(configured) % {"tenant_id": project}
        return self._url_for(ORCHESTRATION)

    def get_heat_cfn_url(self) -> str:
        """The CFN API (``…/v1``)."""
        waitcond = _opt(self._conf(), None, "heat_waitcondition_server_url")
        if waitcond:
            return str(waitcond).replace("/waitcondition", "")
        return self._url_for(CLOUDFORMATION)

    def get_cfn_metadata_server_url(self) -> str:
        """The metadata server servers poll, with a trailing slash."""
        url = _opt(self._conf(), None, "heat_metadata_server_url")
        url = str(url) if url else self.get_heat_cfn_url()
        return url if url.endswith("/") else url + "/"

    def get_insecure_option(self) -> bool:
        """Whether servers may skip TLS checks of the APIs."""
        return bool(_opt(self._conf(), "clients_heat", "insecure"))
