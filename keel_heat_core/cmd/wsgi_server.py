"""A small threaded WSGI server for the embedded mode (keel-heat-all).

Production deployments run the WSGI applications under uwsgi or gunicorn
(``keel_heat_api.wsgi``); this server exists so that one process with no
extra dependency can serve both APIs on a developer's machine.
"""

import socketserver
import threading
import time
from typing import Any
from wsgiref import simple_server

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class _ThreadingWSGIServer(
    socketserver.ThreadingMixIn, simple_server.WSGIServer
):
    # daemon threads never hold the process up at exit; the server keeps
    # its own count of them so that stop() can wait for the ones still
    # answering (and logging) with a bound
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._busy = 0
        self._idle = threading.Condition()

    def process_request_thread(
        self, request: Any, client_address: Any
    ) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._idle:
            self._busy += 1
        try:
            super().process_request(request, client_address)
        except BaseException:
            with self._idle:
                self._busy -= 1
            raise

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is being handled; ``False`` if some
        still were after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        with self._idle:
            while self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True


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

    def stop(self, grace: float = 5.0) -> None:
        """Stop accepting requests, let the requests in flight finish
        (up to ``grace`` seconds) and close the socket."""
        self._server.shutdown()
        if not self._server.wait_idle(grace):
            LOG.warning(
                "%s stopped with requests still in flight after %.0f s",
                self.name,
                grace,
            )
        self._server.server_close()
        self._thread.join(timeout=10)
