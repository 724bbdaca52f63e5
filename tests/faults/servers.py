"""Private RabbitMQ, PostgreSQL and MariaDB servers the tests restart.

The servers on the default ports are shared by every suite on the
machine and must never be stopped. A scenario that restarts its broker
or its database starts one of its own here: a scratch data directory
under ``/tmp``, free loopback ports, the server binaries of the system
packages. :meth:`PrivateServer.stop` and :meth:`PrivateServer.start`
really stop the server process and start it again on the same port and
data, as an operator's restart does.

:func:`missing` says which binaries a kind of server needs and lacks;
the fixtures skip with that reason (CI installs the packages).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from typing import Any

RABBIT_BIN = "/usr/lib/rabbitmq/bin"


def _pg_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else ""


def _mariadbd() -> str:
    for path in ("/usr/sbin/mariadbd", "/usr/sbin/mysqld"):
        if os.access(path, os.X_OK):
            return path
    return shutil.which("mariadbd") or ""


def missing(kind: str) -> str:
    """Why a private server of ``kind`` cannot run here ('' when it can)."""
    if kind == "rabbitmq":
        need = [f"{RABBIT_BIN}/rabbitmq-server", f"{RABBIT_BIN}/rabbitmqctl"]
        gone = [p for p in need if not os.access(p, os.X_OK)]
        return (
            f"RabbitMQ server not installed ({', '.join(gone)})"
            if gone
            else ""
        )
    if kind == "postgresql":
        return "" if _pg_bin() else "no /usr/lib/postgresql/*/bin/initdb"
    if kind == "mariadb":
        if not _mariadbd():
            return "no mariadbd"
        if not shutil.which("mariadb-install-db"):
            return "no mariadb-install-db"
        return ""
    raise ValueError(kind)


def free_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait(predicate: object, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} within {timeout}s")


def _scratch_dir(prefix: str, owner: str | None) -> pathlib.Path:
    """A directory under /tmp the server's user can write."""
    path = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    if owner is not None:
        user = pwd.getpwnam(owner)
        os.chown(path, user.pw_uid, user.pw_gid)
    return path


def _as_root() -> bool:
    return os.geteuid() == 0


def _quiet(cmd: list[str], timeout: float, **kwargs: Any) -> None:
    """Run ``cmd`` to its end with its output discarded; raise if it
    fails (``kwargs`` go to :func:`subprocess.run`)."""
    subprocess.run(
        cmd,
        check=True,
        timeout=timeout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **kwargs,
    )


class PrivateServer:
    """A server process of our own; subclasses say how to run it.

    :ivar port: the client port (the same across restarts).
    :ivar restarts: how many times :meth:`start` ran after the first.
    """

    name = "server"

    def __init__(self) -> None:
        self.port = free_port()
        self.restarts = 0
        self._started = False

    def start(self) -> None:
        """Start the server and wait until it takes connections."""
        self._launch()
        _wait(
            lambda: port_open(self.port),
            120,
            f"{self.name} did not open port {self.port}",
        )
        self._ready()
        if self._started:
            self.restarts += 1
        self._started = True

    def stop(self) -> None:
        """Stop the server and wait until its port is closed."""
        self._halt()
        _wait(
            lambda: not port_open(self.port),
            60,
            f"{self.name} did not close port {self.port}",
        )

    def restart(self, down: float) -> float:
        """Stop, stay down ``down`` seconds, start again.

        :returns: how long clients could not connect (seconds).
        """
        began = time.monotonic()
        self.stop()
        time.sleep(down)
        self.start()
        return time.monotonic() - began

    def close(self) -> None:
        """Stop for good and remove the data directory."""
        with contextlib.suppress(Exception):
            self._halt()
        self._remove()

    # -- subclasses ---------------------------------------------------

    def _launch(self) -> None:
        raise NotImplementedError  # each server says how it starts

    def _ready(self) -> None:
        """Called once the port is open; wait for more if needed."""

    def _halt(self) -> None:
        raise NotImplementedError  # each server says how it stops

    def _remove(self) -> None:
        raise NotImplementedError  # each server knows its files


