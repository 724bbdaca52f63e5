"""Start keel-heat for a benchmark run, run the driver, tear it down.

Two kinds of deployment:

``embedded``
    ``keel-heat-all`` with its defaults (SQLite in a fresh state
    directory, the in-process transport, noauth on 127.0.0.1), one
    process.
``rabbit1`` / ``rabbit2``
    ``keel-heat-engine`` with 1 or 2 engine workers on a database of its
    own on MariaDB (PyMySQL) and an exchange of its own on RabbitMQ, and
    the native API under gunicorn (2 gthread workers, noauth on
    loopback; with ``--keystone``, behind the real Keystone fixture and
    with the conformance settings, as ``heat27`` runs).
``heat27``
    the real Heat 27.0.1 from its own virtualenv (:mod:`bench.heat27`):
    ``heat-engine`` with 2 engine workers, MariaDB, a RabbitMQ virtual
    host, Heat's API application under the same gunicorn settings, and
    the real Keystone fixture.

Both raise ``max_template_size`` and ``max_json_body_size`` above the
5 MB validate case. One command runs a configuration and the driver::

    .venv/bin/python -m bench.launcher rabbit2 \\
        --out bench/results/rabbit2.jsonl -- --sizes 10,100

Everything after ``--`` goes to :mod:`bench.driver` (its ``--endpoint``,
``--label`` and ``--out`` are filled in). Never part of the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import requests

from bench import driver, heat27
from bench.client import Endpoint, OrchestrationClient

if TYPE_CHECKING:
    from keel_heat_core.testing.keystone import KeystoneServer

MYSQL = "mysql+{driver}://root@127.0.0.1:3306/{db}?charset=utf8mb4"
#: SQLAlchemy drivers for MariaDB that ``--driver`` takes.
DRIVERS = ("pymysql", "mysqldb")
RABBIT = "rabbit://guest:guest@127.0.0.1:5672/{vhost}"
PROJECT = "embedded"
#: Above the 5 MB validate case, with room for JSON escaping.
BIG = 16 * 1024 * 1024
DB_PREFIX = "keel_bench_"
KINDS = ("embedded", "rabbit1", "rabbit2", "heat27")
#: ``--tuned``: a pool as large as the engine's thread pool, so that a
#: busy worker stops opening (and closing) overflow connections.
TUNED_DB = {"max_pool_size": "64", "max_overflow": "16"}


def free_port() -> int:
    """Return a TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bin(name: str) -> str:
    return str(pathlib.Path(sys.executable).parent / name)


def write_conf(
    path: pathlib.Path, sections: dict[str, dict[str, str]]
) -> None:
    """Write an ini file of ``{section: {option: value}}``."""
    lines = []
    for section, options in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {v}" for k, v in options.items()]
        lines.append("")
    path.write_text("\n".join(lines))


def base_sections(
    port: int, workdir: pathlib.Path
) -> dict[str, dict[str, str]]:
    """Options every configuration shares."""
    return {
        "DEFAULT": {
            "max_template_size": str(BIG),
            "max_json_body_size": str(BIG),
            # The validate case has 2000 resources; the scale test 5000.
            "max_resources_per_stack": "10000",
            "auth_encryption_key": uuid.uuid4().hex,
            "log_file": str(workdir / "keel-heat.log"),
        },
        "api": {"auth_strategy": "noauth", "noauth_project_id": PROJECT},
        "heat_api": {"bind_host": "127.0.0.1", "bind_port": str(port)},
        "heat_api_cfn": {"bind_host": "127.0.0.1", "bind_port": "0"},
        "embedded": {"state_dir": str(workdir / "state")},
    }


