"""Start and stop the deployment's server processes.

Each process leads its own session, so stopping it (SIGTERM to the
group, then SIGKILL) also ends its workers: gunicorn's and cotyledon's
children never outlive the harness. Output goes to a log file in the run's
work folder, whose tail is quoted when something goes wrong.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.results import exception_line
from keel_heat_core.testing.keystone_server import listen

__all__ = [
    "ServerProcess",
    "gunicorn_command",
    "last_error",
    "listen",
    "tail",
]


def tail(path: Path, size: int = 2500) -> str:
    """Return the last ``size`` characters of a log file (or nothing)."""
    if not path.exists():
        return ""
    return path.read_text(errors="replace")[-size:]


_LOG_PREFIX = re.compile(
    r"^(?P<record>\S+ \S+ \d+) (?P<level>[A-Z]+) (?P<logger>\S+)"
    r"(?: \[[^\]]*\])? ?"
)


def last_error(path: Path, size: int = 200_000) -> str:
    """Return the last error an oslo.log file reports, as one line.

    ERROR records are collected (their logger prefix removed); a logged
    traceback gives the exception line it ends with.

    :param path: the log file.
    :param size: how much of the file's end to read.
    :returns: the error, or ``""`` when the log has none.
    """
    blocks: list[list[str]] = []
    previous = ""
    for line in tail(path, size).splitlines():
        match = _LOG_PREFIX.match(line)
        if not match or match["level"] not in ("ERROR", "CRITICAL"):
            previous = ""
            continue
        key = f"{match['record']} {match['logger']}"
        if key != previous:
            blocks.append([])
            previous = key
        blocks[-1].append(line[match.end() :])
    if not blocks:
        return ""
    return exception_line("\n".join(blocks[-1]))


class ServerProcess:
    """A server started in a session of its own, logging to a file.

    :param name: a label (``native API``, ``engine``).
    :param argv: the command line.
    :param log: the file receiving stdout and stderr.
    :param env: extra environment variables.
    :param pass_fds: descriptors the process inherits (listening sockets).
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log: Path,
        env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (),
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.log = log
        full_env = dict(os.environ)
        full_env.update(env or {})
        for fd in pass_fds:
            os.set_inheritable(fd, True)
        with log.open("w") as out:
            self.process = subprocess.Popen(
                list(argv),
                env=full_env,
                cwd=cwd,
                pass_fds=tuple(pass_fds),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> bool:
        """Tell whether the process is still running."""
        return self.process.poll() is None

    def describe_exit(self) -> str:
        """Say how the process ended, with the end of its log."""
        text = tail(self.log)
        last = [line for line in text.splitlines() if line.strip()]
        return (
            f"{self.name} exited with status {self.process.returncode}"
            f": {last[-1].strip() if last else '(no output)'}\n"
            f"end of {self.log}:\n{text}"
        )

    def stop(self, grace: float = 15.0) -> None:
        """Stop the process and its children: SIGTERM, then SIGKILL."""
        pgid = self.process.pid
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=grace)
        # Children the leader did not reap go with the group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=grace)


def gunicorn_command(
    app: str, sock: socket.socket, workers: int = 2, threads: int = 4
) -> list[str]:
    """Return the gunicorn command serving ``app`` on an inherited socket.

    :param app: ``module:attribute`` of the WSGI application.
    :param sock: the bound listening socket (passed as ``fd://N``).
    :param workers: worker processes.
    :param threads: threads per worker (gthread).
    """
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"fd://{sock.fileno()}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--worker-class",
        "gthread",
        "--timeout",
        "180",
        "--graceful-timeout",
        "10",
        # longer than clients keep idle connections (httpx 5 s, requests'
        # pools until reuse): gunicorn's 2 s default closes a connection
        # a client is just reusing, which it sees as a reset
        "--keep-alive",
        "75",
        "--access-logfile",
        "-",
        app,
    ]
