"""Run heat-tempest-plugin's api and functional tests and Heat's own.

Each suite is listed first (which also proves that the venv, the
configuration and test discovery work), then run with concurrency 2 and a
deadline. The api (gabbi) tests run under stestr, grouped per YAML file,
since each file's steps depend on the ones before, as in Heat's gate; the
functional tests and Heat's in-tree ones (``integration``,
:mod:`conformance.integration`) run module by module
(:mod:`conformance.module_runner`). The subunit stream is kept in the work
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

from conformance import tempest_conf, venv
from conformance.module_runner import (
    IMPORT_FAILURE,
    Job,
    Schedule,
    join_streams,
    largest_first,
    module_of,
    run_modules,
)
from conformance.results import (
    FAILED,
    PASSED,
    SKIPPED,
    Outcome,
    exception_line,
    not_run,
    readable,
)

SUBUNIT_JSON = Path(__file__).with_name("subunit_json.py")
CONCURRENCY = 2


@dataclass(frozen=True)
class Suite:
    """One stestr run.

    :ivar name: ``api``, ``functional`` or ``integration``.
    :ivar package: the package whose ``test_*`` modules are the suite.
    :ivar group_regex: what keeps dependent tests in one stestr worker.
    :ivar expected: how many tests the pinned release has there.
    :ivar by_module: run module by module
        (:mod:`conformance.module_runner`) instead of one stestr run.
    :ivar release: what ``expected`` counts, for the summary's note.
    """

    name: str
    package: str
    group_regex: str
    expected: int
    by_module: bool = False
    release: str = "heat-tempest-plugin 3.0.0"

    @property
    def regex(self) -> str:
        """The stestr filter selecting the package's tests."""
        return "^" + self.package.replace(".", r"\.") + r"\."


API = Suite(
    "api",
    "heat_tempest_plugin.tests.api",
    r"heat_tempest_plugin\.tests\.api\.test_heat_api\.[^_]+_",
    47,
)
FUNCTIONAL = Suite(
    "functional",
    "heat_tempest_plugin.tests.functional",
    r"([^\.]*\.)*",
    82,
    by_module=True,
)
INTEGRATION = Suite(
    "integration",
    "heat_integrationtests.functional",
    r"([^\.]*\.)*",
    167,
    by_module=True,
    release="openstack-heat 27.0.1",
)

