"""Run heat-tempest-plugin's api and functional tests with stestr.

Each suite is listed first (which also proves that the venv, the
configuration and test discovery work), then run with concurrency 2 and a
deadline. The api (gabbi) tests are grouped per YAML file, since each
file's steps depend on the ones before, as in Heat's gate; the functional
tests are grouped per class. The subunit stream is kept in the work
folder and turned into :class:`~conformance.results.Outcome` rows; tests
that the deadline cut off count as failed ("not run").
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conformance import venv
from conformance.results import (
    FAILED,
    PASSED,
    SKIPPED,
    Outcome,
    exception_line,
    not_run,
)

SUBUNIT_JSON = Path(__file__).with_name("subunit_json.py")
CONCURRENCY = 2


@dataclass(frozen=True)
class Suite:
    """One stestr run.

    :ivar name: ``api`` or ``functional``.
    :ivar regex: the test filter.
    :ivar group_regex: what keeps dependent tests in one worker.
    :ivar expected: how many tests heat-tempest-plugin 3.0.0 has there.
    """

    name: str
    regex: str
    group_regex: str
    expected: int


API = Suite(
    "api",
    r"^heat_tempest_plugin\.tests\.api\.",
    r"heat_tempest_plugin\.tests\.api\.test_heat_api\.[^_]+_",
    47,
)
FUNCTIONAL = Suite(
    "functional",
    r"^heat_tempest_plugin\.tests\.functional\.",
    r"([^\.]*\.)*",
    82,
)

_STATUS = {
    "success": PASSED,
    "xfail": PASSED,
    "skip": SKIPPED,
    "fail": FAILED,
    "uxsuccess": FAILED,
}


class Tempest:
    """The tempest venv and a configured tempest folder.

    :param python: the tempest venv's interpreter.
    :param workdir: the folder holding ``.stestr.conf`` and ``etc``.
    :param config_dir: the folder holding ``tempest.conf``.
    """

    def __init__(self, python: Path, workdir: Path, config_dir: Path):
        self.python = python
        self.workdir = workdir
        self.env = dict(os.environ, TEMPEST_CONFIG_DIR=str(config_dir))
        self.env.pop("PYTHONPATH", None)
        self._stestr(["init"], timeout=60)

    def _stestr(
        self, args: list[str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-m", "stestr", *args],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def list_tests(self, suite: Suite) -> list[str]:
        """Return the test ids of ``suite``.

        :raises RuntimeError: when discovery fails (an import error, a
            decorator that could not reach the API), with the error.
        """
        result = self._stestr(["list", suite.regex], timeout=300)
        tests = [line for line in result.stdout.splitlines() if line]
        if result.returncode != 0 or not tests:
            text = (result.stderr or result.stdout).strip()
            raise RuntimeError(
                f"listing the {suite.name} tests failed: "
                f"{exception_line(text)}\n{text[-2000:]}"
            )
        return tests

    def run(
        self, suite: Suite, tests: list[str], deadline: float
    ) -> list[Outcome]:
        """Run ``tests`` of ``suite``; return one outcome per test.

        :param suite: what to run.
        :param tests: the ids :meth:`list_tests` gave.
        :param deadline: seconds the run may take before it is stopped.
        """
        stream = self.workdir / f"{suite.name}.subunit"
        argv = [str(self.python), "-m", "stestr"]
        argv += ["--group-regex", suite.group_regex, "run", "--subunit"]
        argv += ["--concurrency", str(CONCURRENCY), suite.regex]
        errors = self.workdir / f"{suite.name}.stderr"
        cut_off = False
        with stream.open("wb") as out, errors.open("wb") as err:
            proc = subprocess.Popen(
                argv,
                cwd=self.workdir,
                env=self.env,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                cut_off = True
                _kill_group(proc)
        outcomes = self.parse(suite.name, stream)
        seen = {o.test_id for o in outcomes}
        missing = [t for t in tests if _bare(t) not in seen]
        why = (
            f"the {suite.name} run passed its {deadline:.0f}s deadline"
            if cut_off
            else "the run ended without reporting it (see "
            f"{suite.name}.stderr)"
        )
        return outcomes + not_run(suite.name, [_bare(t) for t in missing], why)

    def parse(self, suite: str, stream: Path) -> list[Outcome]:
        """Turn a subunit stream into outcomes (via the venv's subunit)."""
        with stream.open("rb") as data:
            result = subprocess.run(
                [str(self.python), str(SUBUNIT_JSON)],
                stdin=data,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        if result.returncode != 0:
            raise RuntimeError(
                f"reading {stream} failed: {result.stderr[-2000:]}"
            )
        return [
            to_outcome(suite, json.loads(line))
            for line in result.stdout.splitlines()
            if line.strip()
        ]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
            return


def _bare(test_id: str) -> str:
    """Return a test id without tempest's ``[id-...]`` attribute list."""
    return test_id.split("[", 1)[0]


def to_outcome(suite: str, row: dict[str, object]) -> Outcome:
    """Return the outcome of one test from a :mod:`subunit_json` row.

    :param suite: the suite name.
    :param row: ``{"id", "status", "details"}``.
    """
    status = _STATUS.get(str(row["status"]), FAILED)
    details = row.get("details") or {}
    assert isinstance(details, dict)
    if status == SKIPPED:
        reason = str(details.get("reason", "")).strip()
    elif status == FAILED:
        text = str(details.get("traceback", "")) or str(row["status"])
        reason = exception_line(text)
    else:
        reason = ""
    return Outcome(suite, _bare(str(row["id"])), status, reason)


def prepare(workdir: Path) -> tuple[Path, Path]:
    """Return the tempest venv's interpreter and its site-packages.

    Installs the venv on first use (``venv.ensure_venv``).
    """
    folder = venv.ensure_venv()
    python = venv.python_of(folder)
    out = subprocess.run(
        [
            str(python),
            "-c",
            "import os, tempest; "
            "print(os.path.dirname(os.path.dirname(tempest.__file__)))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    workdir.mkdir(parents=True, exist_ok=True)
    return python, Path(out.stdout.strip())
