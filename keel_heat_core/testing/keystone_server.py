"""Bootstrap and serve a real Keystone on 127.0.0.1 for tests.

Keystone runs from its own venv (:mod:`keel_heat_core.testing.keystone_venv`)
on SQLite in a working folder, under gunicorn with one ``sync`` worker:

* single-threaded workers, because Keystone 30 under threads sometimes
  checks one request against another request's domain;
* one worker, because the dogpile memory cache lives in each process: a
  second worker would keep serving entries that the first one changed;
* ``[identity] password_hash_rounds = 4`` and the memory cache, because
  Heat logs in with a password for every resource check and Keystone's
  default bcrypt cost made that the bottleneck.

gunicorn receives an already bound listening socket (``fd://``), so the
port is chosen by the kernel with no race, and the WSGI app is loaded from a
tiny entry module that empties ``sys.argv`` first: oslo.config would
otherwise parse gunicorn's command line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import textwrap
import time
from pathlib import Path

import requests

from keel_heat_core.testing import keystone_venv

_WSGI_ENTRY = '''\
"""WSGI entry for the test Keystone: hide gunicorn's argv from oslo."""
import sys

sys.argv = sys.argv[:1]

from keystone.server import wsgi  # noqa: E402

application = wsgi.initialize_public_application()
'''

_BOOTSTRAP = '''\
"""Run keystone-manage steps in one process (each start costs seconds)."""
import grp
import os
import pwd
import sys

from keystone.cmd import cli

conf, url, password = sys.argv[1:4]
user = pwd.getpwuid(os.getuid()).pw_name
group = grp.getgrgid(os.getgid()).gr_name
owner = ["--keystone-user", user, "--keystone-group", group]
steps = [
    ["db_sync"],
    ["fernet_setup", *owner],
    ["credential_setup", *owner],
    [
        "bootstrap",
        "--bootstrap-password", password,
        "--bootstrap-admin-url", url,
        "--bootstrap-public-url", url,
        "--bootstrap-internal-url", url,
        "--bootstrap-region-id", "RegionOne",
    ],
]
for step in steps:
    # keystone-manage parses its options once per process; clearing the
    # parsed state lets the next step register and parse its own.
    cli.CONF.clear()
    cli.main(argv=["keystone-manage", "--config-file", conf, *step])
'''


def write_config(workdir: Path, database_url: str | None = None) -> Path:
    """Write ``keystone.conf`` for a Keystone living in ``workdir``.

    :param workdir: the folder for the database, keys and logs.
    :param database_url: the database; SQLite in ``workdir`` by default.
    :returns: the path of the configuration file.
    """
    database_url = database_url or f"sqlite:///{workdir / 'keystone.db'}"
    for sub in ("fernet-keys", "credential-keys"):
        (workdir / sub).mkdir(mode=0o700, exist_ok=True)
    conf = workdir / "keystone.conf"
    conf.write_text(
        textwrap.dedent(
            f"""\
            [DEFAULT]
            debug = false
            log_file = {workdir / "keystone.log"}

            [database]
            connection = {database_url}

            [identity]
            password_hash_rounds = 4

            [cache]
            enabled = true
            backend = dogpile.cache.memory

            [fernet_tokens]
            key_repository = {workdir / "fernet-keys"}

            [fernet_receipts]
            key_repository = {workdir / "fernet-keys"}

            [credential]
            key_repository = {workdir / "credential-keys"}
            """
        )
    )
    return conf


def bootstrap(
    venv: Path, workdir: Path, conf: Path, url: str, password: str
) -> None:
    """Create the schema, keys, admin user, RegionOne and identity endpoints.

    :param venv: the Keystone venv.
    :param workdir: the working folder (holds the helper script and log).
    :param conf: the configuration file.
    :param url: the unversioned identity endpoint to register.
    :param password: the admin password.
    :raises RuntimeError: when a step fails.
    """
    script = workdir / "keel_keystone_bootstrap.py"
    script.write_text(_BOOTSTRAP)
    log = workdir / "bootstrap.log"
    with log.open("w") as out:
        result = subprocess.run(
            [
                str(keystone_venv.venv_python(venv)),
                "-W",
                "ignore",
                str(script),
                str(conf),
                url,
                password,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=300,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(
            "keystone bootstrap failed:\n" + _tail(log, workdir)
        )


def _tail(log: Path, workdir: Path) -> str:
    parts = [log.read_text()[-2000:]] if log.exists() else []
    klog = workdir / "keystone.log"
    if klog.exists():
        parts.append(klog.read_text()[-3000:])
    return "\n".join(parts)


def listen() -> socket.socket:
    """Return a listening TCP socket on a free port of 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


class KeystoneProcess:
    """A gunicorn master serving Keystone, and how to stop it.

    :param venv: the Keystone venv.
    :param workdir: the working folder holding ``keystone.conf``.
    :param sock: the listening socket gunicorn inherits.
    :param workers: the number of ``sync`` workers (keep 1 with the memory
        cache, see the module docstring).
    """

    def __init__(
        self,
        venv: Path,
        workdir: Path,
        sock: socket.socket,
        workers: int = 1,
    ) -> None:
        self.workdir = workdir
        port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        (workdir / "keel_keystone_wsgi.py").write_text(_WSGI_ENTRY)
        env = dict(os.environ)
        env["OS_KEYSTONE_CONFIG_FILES"] = str(workdir / "keystone.conf")
        env["PYTHONWARNINGS"] = "ignore"
        fd = sock.fileno()
        os.set_inheritable(fd, True)
        self._log = workdir / "gunicorn.log"
        with self._log.open("w") as out:
            self.process = subprocess.Popen(
                [
                    str(keystone_venv.venv_python(venv)),
                    "-m",
                    "gunicorn",
                    "--bind",
                    f"fd://{fd}",
                    "--workers",
                    str(workers),
                    "--worker-class",
                    "sync",
                    "--timeout",
                    "120",
                    "--graceful-timeout",
                    "5",
                    "--pythonpath",
                    str(workdir),
                    "keel_keystone_wsgi:application",
                ],
                cwd=workdir,
                env=env,
                pass_fds=(fd,),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until Keystone answers ``GET /v3``.

        :param timeout: seconds to wait.
        :raises RuntimeError: when gunicorn exits or the time runs out.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    "keystone exited with "
                    f"{self.process.returncode}:\n"
                    + _tail(self._log, self.workdir)
                )
            try:
                resp = requests.get(f"{self.url}/v3", timeout=5)
                if resp.status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(
            f"keystone did not answer within {timeout}s:\n"
            + _tail(self._log, self.workdir)
        )

    def stop(self) -> None:
        """Stop gunicorn and its workers (SIGTERM, then SIGKILL)."""
        if self.process.poll() is not None:
            return
        # The master leads its own session: its id is the group's id.
        pgid = self.process.pid
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=15)
        # Workers the master failed to reap go with the group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        self.process.wait(timeout=15)
