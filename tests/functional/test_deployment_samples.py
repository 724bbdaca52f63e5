"""The sample gunicorn configurations of both APIs serve their
applications as written (the port aside), and the uwsgi samples name the
same WSGI entry points."""

from __future__ import annotations

import configparser
import pathlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent

SAMPLES = [
    ("keel-heat-api", "keel_heat_api.wsgi:application", 8004),
    ("keel-heat-api-cfn", "keel_heat_api.wsgi_cfn:application", 8000),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, deadline: float) -> tuple[int, str]:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@pytest.mark.parametrize(("name", "entry", "port"), SAMPLES)
def test_gunicorn_sample_serves_the_api(
    tmp_path: pathlib.Path, name: str, entry: str, port: int
) -> None:
    sample = ROOT / "etc" / "gunicorn" / f"{name}.conf.py"
    text = sample.read_text()
    assert f'bind = ["0.0.0.0:{port}"]' in text
    assert entry in text
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(
        "[DEFAULT]\ntransport_url = fake:/\n"
        f"[database]\nconnection = sqlite:///{tmp_path}/db.sqlite\n"
        "[api]\nauth_strategy = noauth\nnoauth_project_id = p\n"
    )
    bind = f"127.0.0.1:{_free_port()}"
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", str(sample), "--bind", bind, entry],
        env={"KEEL_HEAT_CONFIG_FILES": str(conf), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        status, body = _get(
            f"http://{bind}/healthcheck", time.monotonic() + 60
        )
        assert (status, body) == (200, "OK")
        status, _ = _get(f"http://{bind}/", time.monotonic() + 5)
        # both APIs answer the root with their version document
        assert status in (200, 300)
    finally:
        server.terminate()
        try:
            _out, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            _out, err = server.communicate()
    assert "Traceback" not in err, err[-2000:]


@pytest.mark.parametrize(("name", "entry", "port"), SAMPLES)
def test_uwsgi_sample_names_the_entry_point(
    name: str, entry: str, port: int
) -> None:
    ini = configparser.ConfigParser(interpolation=None, strict=False)
    ini.read(ROOT / "etc" / "uwsgi" / f"{name}.ini")
    assert ini["uwsgi"]["module"] == entry
    assert ini["uwsgi"]["http-socket"] == f"0.0.0.0:{port}"
    unit = (ROOT / "etc" / "systemd" / f"{name}.service").read_text()
    assert f"--ini /etc/keel-heat/uwsgi/{name}.ini" in unit
