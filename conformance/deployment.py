"""Deploy keel-heat for the suites, and take it all down again.

:func:`deploy` is a context manager: Keystone (the fixture of
``keel_heat_core.testing.keystone``), a MariaDB database, a RabbitMQ
virtual host, ``keel-heat.conf``, ``keel-heat-manage db sync``, the native
and CFN APIs under gunicorn on free loopback ports, ``keel-heat-engine``
with two workers, the catalog endpoints, and a readiness probe. Whatever
was started is stopped or removed on the way out, even on failure.

A piece that cannot start does not raise past Keystone: it becomes a
*problem* in :attr:`Deployment.problems`, so that the harness can still
check the suites' install and configuration and say what was missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests

from conformance import backing, heat_conf
from conformance.processes import (
    ServerProcess,
    gunicorn_command,
    last_error,
    listen,
    tail,
)
from keel_heat_core.testing.keystone import KeystoneServer, start_keystone

NATIVE_WSGI = ("keel_heat_api.wsgi", "application")
CFN_WSGI = (
    ("keel_heat_api.wsgi_cfn", "application"),
    ("keel_heat_api.cfn.wsgi", "application"),
)
ENVIRONMENT_D = Path(__file__).parent / "etc" / "environment.d"
READY_TIMEOUT = 90.0


@dataclass
class Deployment:
    """A running (or partly running) keel-heat.

    :ivar keystone: the Keystone fixture's description.
    :ivar config_file: the keel-heat.conf written.
    :ivar api_url: the native API root.
    :ivar cfn_url: the CFN API root.
    :ivar problems: what could not start, one sentence each.
    :ivar blocker: the problem that keeps the suites from running (the
        native API, the engine or the schema), if any.
    :ivar ready: the native API answered an authenticated stack list.
    """

    workdir: Path
    keystone: KeystoneServer
    config_file: Path
    api_url: str
    cfn_url: str
    problems: list[str] = field(default_factory=list)
    blocker: str | None = None
    ready: bool = False

    def problem(self, text: str, blocking: bool = True) -> None:
        """Record what went wrong; the first blocking one is the blocker."""
        self.problems.append(text)
        if blocking and self.blocker is None:
            self.blocker = text


def script(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    return shutil.which(name) or name


def _wsgi_target(candidates: tuple[tuple[str, str], ...]) -> str | None:
    for module, attribute in candidates:
        try:
            if importlib.util.find_spec(module) is not None:
                return f"{module}:{attribute}"
        except ImportError:
            continue
    return None


def _bus(stack: contextlib.ExitStack, name: str) -> tuple[str, str]:
    transport = backing.create_vhost(name)
    if transport is not None:
        stack.callback(backing.delete_vhost, name)
        return transport, "heat"
    # No vhost: a private exchange at least keeps our casts apart.
    return backing.default_transport(), name


def _write_config(
    workdir: Path,
    keystone: KeystoneServer,
    database: str,
    bus: tuple[str, str],
    cfn_url: str,
) -> Path:
    env_dir = workdir / "environment.d"
    shutil.copytree(ENVIRONMENT_D, env_dir)
    values = heat_conf.heat_settings(
        keystone.heat_config(),
        heat_conf.Endpoints(
            database=database,
            transport=bus[0],
            cfn_url=cfn_url,
            environment_dir=env_dir,
            exchange=bus[1],
        ),
    )
    path = workdir / "keel-heat.conf"
    path.write_text(heat_conf.render(values))
    return path


def _db_sync(config: Path, workdir: Path) -> str | None:
    log = workdir / "logs" / "db-sync.log"
    with log.open("w") as out:
        result = subprocess.run(
            [script("keel-heat-manage"), "--config-file", str(config)]
            + ["db", "sync"],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=300,
            check=False,
        )
    if result.returncode != 0:
        return f"keel-heat-manage db sync failed:\n{tail(log)}"
    return None


def _wait_http(
    url: str, proc: ServerProcess, timeout: float = 60.0
) -> str | None:
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        if not proc.alive():
            return proc.describe_exit()
        try:
            resp = requests.get(url, timeout=5)
            if resp.status_code < 500:
                return None
            last = f"HTTP {resp.status_code}: {resp.text[:300]}"
        except requests.RequestException as exc:
            last = str(exc)
        time.sleep(0.5)
    return f"{proc.name} did not answer {url} within {timeout}s ({last})"


def _start_api(
    stack: contextlib.ExitStack,
    deployment: Deployment,
    name: str,
    candidates: tuple[tuple[str, str], ...],
    sock: socket.socket,
    url: str,
    essential: bool = True,
) -> bool:
    target = _wsgi_target(candidates)
    if target is None:
        looked = ", ".join(module for module, _ in candidates)
        deployment.problem(
            f"{name}: no WSGI module found (looked for {looked})",
            blocking=essential,
        )
        return False
    log = deployment.workdir / "logs" / f"{name.replace(' ', '-')}.log"
    proc = ServerProcess(
        name,
        gunicorn_command(target, sock),
        log,
        env={"KEEL_HEAT_CONFIG_FILES": str(deployment.config_file)},
        pass_fds=(sock.fileno(),),
    )
    stack.callback(proc.stop)
    problem = _wait_http(f"{url}/healthcheck", proc)
    if problem:
        deployment.problem(
            f"{name} is not serving: {problem}", blocking=essential
        )
        return False
    return True


def _start_engine(
    stack: contextlib.ExitStack, deployment: Deployment
) -> ServerProcess | None:
    proc = ServerProcess(
        "engine",
        [
            script("keel-heat-engine"),
            "--config-file",
            str(deployment.config_file),
        ],
        deployment.workdir / "logs" / "engine.log",
    )
    stack.callback(proc.stop)
    time.sleep(5)
    if not proc.alive():
        deployment.problem(
            "keel-heat-engine cannot start: " + proc.describe_exit()
        )
        return None
    return proc


def _probe(deployment: Deployment, engine: ServerProcess) -> None:
    """Wait until the demo user can list stacks (API, auth and engine)."""
    ks = deployment.keystone
    sess = ks.session(ks.demo)
    url = f"{deployment.api_url}/v1/{ks.demo.project_id}/stacks"
    deadline = time.monotonic() + READY_TIMEOUT
    last = "no answer"
    while time.monotonic() < deadline:
        if not engine.alive():
            deployment.problem(
                "keel-heat-engine died: " + engine.describe_exit()
            )
            return
        try:
            resp = sess.get(url, raise_exc=False, timeout=READY_TIMEOUT)
            if resp.status_code == 200:
                deployment.ready = True
                return
            last = f"HTTP {resp.status_code}: {resp.text[:300]}"
        except Exception as exc:  # keystoneauth raises many kinds
            last = f"{type(exc).__name__}: {exc}"
        time.sleep(2)
    engine_error = last_error(engine.log)
    deployment.problem(
        f"GET /v1/<project>/stacks as demo did not answer 200 within "
        f"{READY_TIMEOUT:.0f}s: {last}"
        + (f"; last engine error: {engine_error}" if engine_error else "")
    )


@contextlib.contextmanager
def deploy(workdir: Path) -> Iterator[Deployment]:
    """Start keel-heat and everything it needs; stop it all afterwards.

    :param workdir: an empty folder for configuration, state and logs.
    :raises RuntimeError: when Keystone, MariaDB or RabbitMQ fail (the
        suites cannot even be configured without them).
    """
    (workdir / "logs").mkdir(parents=True, exist_ok=True)
    (workdir / "keystone").mkdir(exist_ok=True)
    with contextlib.ExitStack() as stack:
        keystone, ks_process = start_keystone(workdir / "keystone")
        stack.callback(ks_process.stop)
        name = backing.unique_name()
        database = backing.create_database(name)
        stack.callback(backing.drop_database, name)
        bus = _bus(stack, name)
        api_sock, cfn_sock = listen(), listen()
        stack.callback(api_sock.close)
        stack.callback(cfn_sock.close)
        api_url = f"http://127.0.0.1:{api_sock.getsockname()[1]}"
        cfn_url = f"http://127.0.0.1:{cfn_sock.getsockname()[1]}"
        config = _write_config(workdir, keystone, database, bus, cfn_url)
        deployment = Deployment(workdir, keystone, config, api_url, cfn_url)
        keystone.register_heat_endpoints(api_url, cfn_url)
        problem = _db_sync(config, workdir)
        if problem:
            deployment.problem(problem)
            yield deployment
            return
        native_ok = _start_api(
            stack,
            deployment,
            "native API",
            (NATIVE_WSGI,),
            api_sock,
            api_url,
        )
        _start_api(
            stack,
            deployment,
            "CFN API",
            CFN_WSGI,
            cfn_sock,
            cfn_url,
            essential=False,
        )
        engine = _start_engine(stack, deployment)
        if native_ok and engine is not None:
            _probe(deployment, engine)
        yield deployment
