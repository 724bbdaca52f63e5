"""Start, find and stop the cloud's processes.

Every service process leads a session of its own (so its workers form
one process group) and writes stdout and stderr into
``<state>/logs/<name>.log``. A :class:`ProcessRecord` keeps its id and
the kernel's start time of it, so that stopping later, from another
process, signals only a process this cloud started, never one that got
the same id since.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

WSGI_ENTRY = '''\
"""WSGI entry of the test cloud: the app's own command line, not gunicorn's.

oslo.config in several services parses ``sys.argv``; under gunicorn it
would read gunicorn's options. ``KEEL_CLOUD_ARGV`` holds what the app
should see (JSON), ``KEEL_CLOUD_APP`` the module exposing ``application``.
"""
import importlib
import json
import os
import sys

sys.argv = json.loads(os.environ["KEEL_CLOUD_ARGV"])
application = importlib.import_module(
    os.environ["KEEL_CLOUD_APP"]
).application
'''


@dataclass(frozen=True)
class ProcessRecord:
    """A process the cloud started.

    :ivar name: e.g. ``nova-compute``.
    :ivar pid: its id, also the id of its process group.
    :ivar started: its start time in clock ticks since boot (field 22 of
        ``/proc/<pid>/stat``), or 0 where unknown.
    :ivar log: the file of its output.
    """

    name: str
    pid: int
    started: int
    log: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-able copy."""
        return asdict(self)


def start_time(pid: int) -> int:
    """Return the kernel's start time of process ``pid``, 0 if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    # the command name (field 2) may hold spaces: split after it
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[19])


def is_running(record: ProcessRecord) -> bool:
    """Tell whether ``record``'s process still runs (not a zombie)."""
    try:
        stat = Path(f"/proc/{record.pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        return False
    return not record.started or int(fields[19]) == record.started


def listen() -> socket.socket:
    """Return a listening socket on a free port of 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def free_port() -> int:
    """Return a port of 127.0.0.1 free at the moment, for a server that
    binds by itself (Swift's)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Launcher:
    """Starts processes of one cloud and remembers them.

    :param log_dir: where ``<name>.log`` files go.
    :param env: the environment every process gets (more per process).
    """

    def __init__(self, log_dir: Path, env: Mapping[str, str]) -> None:
        self.log_dir = log_dir
        self.env = dict(env)
        self.records: list[ProcessRecord] = []
        self.popens: dict[int, subprocess.Popen[bytes]] = {}
        log_dir.mkdir(parents=True, exist_ok=True)

    def start(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        pass_fds: Sequence[int] = (),
    ) -> ProcessRecord:
        """Start ``argv`` as ``name`` in a session of its own."""
        log = self.log_dir / f"{name}.log"
        for fd in pass_fds:
            os.set_inheritable(fd, True)
        with log.open("wb") as out:
            popen = subprocess.Popen(
                list(argv),
                env={**self.env, **(env or {})},
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                pass_fds=tuple(pass_fds),
                start_new_session=True,
            )
        record = ProcessRecord(
            name, popen.pid, start_time(popen.pid), str(log)
        )
        self.records.append(record)
        self.popens[popen.pid] = popen
        return record

    def gunicorn(
        self,
        name: str,
        python: str,
        sock: socket.socket,
        app: str,
        argv: Sequence[str],
        entry_dir: Path,
        *,
        env: Mapping[str, str] | None = None,
        worker_class: str = "gthread",
        threads: int = 4,
    ) -> ProcessRecord:
        """Serve WSGI module ``app`` on ``sock`` with one gunicorn worker.

        :param argv: the command line the app's oslo.config sees.
        :param entry_dir: where :data:`WSGI_ENTRY` is written.
        """
        (entry_dir / "keel_cloud_wsgi.py").write_text(WSGI_ENTRY)
        fd = sock.fileno()
        return self.start(
            name,
            [
                python,
                "-m",
                "gunicorn",
                "--bind",
                f"fd://{fd}",
                "--workers",
                "1",
                "--worker-class",
                worker_class,
                "--threads",
                str(threads),
                "--timeout",
                "300",
                "--graceful-timeout",
                "5",
                "--pythonpath",
                str(entry_dir),
                "keel_cloud_wsgi:application",
            ],
            env={
                **(env or {}),
                "KEEL_CLOUD_ARGV": json.dumps(list(argv)),
                "KEEL_CLOUD_APP": app,
            },
            cwd=entry_dir,
            pass_fds=(fd,),
        )

    def exited(self) -> list[tuple[ProcessRecord, int]]:
        """Processes of ours that have exited, with their exit status."""
        out = []
        for record in self.records:
            popen = self.popens.get(record.pid)
            if popen is not None and popen.poll() is not None:
                out.append((record, popen.returncode))
        return out


def stop(
    records: Iterable[ProcessRecord],
    popens: Mapping[int, subprocess.Popen[bytes]] | None = None,
    timeout: float = 20.0,
) -> None:
    """Stop the process groups of ``records``: SIGTERM, then SIGKILL.

    Only a process whose start time is still the recorded one is
    signalled; its group goes with it (workers, helpers).

    :param popens: the processes by id, where this process started them
        (they are reaped).
    """
    popens = popens or {}
    live = [r for r in records if is_running(r)]
    for record in live:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(record.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _reap(popens)
        live = [r for r in live if is_running(r)]
        if not live:
            break
        time.sleep(0.2)
    for record in live:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(record.pid, signal.SIGKILL)
    for popen in popens.values():
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=5)


def _reap(popens: Mapping[int, subprocess.Popen[bytes]]) -> None:
    # children of this process would stay zombies otherwise
    for popen in popens.values():
        popen.poll()


def tail(path: Path | str, chars: int = 3000) -> str:
    """Return the end of a log file ('' when there is none)."""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            size = log.tell()
            log.seek(max(0, size - chars))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""
