"""The embedded WSGI server lets requests in flight finish at stop()."""

import http.client
import logging
import threading
import time
from typing import Any

import pytest

from keel_heat_core.cmd.wsgi_server import WSGIServer


class SlowApp:
    """Answers after ``release`` is set; ``entered`` says a request came."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.entered.set()
        self.release.wait(10)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"done"]


def _get(server: WSGIServer, out: dict[str, Any]) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        out["status"] = resp.status
        out["body"] = resp.read()
    finally:
        conn.close()


def test_stop_waits_for_the_request_in_flight_and_its_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = SlowApp()
    server = WSGIServer("test", app, "127.0.0.1", 0)
    server.start()
    out: dict[str, Any] = {}
    client = threading.Thread(target=_get, args=(server, out))
    client.start()
    assert app.entered.wait(10)
    # the answer comes while stop() is already waiting
    threading.Timer(0.3, app.release.set).start()
    with caplog.at_level(logging.INFO, "keel_heat_core.cmd.wsgi_server"):
        server.stop(grace=5)
        access = [r for r in caplog.records if '"GET / HTTP' in r.getMessage()]
    client.join(10)
    assert out == {"status": 200, "body": b"done"}
    # the handler thread logged its access line before stop() returned
    assert len(access) == 1


def test_stop_gives_up_after_the_grace_period(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = SlowApp()
    server = WSGIServer("test", app, "127.0.0.1", 0)
    server.start()
    client = threading.Thread(target=_get, args=(server, {}), daemon=True)
    client.start()
    assert app.entered.wait(10)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, "keel_heat_core.cmd.wsgi_server"):
        server.stop(grace=0.2)
    took = time.monotonic() - started
    app.release.set()
    client.join(10)
    assert took < 5
    assert any(
        "requests still in flight" in r.getMessage() for r in caplog.records
    )


def test_stop_of_an_idle_server_returns_at_once() -> None:
    server = WSGIServer("test", SlowApp(), "127.0.0.1", 0)
    server.start()
    server.stop(grace=5)
    with pytest.raises(OSError):
        http.client.HTTPConnection(
            server.host, server.port, timeout=2
        ).request("GET", "/")