SUITES = {suite.name: suite for suite in (API, FUNCTIONAL, INTEGRATION)}

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
        #: The copy of :mod:`conformance.tempest_entry` tempest_conf wrote.
        self.entry = workdir / "discover" / "test_keel_suite.py"
        self.env = dict(os.environ, TEMPEST_CONFIG_DIR=str(config_dir))
        self.env.pop("PYTHONPATH", None)
        #: Variables one suite's processes get on top (see :meth:`extend`).
        self.suite_env: dict[str, dict[str, str]] = {}
        self._stestr(["init"], timeout=60)

    def extend(self, suite: Suite, **variables: str) -> None:
        """Give ``suite``'s processes these environment variables too.

        ``PATH`` and ``PYTHONPATH`` are put before the inherited value.
        """
        extra = self.suite_env.setdefault(suite.name, {})
        for name, value in variables.items():
            if name in ("PATH", "PYTHONPATH"):
                inherited = extra.get(name) or self.env.get(name)
                if inherited:
                    value = f"{value}{os.pathsep}{inherited}"
            extra[name] = value

    def _env(self, suite: Suite) -> dict[str, str]:
        return dict(
            self.env,
            KEEL_CONFORMANCE_PACKAGE=suite.package,
            **self.suite_env.get(suite.name, {}),
        )

    def _stestr(
        self, args: list[str], timeout: float, suite: Suite = API
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-m", "stestr", *args],
            cwd=self.workdir,
            env=self._env(suite),
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
        result = self._stestr(["list", suite.regex], timeout=300, suite=suite)
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
        err = self.workdir / f"{suite.name}.stderr"
        cut_off = False
        with stream.open("wb") as out, err.open("wb") as err_out:
            proc = subprocess.Popen(
                argv,
                cwd=self.workdir,
                env=self._env(suite),
                stdout=out,
                stderr=err_out,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                cut_off = True
                _kill_group(proc)
        outcomes = self.parse(suite.name, stream)
        return _complete(suite.name, outcomes, tests, cut_off, deadline, err)

    def run_by_module(
        self, suite: Suite, tests: list[str], deadline: float
    ) -> list[Outcome]:
        """Run ``tests`` module by module, two at a time (no stestr).

        See :mod:`conformance.module_runner` for why; the outcomes are
        completed as :meth:`run` does. The modules with the most tests
        start first, so that a long one does not start last and hold one
        slot alone at the end.
        """
        modules = largest_first(tests)
        runner = [str(self.python), str(self.entry)]
        jobs, schedule = run_modules(
            runner,
            self._env(suite),
            self.workdir,
            modules,
            deadline,
            CONCURRENCY,
        )
        stream = self.workdir / f"{suite.name}.subunit"
        join_streams(jobs, stream)
        outcomes = self.parse(suite.name, stream)
        return _complete_modules(suite.name, outcomes, tests, jobs, schedule)

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


def _complete_modules(
    suite: str,
    outcomes: list[Outcome],
    tests: list[str],
    jobs: list[Job],
    schedule: Schedule,
) -> list[Outcome]:
    """Give every test of the inventory an outcome after a module run.

    A module that failed to import shows as its ``ImportFailure`` test
    (see :mod:`conformance.tempest_entry`); its tests fail with that
    error. Tests of
    modules stopped or left queued by the deadline, or of a process that
    died, did not run.
    """
    import_failed: dict[str, str] = {}
    done: list[Outcome] = []
    for o in outcomes:
        if o.test_id.endswith(IMPORT_FAILURE):
            module = o.test_id.removesuffix(IMPORT_FAILURE)
            import_failed[module] = o.reason
            continue
        done.append(o)
    seen = _seen(done)
    stopped = set(schedule.stopped) | set(schedule.never_started)
    stderr = {job.module: job.stderr for job in jobs}
    for test_id in (_bare(t) for t in tests):
        if test_id in seen:
            continue
        module = module_of(test_id)
        if module in import_failed:
            done.append(Outcome(suite, test_id, FAILED, import_failed[module]))
            continue
        if module in stopped:
            why = f"the {suite} run passed its deadline"
        else:
            err = stderr.get(module)
            text = err.read_text() if err and err.exists() else ""
            why = "the module's process reported nothing"
            if text.strip():
                why += f": {exception_line(text)}"
        done += not_run(suite, [test_id], why)
    return done


def _complete(
    suite: str,
    outcomes: list[Outcome],
    tests: list[str],
    cut_off: bool,
    deadline: float,
    err: Path,
) -> list[Outcome]:
    """Fold import failures into their modules' tests; add missing tests.

    :param suite: the suite name.
    :param outcomes: what the subunit stream reported.
    :param tests: the inventory (every test that should have a result).
    :param cut_off: whether the deadline stopped the run.
    :param deadline: the deadline, for the message.
    :param err: stestr's stderr, quoted when the run reported nothing.
    """
    import_failed = {
        o.test_id.removesuffix(IMPORT_FAILURE): o.reason
        for o in outcomes
        if o.test_id.endswith(IMPORT_FAILURE)
    }
    done = [o for o in outcomes if not o.test_id.endswith(IMPORT_FAILURE)]
    seen = _seen(done)
    if cut_off:
        why = f"the {suite} run passed its {deadline:.0f}s deadline"
    elif not outcomes and err.exists() and err.read_text().strip():
        why = "stestr failed: " + exception_line(err.read_text())
    else:
        why = f"the run ended without reporting it (see {err.name})"
    for test_id in (_bare(t) for t in tests):
        if test_id in seen:
            continue
        module = test_id.rsplit(".", 2)[0]
        reason = import_failed.get(module)
        if reason is None:
            done += not_run(suite, [test_id], why)
        else:
            done.append(Outcome(suite, test_id, FAILED, reason))
    return done


def _seen(outcomes: list[Outcome]) -> set[str]:
    """Return the inventory ids the outcomes cover.

    A test with testscenarios' ``scenarios`` is listed once but reports
    one result per scenario, as ``test_x(scenario)``.
    """
    return {o.test_id.split("(", 1)[0] for o in outcomes}


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
    :param row: ``{"id", "status", "details", "seconds"}``.
    """
    status = _STATUS.get(str(row["status"]), FAILED)
    details = row.get("details") or {}
    assert isinstance(details, dict)
    seconds = row.get("seconds")
    if status == SKIPPED:
        reason = str(details.get("reason", "")).strip()
    elif row["status"] == "inprogress":
        reason = "still running when the run was stopped"
    elif status == FAILED:
        text = str(details.get("traceback", "")) or str(row["status"])
        reason = readable(exception_line(text))
    else:
        reason = ""
    if status == SKIPPED and reason == tempest_conf.DISABLED_IN_CONF:
        reason = tempest_conf.skip_reason(str(row["id"])) or reason
    return Outcome(
        suite,
        _bare(str(row["id"])),
        status,
        reason,
        float(seconds) if isinstance(seconds, int | float) else None,
    )


def prepare() -> Path:
    """Return the tempest venv's interpreter, installing it on first use."""
    return venv.python_of(venv.ensure_venv())
