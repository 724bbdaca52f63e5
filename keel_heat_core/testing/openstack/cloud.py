"""Start, describe and stop one test cloud.

:class:`OpenStackCloud` brings up Keystone, Placement, Nova, Glance,
Neutron, Cinder and Swift from the cloud's venv (:mod:`.venv`) on free
ports of 127.0.0.1, each service on MariaDB databases of its own (names
``<prefix><service>``) and all on one RabbitMQ virtual host
(``<prefix>``), a fresh random prefix per cloud so that clouds started
side by side never meet. Everything it writes lives in a state folder;
``cloud.json`` there describes the running cloud for other processes
(:meth:`OpenStackCloud.load`).
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from keystoneauth1 import session as ks_session

from keel_heat_core.testing import keystone, keystone_provision
from keel_heat_core.testing.keystone import Credentials, KeystoneServer
from keel_heat_core.testing.openstack import ready, setup
from keel_heat_core.testing.openstack import venv as cloud_venv
from keel_heat_core.testing.openstack.layout import (
    SERVICE_USERS,
    SERVICES,
    Layout,
    new_prefix,
)
from keel_heat_core.testing.openstack.processes import (
    Launcher,
    ProcessRecord,
    free_port,
    is_running,
    listen,
    start_time,
    stop,
    tail,
)

STATE_FILE = "cloud.json"
READY_TIMEOUT = 300.0


class OpenStackCloud:
    """A test cloud, running or described by its state folder.

    :ivar layout: folders, ports, database names.
    :ivar keystone: the Keystone, its users and projects (``admin``
        is the cloud admin, ``demo`` and ``alt_demo`` are members).
    :ivar records: the processes started.
    :ivar seeded: ids of the seed data (see :func:`.ready.seed`).
    :ivar timings: seconds of the start-up's phases.
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.keystone: KeystoneServer | None = None
        self.records: list[ProcessRecord] = []
        self.seeded: dict[str, str] = {}
        self.timings: dict[str, float] = {}
        self.ready = False
        self._launcher: Launcher | None = None

    # -- description ----------------------------------------------------

    @property
    def state_file(self) -> Path:
        """``<state>/cloud.json``."""
        return self.layout.state_dir / STATE_FILE

    def to_json(self) -> dict[str, Any]:
        """What ``cloud.json`` holds."""
        ks = self.keystone
        return {
            "ready": self.ready,
            "keystone_url": self.layout.keystone_url,
            "region": self.layout.region,
            "admin": ks.to_json()["admin"] if ks else None,
            "member": ks.to_json()["demo"] if ks else None,
            "keystone": ks.to_json() if ks else None,
            "layout": self.layout.to_json(),
            "ports": dict(self.layout.ports),
            "processes": [r.to_json() for r in self.records],
            "logs": self.log_files(),
            "seeded": self.seeded,
            "timings": self.timings,
        }

    def save(self) -> None:
        """Write ``cloud.json`` (atomically)."""
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        os.replace(tmp, self.state_file)

    @classmethod
    def load(cls, state_dir: Path) -> OpenStackCloud:
        """The cloud ``state_dir/cloud.json`` describes.

        :raises FileNotFoundError: when there is none.
        """
        data = json.loads((state_dir / STATE_FILE).read_text())
        cloud = cls(Layout.from_json(data["layout"]))
        if data.get("keystone"):
            cloud.keystone = KeystoneServer.from_json(data["keystone"])
        cloud.records = [ProcessRecord(**r) for r in data["processes"]]
        cloud.seeded = dict(data.get("seeded") or {})
        cloud.timings = dict(data.get("timings") or {})
        cloud.ready = bool(data.get("ready"))
        return cloud

    def log_files(self) -> dict[str, str]:
        """Process or step name to its log file."""
        logs = {r.name: r.log for r in self.records}
        for path in sorted(self.layout.log_dir.glob("*.log")):
            logs.setdefault(path.stem, str(path))
        ks_log = self.layout.dir("keystone") / "keystone.log"
        if ks_log.exists():
            logs["keystone-app"] = str(ks_log)
        return logs

    def status(self) -> dict[str, bool]:
        """Process name to whether it still runs."""
        return {r.name: is_running(r) for r in self.records}

    def log_tails(self, chars: int = 1500) -> str:
        """The end of every log, for a failure report."""
        parts = []
        for name, path in self.log_files().items():
            text = tail(path, chars).strip()
            if text:
                parts.append(f"--- {name} ({path})\n{text}")
        return "\n".join(parts)

    # -- clients ----------------------------------------------------------

    def session(self, creds: Credentials | None = None) -> ks_session.Session:
        """A keystoneauth1 session of ``creds`` (the admin by default)."""
        assert self.keystone is not None
        return self.keystone.session(creds or self.keystone.admin)

    def connection(self, creds: Credentials | None = None) -> Any:
        """An openstacksdk ``Connection`` of ``creds`` (admin default)."""
        import openstack.connection

        return openstack.connection.Connection(
            session=self.session(creds), region_name=self.layout.region
        )

    def openrc(self, creds: Credentials | None = None) -> str:
        """``export OS_...`` lines for the ``openstack`` CLI."""
        assert self.keystone is not None
        user = creds or self.keystone.demo
        return "".join(
            f"export {key}={value}\n"
            for key, value in (
                ("OS_AUTH_URL", f"{self.layout.keystone_url}/v3"),
                ("OS_IDENTITY_API_VERSION", "3"),
                ("OS_USERNAME", user.username),
                ("OS_PASSWORD", user.password),
                ("OS_USER_DOMAIN_ID", user.user_domain_id),
                ("OS_PROJECT_NAME", user.project_name or ""),
                ("OS_PROJECT_DOMAIN_ID", "default"),
                ("OS_REGION_NAME", self.layout.region),
            )
        )

    # -- start ----------------------------------------------------------

    @classmethod
    def start(
        cls,
        state_dir: Path,
        progress: Callable[[str], None] = lambda _: None,
    ) -> OpenStackCloud:
        """Install the venv if needed, start a cloud, wait until ready.

        :param state_dir: a folder for the cloud (made if missing; an
            old cloud's files in it are replaced).
        :param progress: told what is being done.
        :raises RuntimeError: when a step fails; everything started so
            far is then stopped and dropped.
        """
        started = time.monotonic()
        venv = cloud_venv.ensure_venv()
        state_dir = state_dir.resolve()
        state_dir.mkdir(parents=True, exist_ok=True)
        cloud = cls(Layout(state_dir, venv, new_prefix()))
        cloud.timings["venv"] = round(time.monotonic() - started, 1)
        try:
            cloud._start(progress)
        except BaseException:
            progress("start-up failed: stopping what was started")
            cloud.stop(drop=True)
            raise
        cloud.timings["total"] = round(time.monotonic() - started, 1)
        cloud.save()
        return cloud

    def _phase(self, name: str, since: float) -> float:
        now = time.monotonic()
        self.timings[name] = round(now - since, 1)
        return now

    def _start(self, progress: Callable[[str], None]) -> None:
        layout = self.layout
        layout.log_dir.mkdir(parents=True, exist_ok=True)
        sockets = {name: listen() for name in SERVICES}
        layout.ports.update(
            (name, sock.getsockname()[1]) for name, sock in sockets.items()
        )
        for server in ("proxy", "account", "container", "object"):
            layout.ports[f"swift-{server}"] = free_port()
        self._launcher = Launcher(layout.log_dir, setup.venv_env(layout))
        self.save()
        since = time.monotonic()
        progress(f"databases and virtual host {layout.prefix}*")
        setup.create_backing(layout)
        setup.write_files(layout)
        progress("Keystone, schemas and rings")
        with ThreadPoolExecutor(3) as pool:
            jobs = [pool.submit(self._keystone, sockets.pop("keystone"))]
            jobs += [
                pool.submit(step, layout)
                for step in (
                    setup.sync_nova,
                    setup.sync_neutron,
                    setup.sync_cinder,
                    setup.sync_placement,
                    setup.sync_glance,
                    setup.build_rings,
                )
            ]
            for job in jobs:
                job.result()
        since = self._phase("setup", since)
        progress("services")
        self._start_services(sockets)
        self.save()
        progress("waiting until ready")
        self._wait_ready()
        since = self._phase("ready", since)
        progress("seeding flavors, image and public network")
        sess = self.session()
        self.seeded = ready.seed(sess, layout)
        ready.wait(
            "seed image",
            lambda: ready.image_active(sess, layout, self.seeded["image_id"]),
            60,
        )
        self._phase("seed", since)
        self.ready = True

    def _keystone(self, sock: Any) -> None:
        layout = self.layout
        workdir = layout.dir("keystone")
        workdir.mkdir(parents=True, exist_ok=True)
        server, process = keystone.start_keystone(
            workdir,
            venv=layout.venv,
            database_url=layout.database_url("keystone"),
            sock=sock,
        )
        pid = process.process.pid
        self.records.append(
            ProcessRecord(
                "keystone", pid, start_time(pid), str(workdir / "gunicorn.log")
            )
        )
        if self._launcher is not None:
            self._launcher.popens[pid] = process.process
        self.keystone = server
        sess = server.admin_session()
        keystone_provision.provision_service_users(
            sess, server.v3_url, SERVICE_USERS, layout.service_password
        )
        for kind, (name, url, _user) in layout.endpoints().items():
            keystone_provision.register_service(
                sess, server.v3_url, kind, name, url, layout.region
            )

    def _start_services(self, sockets: dict[str, Any]) -> None:
        layout, launcher = self.layout, self._launcher
        assert launcher is not None
        python = cloud_venv.bin_of(layout.venv, "python")
        apps = {
            "placement": ("placement.wsgi.api", ["placement-api"], {}),
            "nova": ("nova.wsgi.osapi_compute", ["nova-api"], {}),
            "glance": ("glance.wsgi.api", ["glance-api"], {}),
            "neutron": (
                "neutron.wsgi.api",
                ["neutron-api"],
                {"OS_NEUTRON_CONFIG_FILES": "neutron.conf;ml2_conf.ini"},
            ),
            "cinder": (
                "cinder.wsgi.api",
                [
                    "cinder-api",
                    "--config-file",
                    str(layout.dir("cinder") / "cinder.conf"),
                ],
                {},
            ),
        }
        for name, (app, argv, env) in apps.items():
            folder = layout.dir(name)
            env = {f"OS_{name.upper()}_CONFIG_DIR": str(folder), **env}
            record = launcher.gunicorn(
                f"{name}-api",
                python,
                sockets.pop(name),
                app,
                argv,
                folder,
                env=env,
            )
            self.records.append(record)
        for sock in sockets.values():
            sock.close()
        nova_conf = str(layout.dir("nova") / "nova.conf")
        cinder_conf = str(layout.dir("cinder") / "cinder.conf")
        commands = [
            *(
                (f"nova-{p}", [f"nova-{p}", "--config-file", nova_conf])
                for p in ("conductor", "scheduler", "compute")
            ),
            *(
                (f"cinder-{p}", [f"cinder-{p}", "--config-file", cinder_conf])
                for p in ("scheduler", "volume")
            ),
            *(
                (
                    f"swift-{s}",
                    [
                        f"swift-{s}-server",
                        str(layout.dir("swift") / f"{s}-server.conf"),
                        "-v",
                    ],
                )
                for s in ("account", "container", "object", "proxy")
            ),
        ]
        for name, argv in commands:
            argv[0] = cloud_venv.bin_of(layout.venv, argv[0])
            self.records.append(
                launcher.start(name, argv, cwd=layout.state_dir)
            )

    def _alive(self) -> None:
        assert self._launcher is not None
        dead = self._launcher.exited()
        if dead:
            record, code = dead[0]
            raise RuntimeError(
                f"{record.name} exited with {code}:\n{tail(record.log)}"
            )

    def _wait_ready(self) -> None:
        layout, sess, alive = self.layout, self.session(), self._alive
        for name in ("placement", "nova", "glance", "neutron", "cinder"):
            url = layout.url(name)
            ready.wait(name, functools.partial(ready.answers, url), 120, alive)
        ready.wait("swift", lambda: ready.swift_healthy(layout), 120, alive)
        ready.wait(
            "nova-compute",
            lambda: ready.compute_up(sess, layout),
            READY_TIMEOUT,
            alive,
        )
        setup.discover_hosts(layout)
        ready.wait(
            "compute resource provider",
            lambda: ready.provider_has_inventory(sess, layout),
            READY_TIMEOUT,
            alive,
        )
        assert self.keystone is not None
        project = self.keystone.admin.project_id or ""
        ready.wait(
            "cinder pool",
            lambda: ready.cinder_pool_listed(sess, layout, project),
            READY_TIMEOUT,
            alive,
        )
        ready.wait("agent", lambda: ready.agent_alive(sess, layout), 60, alive)

    # -- stop -------------------------------------------------------------

    def stop(self, drop: bool = True) -> None:
        """Stop every process of the cloud; drop its databases and
        virtual host unless ``drop`` is false."""
        popens = self._launcher.popens if self._launcher else None
        # the APIs first, so that nothing new reaches the workers
        stop(self.records, popens)
        if drop:
            setup.drop_backing(self.layout)
        self.ready = False
        if self.state_file.exists():
            self.save()


def iter_running(state_dir: Path) -> Iterator[ProcessRecord]:
    """The processes of the cloud in ``state_dir`` that still run."""
    try:
        cloud = OpenStackCloud.load(state_dir)
    except FileNotFoundError:
        return
    yield from (r for r in cloud.records if is_running(r))
