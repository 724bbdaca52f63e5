"""Run test modules two at a time, each in its own process.

stestr partitions the tests between its workers before the run starts.
Without timing history (a fresh work folder, or a previous run stopped
by its deadline, which stestr does not record), one worker can be handed
every slow test while the other finishes early and waits: in the
functional suite a test whose stack never completes waits the whole
``build_timeout`` (300 s). Here each module is a job and a free slot takes
the next one, so the slow modules hold one slot while the other keeps
working. Each job's subunit stream is kept and they are joined in the
end (subunit v2 streams concatenate).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

IMPORT_FAILURE = ".ImportFailure.test_import"


@dataclass
class Job:
    """One module run.

    :ivar module: the dotted module name.
    :ivar stream: its subunit output.
    :ivar stderr: its error output.
    """

    module: str
    stream: Path
    stderr: Path
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0


@dataclass
class Schedule:
    """What happened to the jobs.

    :ivar finished: modules whose process ended by itself.
    :ivar stopped: modules killed at the deadline.
    :ivar never_started: modules the deadline left in the queue.
    """

    finished: list[str] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    never_started: list[str] = field(default_factory=list)


def module_of(test_id: str) -> str:
    """Return the module of a ``package.module.Class.test`` id."""
    return test_id.split("[", 1)[0].rsplit(".", 2)[0]


def largest_first(tests: list[str]) -> list[str]:
    """Return the modules of ``tests``, those with the most tests first.

    Ties keep the order of ``tests``.
    """
    sizes = Counter(module_of(t) for t in tests)
    return sorted(sizes, key=lambda module: -sizes[module])


def _kill(job: Job) -> None:
    proc = job.process
    if proc is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
            return


def _start(
    job: Job, argv: list[str], env: Mapping[str, str], cwd: Path
) -> None:
    with job.stream.open("wb") as out, job.stderr.open("wb") as err:
        job.process = subprocess.Popen(
            [*argv, job.module],
            cwd=cwd,
            env=dict(env),
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    job.started = time.monotonic()


def run_modules(
    runner: list[str],
    env: Mapping[str, str],
    workdir: Path,
    modules: list[str],
    deadline: float,
    slots: int = 2,
) -> tuple[list[Job], Schedule]:
    """Run ``modules`` with ``slots`` at a time until done or the deadline.

    :param runner: the command running one module (the module's name is
        appended); it writes subunit v2 to stdout.
    :param env: the environment (``TEMPEST_CONFIG_DIR``).
    :param workdir: where the per-module streams go (``jobs/``).
    :param modules: dotted module names, in the order to start them.
    :param deadline: seconds before the running jobs are killed.
    :param slots: how many run at once.
    """
    folder = workdir / "jobs"
    folder.mkdir(parents=True, exist_ok=True)
    jobs = [
        Job(m, folder / f"{m}.subunit", folder / f"{m}.stderr")
        for m in modules
    ]
    queue = list(jobs)
    running: list[Job] = []
    schedule = Schedule()
    end = time.monotonic() + deadline
    while queue or running:
        while queue and len(running) < slots:
            job = queue.pop(0)
            _start(job, runner, env, workdir)
            running.append(job)
        time.sleep(0.5)
        for job in list(running):
            if job.process is not None and job.process.poll() is not None:
                running.remove(job)
                schedule.finished.append(job.module)
        if time.monotonic() > end:
            for job in running:
                _kill(job)
                schedule.stopped.append(job.module)
            schedule.never_started = [job.module for job in queue]
            break
    return jobs, schedule


def join_streams(jobs: list[Job], target: Path) -> None:
    """Concatenate the jobs' subunit streams into ``target``."""
    with target.open("wb") as out:
        for job in jobs:
            if job.stream.exists():
                out.write(job.stream.read_bytes())