class Deployment:
    """keel-heat processes started for one run, and their cleanup.

    :param kind: one of :data:`KINDS`
    :param workdir: where configuration, state and logs go
    :param keystone: a running Keystone to authenticate against (the
        ``demo`` user's project is the endpoint's); ``None`` for noauth
    """

    def __init__(
        self,
        kind: str,
        workdir: pathlib.Path,
        tuned: bool = False,
        keystone: KeystoneServer | None = None,
        db_driver: str = "pymysql",
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown deployment {kind!r}")
        if kind in ("embedded", "heat27") and (keystone is None) == (
            kind == "heat27"
        ):
            raise ValueError(f"{kind}: Keystone is required for heat27 only")
        self.kind = kind
        self.tuned = tuned
        self.db_driver = db_driver
        self.workdir = workdir
        self.keystone = keystone
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        project = keystone.demo.project_id if keystone else PROJECT
        self.endpoint = f"{self.url}/v1/{project}"
        self.name = f"{DB_PREFIX}{uuid.uuid4().hex[:10]}"
        self.conf = workdir / "keel-heat.conf"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    # -- starting ---------------------------------------------------------

    def start(self) -> None:
        sections = base_sections(self.port, self.workdir)
        if self.kind == "embedded":
            write_conf(self.conf, sections)
            self._spawn(
                "all", [_bin("keel-heat-all"), "--config-file", str(self.conf)]
            )
        else:
            workers = "2" if self.kind == "heat27" else self.kind[-1]
            self._create_database()
            self._create_vhost()
            sections["DEFAULT"].update(
                transport_url=RABBIT.format(vhost=self.name),
                control_exchange=self.name,
                num_engine_workers=workers,
            )
            sections["database"] = {
                "connection": MYSQL.format(driver=self.db_driver, db=self.name)
            }
            if self.tuned:
                sections["database"].update(TUNED_DB)
                sections["database"]["connection"] += "&ssl_disabled=true"
            if self.keystone is not None:
                sections = self._keystone_sections(sections)
            if self.kind == "heat27":
                self._start_heat(sections)
            else:
                self._start_keel(sections)
        self.wait_healthy()

    def _keystone_sections(
        self, sections: dict[str, dict[str, str]]
    ) -> dict[str, dict[str, Any]]:
        """The conformance settings with Keystone, ours laid over them."""
        assert self.keystone is not None
        del sections["api"]  # noauth
        return heat27.heat_options(
            self.keystone.heat_config(),
            database=sections["database"]["connection"],
            transport=sections["DEFAULT"]["transport_url"],
            workdir=self.workdir,
            extra=sections,
        )

    def _start_keel(self, sections: dict[str, dict[str, Any]]) -> None:
        write_conf(self.conf, sections)
        subprocess.run(
            [
                _bin("keel-heat-manage"),
                "--config-file",
                str(self.conf),
                "db",
                "sync",
            ],
            check=True,
            capture_output=True,
        )
        self._spawn(
            "engine",
            [_bin("keel-heat-engine"), "--config-file", str(self.conf)],
        )
        self._spawn(
            "api",
            [_bin("gunicorn"), *self._gunicorn_args()]
            + ["keel_heat_api.wsgi:application"],
            env={"KEEL_HEAT_CONFIG_FILES": str(self.conf)},
        )

    def _start_heat(self, sections: dict[str, dict[str, Any]]) -> None:
        venv = heat27.ensure_venv()
        heat27.ensure_driver(venv, self.db_driver)
        sections["DEFAULT"]["log_file"] = str(self.workdir / "heat.log")
        sections["paste_deploy"] = {
            "api_paste_config": str(heat27.paste_config(venv))
        }
        self.conf = self.workdir / "heat.conf"
        write_conf(self.conf, sections)
        bindir = venv / "bin"
        conf = ["--config-file", str(self.conf)]
        subprocess.run(
            [str(bindir / "heat-manage"), *conf, "db_sync"],
            check=True,
            capture_output=True,
        )
        self._spawn("engine", [str(bindir / "heat-engine"), *conf])
        app = heat27.write_entry(self.workdir, self.conf)
        self._spawn(
            "api",
            [str(bindir / "gunicorn"), *self._gunicorn_args(), app],
        )

    def _gunicorn_args(self) -> list[str]:
        """The same API server settings for keel-heat and Heat."""
        return [
            "--workers",
            "2",
            "--worker-class",
            "gthread",
            "--threads",
            "8",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--timeout",
            "300",
            "--keep-alive",
            "75",
            "--no-control-socket",
        ]

    def client_endpoint(self) -> Endpoint:
        """The endpoint with a token of the ``demo`` user when Keystone."""
        if self.keystone is None:
            return Endpoint(self.endpoint)
        demo = self.keystone.demo
        return Endpoint.from_keystone(
            self.keystone.v3_url,
            demo.username,
            demo.password,
            demo.project_name or "demo",
            url=self.endpoint,
        )

    def driver_args(self) -> list[str]:
        """How the driver reaches this deployment and logs in."""
        args = ["--endpoint", self.endpoint]
        if self.keystone is not None:
            demo = self.keystone.demo
            args += [
                "--os-auth-url",
                self.keystone.v3_url,
                "--os-username",
                demo.username,
                "--os-password",
                demo.password,
                "--os-project-name",
                demo.project_name or "demo",
            ]
        return args

    def _spawn(
        self, name: str, argv: list[str], env: dict[str, str] | None = None
    ) -> None:
        log = open(self.workdir / f"{name}.out", "wb")  # noqa: SIM115
        self.procs[name] = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=self.workdir,
            start_new_session=True,
        )

    def _create_database(self) -> None:
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", user="root")
        try:
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE DATABASE `{self.name}` "
                    "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
                )
        finally:
            conn.close()

    def wait_healthy(self, timeout: float = 300.0) -> None:
        """Wait for /healthcheck, then for one stack to complete.

        The stack proves an engine answers and warms both sides up.
        """
        deadline = time.monotonic() + timeout
        # Heat's paste pipeline has no /healthcheck; its version list
        # at the root needs no token.
        probe = "/" if self.kind == "heat27" else "/healthcheck"
        while True:
            self._check_alive()
            try:
                if requests.get(self.url + probe, timeout=10).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind}: no /healthcheck")
            time.sleep(0.3)
        if self.kind != "embedded":
            self._wait_consumers(deadline)
        client = OrchestrationClient(self.client_endpoint())
        tmpl = {
            "heat_template_version": "2021-04-16",
            "resources": {"r": {"type": "OS::Heat::None"}},
        }
        name = f"warmup-{uuid.uuid4().hex[:6]}"
        sid = client.create_stack(name, tmpl, {})
        client.wait(name, sid, "CREATE", max(5.0, deadline - time.monotonic()))
        client.delete_stack(name, sid)
        client.wait(name, sid, "DELETE", 60, deleting=True)

    def _wait_consumers(self, deadline: float) -> None:
        # A call published before an engine consumes its topic is lost
        # and answers 500 MessagingTimeout a minute later: the warm-up
        # failed so now and then, with Heat or keel-heat.
        wanted = {"engine", "engine_worker"}
        while True:
            self._check_alive()
            listed = self._rabbitmqctl(
                "list_queues", "-p", self.name, "name", "consumers"
            )
            ready = {
                parts[0]
                for parts in (line.split() for line in listed.splitlines())
                if len(parts) == 2 and parts[1].isdigit() and int(parts[1])
            }
            if wanted <= ready:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{self.kind}: no engine consumes {sorted(wanted - ready)}"
                )
            time.sleep(0.3)

    def _check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{self.kind}: {name} exited with {proc.returncode}; "
                    f"see {self.workdir}"
                )

    def pids(self) -> dict[str, list[int]]:
        """Process ids of the service processes and their children."""
        out: dict[str, list[int]] = {}
        for name, proc in self.procs.items():
            kids = subprocess.run(
                ["pgrep", "-P", str(proc.pid)],
                capture_output=True,
                text=True,
            ).stdout.split()
            out[name] = [proc.pid] + [int(k) for k in kids]
        return out

    # -- stopping ---------------------------------------------------------

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self.kind != "embedded":
            self._drop_database()
            self._rabbitmqctl("delete_vhost", self.name)

    def _drop_database(self) -> None:
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", user="root")
        try:
            with conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS `{self.name}`")
        finally:
            conn.close()

    def _create_vhost(self) -> None:
        # oslo.messaging names its queues after the topic alone
        # ("engine", "engine_worker"), not after the exchange: another
        # keel-heat on the same broker with another exchange would
        # still share those queues and answer our calls from its own
        # database. A virtual host of our own isolates the run.
        self._rabbitmqctl("add_vhost", self.name)
        self._rabbitmqctl(
            "set_permissions", "-p", self.name, "guest", ".*", ".*", ".*"
        )

    @staticmethod
    def _rabbitmqctl(*args: str) -> str:
        return subprocess.run(
            ["rabbitmqctl", "-q", *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout


@contextlib.contextmanager
def deployed(
    kind: str,
    keep: bool = False,
    tuned: bool = False,
    keystone: bool = False,
    db_driver: str = "pymysql",
) -> Iterator[Deployment]:
    """Start a deployment in a temporary directory; stop it at the end.

    :param keystone: start a real Keystone for it (always for ``heat27``)
    """
    workdir = pathlib.Path(tempfile.mkdtemp(prefix=f"keel-bench-{kind}-"))
    with contextlib.ExitStack() as stack:
        if not keep:
            stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        server = None
        if keystone or kind == "heat27":
            from keel_heat_core.testing.keystone import start_keystone

            ksdir = workdir / "keystone"
            ksdir.mkdir()
            server, process = start_keystone(ksdir)
            stack.callback(process.stop)
        dep = Deployment(
            kind, workdir, tuned=tuned, keystone=server, db_driver=db_driver
        )
        if server is not None:
            # No CFN API runs; the catalog needs an address all the same.
            server.register_heat_endpoints(dep.url, "http://127.0.0.1:9")
        stack.callback(dep.stop)
        dep.start()
        yield dep


def mariadb_counters() -> dict[str, int]:
    """Server-wide connection and statement counters of MariaDB."""
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", user="root")
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SHOW GLOBAL STATUS WHERE Variable_name IN "
                "('Connections', 'Questions', 'Com_commit', 'Com_select', "
                "'Com_update', 'Com_insert')"
            )
            return {name: int(value) for name, value in cur.fetchall()}
    finally:
        conn.close()


def rss_mb(pids: dict[str, list[int]]) -> dict[str, list[int]]:
    """Resident memory of each process, in MB, by service."""
    out: dict[str, list[int]] = {}
    for name, group in pids.items():
        for pid in group:
            try:
                status = pathlib.Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    kb = int(line.split()[1])
                    out.setdefault(name, []).append(kb // 1024)
    return out


def load_average() -> str:
    """The machine's 1/5/15 minute load, for the record."""
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" in argv:
        split = argv.index("--")
        own, rest = argv[:split], argv[split + 1 :]
    else:
        own, rest = argv, []
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("kind", choices=KINDS)
    p.add_argument("--out", help="JSON lines file to append to")
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the work directory (logs) afterwards",
    )
    p.add_argument(
        "--tuned",
        action="store_true",
        help="MariaDB runs: a pool of 64 connections and no TLS attempt "
        "by PyMySQL (see RESULTS.md)",
    )
    p.add_argument(
        "--keystone",
        action="store_true",
        help="rabbit1/rabbit2 behind the real Keystone fixture, with the "
        "conformance settings heat27 runs with (heat27 always is)",
    )
    p.add_argument(
        "--db-driver",
        choices=DRIVERS,
        default="pymysql",
        help="the Python driver for MariaDB: PyMySQL (Heat's) or "
        "mysqlclient (MySQLdb, a C extension; see RESULTS.md)",
    )
    args = p.parse_args(own)
    if args.keystone and args.kind == "embedded":
        p.error("--keystone needs rabbit1, rabbit2 or heat27")
    label = args.kind + ("-tuned" if args.tuned else "")
    if args.keystone and args.kind != "heat27":
        label += "-keystone"
    if args.db_driver != "pymysql":
        label += f"-{args.db_driver}"
    before = mariadb_counters() if args.kind != "embedded" else {}
    with deployed(
        args.kind,
        keep=args.keep,
        tuned=args.tuned,
        keystone=args.keystone,
        db_driver=args.db_driver,
    ) as dep:
        print(
            f"# {args.kind} at {dep.endpoint}, work dir {dep.workdir}, "
            f"pids {dep.pids()}, load {load_average()}",
            flush=True,
        )
        pids = [pid for group in dep.pids().values() for pid in group]
        extra = [*dep.driver_args(), "--label", label]
        extra += ["--pids", ",".join(map(str, pids))]
        engine = dep.pids().get("engine", [])
        if engine:
            extra += ["--engine-pids", ",".join(map(str, engine))]
        if args.out:
            extra += ["--out", args.out]
        rc = driver.main(extra + rest)
        print(f"# RSS MB after the run: {rss_mb(dep.pids())}", flush=True)
        if before:
            after = mariadb_counters()
            print(
                "# MariaDB (whole server, other users included): "
                + ", ".join(f"{k} +{after[k] - before[k]}" for k in after),
                flush=True,
            )
        return rc


if __name__ == "__main__":
    sys.exit(main())
