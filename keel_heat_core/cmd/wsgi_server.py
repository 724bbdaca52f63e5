"""A small threaded WSGI server for the embedded mode (keel-heat-all).

Production deployments run the WSGI applications under uwsgi or gunicorn
(``keel_heat_api.wsgi``); this server exists so that one process with no
extra dependency can serve both APIs on a developer's machine.
"""

import socketserver
import threading
from typing import Any
from wsgiref import simple_server

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class _ThreadingWSGIServer(
    socketserver.ThreadingMixIn, simple_server.WSGIServer
):
    daemon_threads = True
    allow_reuse_address = True


class _LoggingHandler(simple_server.WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        LOG.info("%s %s", self.address_string(), format % args)


class WSGIServer:
    """Serves one WSGI application from a background thread.

    :param name: a label for the logs (``native API``, ``CFN API``)
    :param app: the WSGI application
    :param host: address to bind
    :param port: port to bind; 0 picks a free one, see :attr:`port`
    """

    def __init__(self, name: str, app: Any, host: str, port: int) -> None:
        self.name = name
        self._server = simple_server.make_server(
            host,
            port,
            app,
            server_class=_ThreadingWSGIServer,
            handler_class=_LoggingHandler,
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            name=f"wsgi-{name}",
            daemon=True,
        )

    @property
    def host(self) -> str:
        """The bound address."""
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://host:port`` of the server."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        """Start serving in the background."""
        self._thread.start()
        LOG.info("%s listening on %s", self.name, self.url)

    def stop(self) -> None:
        """Stop accepting requests and close the socket."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
