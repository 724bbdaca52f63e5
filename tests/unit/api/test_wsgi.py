"""``keel_heat_api.wsgi``: configuration from files, never from argv."""

from __future__ import annotations

import pathlib
import subprocess
import sys

SCRIPT = """
import sys, webob
sys.argv = ["gunicorn", "--workers", "2", "keel_heat_api.wsgi:application"]
from keel_heat_api import wsgi
resp = webob.Request.blank("/").get_response(wsgi.application)
print(resp.status_int)
resp = webob.Request.blank("/v1/p/stacks/x/y", method="HEAD").get_response(
    wsgi.application)
print(resp.status_int)
"""


def test_gunicorn_argv_is_not_parsed(tmp_path: pathlib.Path) -> None:
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(
        "[DEFAULT]\ntransport_url = fake:/\n[api]\nauth_strategy = noauth\n"
        "noauth_project_id = p\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", SCRIPT],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"KEEL_HEAT_CONFIG_FILES": str(conf), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["300", "405"]