class PrivateRabbit(PrivateServer):
    """A RabbitMQ node ``keelflt<hex>@localhost`` on free ports.

    It has a home directory of its own with its own Erlang cookie, so
    that neither the shared node nor its CLI tools are involved.
    """

    name = "RabbitMQ"

    def __init__(self) -> None:
        super().__init__()
        self.dist_port = free_port()
        self.node = f"keelflt{uuid.uuid4().hex[:8]}@localhost"
        self.home = _scratch_dir("keel-flt-rabbit-", None)
        (self.home / "enabled_plugins").write_text("[].\n")
        cookie = self.home / ".erlang.cookie"
        cookie.write_text(uuid.uuid4().hex.upper())
        cookie.chmod(0o400)
        self.env = dict(
            os.environ,
            HOME=str(self.home),
            RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_IP_ADDRESS="127.0.0.1",
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.dist_port),
            RABBITMQ_MNESIA_BASE=str(self.home / "mnesia"),
            RABBITMQ_LOG_BASE=str(self.home / "log"),
            RABBITMQ_ENABLED_PLUGINS_FILE=str(self.home / "enabled_plugins"),
            RABBITMQ_CONFIG_FILE=str(self.home / "rabbitmq"),
            RABBITMQ_ADVANCED_CONFIG_FILE=str(self.home / "advanced.config"),
            RABBITMQ_CONF_ENV_FILE=str(self.home / "rabbitmq-env.conf"),
            RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=(
                "-kernel inet_dist_use_interface {127,0,0,1}"
            ),
        )

    @property
    def url(self) -> str:
        """The oslo.messaging transport URL of the default vhost."""
        return f"rabbit://guest:guest@127.0.0.1:{self.port}/"

    def ctl(self, *args: str, timeout: float = 60) -> str:
        """``rabbitmqctl -n NODE ...``; returns stdout, raises on failure."""
        done = subprocess.run(
            [f"{RABBIT_BIN}/rabbitmqctl", "-q", "-n", self.node, *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(f"rabbitmqctl {args}: {done.stderr}")
        return done.stdout

    def _launch(self) -> None:
        _quiet(
            [f"{RABBIT_BIN}/rabbitmq-server", "-detached"],
            60,
            env=self.env,
            cwd=self.home,
        )

    def _halt(self) -> None:
        self.ctl("stop")

    def _remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


class _DataDirServer(PrivateServer):
    """A server whose files live in a scratch directory of its own
    (``dir``, the data in ``dir/data``), run as the system user
    ``owner`` when the tests run as root."""

    owner = ""
    prefix = "keel-flt-"

    def __init__(self) -> None:
        super().__init__()
        self.user = self.owner if _as_root() else None
        self.dir = _scratch_dir(self.prefix, self.user)
        self.data = self.dir / "data"

    def _remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivatePostgres(_DataDirServer):
    """A PostgreSQL cluster (``initdb`` in a scratch directory), trust
    authentication for ``postgres`` on 127.0.0.1; run as the
    ``postgres`` user when the tests run as root."""

    name = "PostgreSQL"
    owner = "postgres"
    prefix = "keel-flt-pg-"

    def __init__(self) -> None:
        super().__init__()
        self.bin = _pg_bin()
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-sync", "-E", "UTF8",
        )  # fmt: skip

    def _run(self, tool: str, *args: str) -> None:
        cmd = [f"{self.bin}/{tool}", *args]
        if self.user is not None:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        _quiet(cmd, 120)

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the ``postgres`` database."""
        return f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/postgres"

    def _launch(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c max_connections=400"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"),
            "-o", options, "-w", "-t", "120", "start",
        )  # fmt: skip

    def _halt(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


class PrivateMariaDB(_DataDirServer):
    """A MariaDB server (``mariadb-install-db`` in a scratch directory),
    ``root`` without a password; run as ``mysql`` when the tests run as
    root."""

    name = "MariaDB"
    owner = "mysql"
    prefix = "keel-flt-maria-"

    def __init__(self) -> None:
        super().__init__()
        self.socket = self.dir / "mysqld.sock"
        self.proc: subprocess.Popen[bytes] | None = None
        cmd = [
            "mariadb-install-db",
            f"--datadir={self.data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ]
        if self.user is not None:
            cmd.append(f"--user={self.user}")
        _quiet(cmd, 180)

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the server (no database)."""
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/"

    def _launch(self) -> None:
        cmd = [
            _mariadbd(),
            "--no-defaults",
            f"--datadir={self.data}",
            f"--port={self.port}",
            f"--socket={self.socket}",
            f"--pid-file={self.dir / 'mysqld.pid'}",
            f"--log-error={self.dir / 'error.log'}",
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
            "--max-connections=400",
            "--innodb-buffer-pool-size=64M",
            "--innodb-flush-log-at-trx-commit=0",
            "--skip-log-bin",
        ]
        if self.user is not None:
            cmd.append(f"--user={self.user}")
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _halt(self) -> None:
        """SIGTERM: a clean shutdown, as ``systemctl stop`` does."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@contextlib.contextmanager
def running(server: PrivateServer) -> Iterator[PrivateServer]:
    """Start ``server``; stop it and remove its files after."""
    try:
        server.start()
        yield server
    finally:
        server.close()
