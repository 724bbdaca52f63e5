"""The harness: prepare the suites, deploy keel-heat, run, summarise.

Order of work, so that a broken keel-heat still tells the most:

1. the tempest venv (cached), Heat's in-tree tests taken from the
   openstack-heat wheel (cached), an offline ``tempest.conf`` and the test
   inventory (47 api + 82 functional + 192 integration tests): proves
   install, config and discovery without keel-heat;
2. Go and gophercloud from Debian, the acceptance test binary (cached
   build);
3. the deployment (:func:`conformance.deployment.deploy`);
4. the api, gophercloud, functional and integration suites, each with a
   deadline within the run's time budget (30 minutes by default), or,
   when keel-heat could not start, every test counted as failed with the
   reason;
5. the summary file and the closing line, after everything is torn down.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conformance import (
    gophercloud_suite,
    integration,
    tempest_conf,
    tempest_suite,
)
from conformance.deployment import Deployment, deploy, script
from conformance.results import (
    FAILED,
    Outcome,
    Report,
    first_line,
    not_run,
)

SUITES = ("api", "functional", "gophercloud", "integration")

#: The order the suites run in: short ones first, then the functional
#: tests, whose stacks may each wait ``build_timeout``.
ORDER = ("api", "gophercloud", "functional", "integration")

#: The suites run from the tempest venv.
TEMPEST_SUITES = ("api", "functional", "integration")

#: Seconds kept back from the budget for the teardown.
TEARDOWN = 60.0
#: A suite given less time than this is not started at all.
MIN_SUITE_TIME = 30.0


@dataclass
class Options:
    """What the command line chose (see ``python -m conformance -h``)."""

    workdir: Path
    suites: tuple[str, ...] = SUITES
    api_deadline: float = 360.0
    functional_deadline: float = 900.0
    gophercloud_deadline: float = 300.0
    integration_deadline: float = 1200.0
    budget: float = 1800.0
    run_anyway: bool = False


class Clock:
    """Prints progress lines with the time since the start."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.start

    def say(self, text: str) -> None:
        """Print ``text`` after the elapsed seconds."""
        print(f"[{time.monotonic() - self.start:5.0f}s] {text}", flush=True)


@contextlib.contextmanager
def _step(
    clock: Clock, report: Report, what: str
) -> Iterator[Callable[[str], None]]:
    """Announce a step; turn its exception into a note."""
    clock.say(what)
    try:
        yield clock.say
    except Exception as exc:
        report.note(f"{what} failed: {first_line(str(exc))}")
        clock.say(f"{what} FAILED:\n{exc}")


@dataclass
class Prepared:
    """What preparation produced (``None`` where it failed)."""

    tempest_python: Path | None = None
    inventory: dict[str, list[str]] | None = None
    go_binary: Path | None = None
    integration_path: Path | None = None


def _offline_identity() -> tempest_conf.Identity:
    # No identity endpoint: discovery lists every test without a cloud.
    return tempest_conf.Identity(
        "", "RegionOne", ("u", "p", "p"), ("a", "p", "a")
    )


def _list(
    report: Report,
    tempest: tempest_suite.Tempest,
    suite: tempest_suite.Suite,
    inventory: dict[str, list[str]],
) -> None:
    tests = tempest.list_tests(suite)
    inventory[suite.name] = tests
    if len(tests) != suite.expected:
        report.note(
            f"{suite.name}: {len(tests)} tests listed, "
            f"{suite.release} has {suite.expected}"
        )


def prepare(opts: Options, clock: Clock, report: Report) -> Prepared:
    """Install and check the suites' tools before keel-heat starts."""
    out = Prepared()
    if set(TEMPEST_SUITES) & set(opts.suites):
        with _step(clock, report, "tempest venv and test inventory"):
            folder = opts.workdir / "tempest-offline"
            python = out.tempest_python = tempest_suite.prepare()
            etc = tempest_conf.write(_offline_identity(), folder)
            tempest = tempest_suite.Tempest(python, folder, etc)
            out.inventory = {}
            _list(report, tempest, tempest_suite.API, out.inventory)
            _list(report, tempest, tempest_suite.FUNCTIONAL, out.inventory)
        if "integration" in opts.suites and out.inventory is not None:
            with _step(clock, report, "Heat's in-tree functional tests"):
                path = integration.ensure_package(python)
                _integration_env(tempest, path)
                suite = tempest_suite.INTEGRATION
                _list(report, tempest, suite, out.inventory)
                out.integration_path = path
        if out.inventory is not None:
            clock.say(
                "inventory: "
                + ", ".join(f"{k} {len(v)}" for k, v in out.inventory.items())
            )
    if "gophercloud" in opts.suites:
        with _step(clock, report, "Go toolchain and gophercloud tests"):
            folder = opts.workdir / "gophercloud"
            folder.mkdir(parents=True, exist_ok=True)
            gophercloud_suite.ensure_tools(folder / "apt.log")
            out.go_binary = gophercloud_suite.compile_tests(folder)
            names = gophercloud_suite.list_tests(out.go_binary)
            clock.say(f"gophercloud tests compiled: {', '.join(names)}")
    return out


def _integration_env(
    tempest: tempest_suite.Tempest,
    package: Path,
    heat_manage: Path | None = None,
) -> None:
    """Put Heat's tests (and ``heat-manage``) where its processes look."""
    env = {
        "PYTHONPATH": str(package),
        "OS_TEST_TIMEOUT": str(tempest_conf.TEST_TIMEOUT),
    }
    if heat_manage is not None:
        env["PATH"] = str(heat_manage.parent)
    tempest.extend(tempest_suite.INTEGRATION, **env)


def _tempest(
    prepared: Prepared, deployment: Deployment, folder: Path
) -> tempest_suite.Tempest:
    assert prepared.tempest_python is not None
    ks = deployment.keystone
    identity = tempest_conf.Identity(
        ks.v3_url,
        ks.region,
        (ks.demo.username, ks.demo.password, ks.demo.project_name or ""),
        (ks.admin.username, ks.admin.password, ks.admin.project_name or ""),
    )
    etc = tempest_conf.write(identity, folder)
    tempest = tempest_suite.Tempest(prepared.tempest_python, folder, etc)
    if prepared.integration_path is not None:
        heat_manage = integration.write_heat_manage(
            folder / "bin",
            script("keel-heat-manage"),
            deployment.config_file,
        )
        _integration_env(tempest, prepared.integration_path, heat_manage)
    return tempest


def _bare_all(tests: list[str]) -> list[str]:
    return [t.split("[", 1)[0] for t in tests]


def _counts(name: str, outcomes: list[Outcome]) -> str:
    failed = sum(o.status == FAILED for o in outcomes)
    return f"{name}: {len(outcomes)} results, {failed} failed"


def _gophercloud(
    opts: Options,
    prepared: Prepared,
    deployment: Deployment,
    deadline: float,
) -> list[Outcome]:
    if prepared.go_binary is None:
        return not_run(
            gophercloud_suite.SUITE,
            list(gophercloud_suite.RUN),
            "the acceptance tests could not be built",
        )
    ks = deployment.keystone
    creds = gophercloud_suite.Credentials(
        ks.v3_url,
        ks.demo.username,
        ks.demo.password,
        ks.demo.project_name or "",
        ks.region,
    )
    return gophercloud_suite.run(
        prepared.go_binary, creds, opts.workdir / "gophercloud", deadline
    )


def _not_started(
    opts: Options, prepared: Prepared, why: str, only: str | None = None
) -> list[Outcome]:
    chosen = [s for s in opts.suites if only is None or s == only]
    outcomes: list[Outcome] = []
    for name, tests in (prepared.inventory or {}).items():
        if name in chosen:
            outcomes += not_run(name, _bare_all(tests), why)
    if "gophercloud" in chosen:
        outcomes += not_run(
            gophercloud_suite.SUITE,
            list(gophercloud_suite.RUN),
            why,
        )
    return outcomes


def _run_suites(
    opts: Options,
    prepared: Prepared,
    deployment: Deployment,
    clock: Clock,
    report: Report,
) -> None:
    """Run the suites in order, each within its deadline and the budget.

    gophercloud runs before the functional tests: it is short, and the
    functional and integration tests (whose stacks may each wait
    ``build_timeout``) then get whatever time is left.
    """
    tempest = None
    if prepared.inventory is not None:
        tempest = _tempest(prepared, deployment, opts.workdir / "tempest")
    own = {
        "api": opts.api_deadline,
        "gophercloud": opts.gophercloud_deadline,
        "functional": opts.functional_deadline,
        "integration": opts.integration_deadline,
    }
    for name in ORDER:
        if name not in opts.suites:
            continue
        if name in TEMPEST_SUITES and (
            tempest is None or name not in (prepared.inventory or {})
        ):
            continue  # the inventory failed; noted by prepare()
        deadline = min(own[name], opts.budget - clock.elapsed() - TEARDOWN)
        if deadline < MIN_SUITE_TIME:
            why = f"the run's {opts.budget:.0f}s time budget was used up"
            report.add(_not_started(opts, prepared, why, only=name))
            continue
        clock.say(f"running the {name} tests (deadline {deadline:.0f}s)")
        if name == "gophercloud":
            got = _gophercloud(opts, prepared, deployment, deadline)
        else:
            assert tempest is not None and prepared.inventory is not None
            suite = tempest_suite.SUITES[name]
            tests = prepared.inventory[name]
            if suite.by_module:
                got = tempest.run_by_module(suite, tests, deadline)
            else:
                got = tempest.run(suite, tests, deadline)
        clock.say(_counts(name, got))
        report.add(got)


def execute(opts: Options) -> Report:
    """Run the whole harness; return the report (not yet written)."""
    clock = Clock()
    report = Report()
    opts.workdir.mkdir(parents=True, exist_ok=True)
    clock.say(f"work folder {opts.workdir}")
    prepared = prepare(opts, clock, report)
    clock.say("deploying keel-heat")
    reported = False
    try:
        with deploy(opts.workdir / "deployment") as deployment:
            for problem in deployment.problems:
                report.note(first_line(problem))
                clock.say(f"PROBLEM: {problem}")
            if deployment.ready or opts.run_anyway:
                clock.say(
                    f"keel-heat ready: API {deployment.api_url}, "
                    f"CFN {deployment.cfn_url}"
                )
                _run_suites(opts, prepared, deployment, clock, report)
            else:
                why = "keel-heat is not running: " + first_line(
                    deployment.blocker or "not ready"
                )
                report.add(_not_started(opts, prepared, why))
            reported = True
            clock.say("tearing down")
    except Exception as exc:
        why = first_line(f"{type(exc).__name__}: {exc}")
        report.note(f"the harness broke: {why}")
        clock.say(f"the harness broke: {exc!r}")
        if not reported and not report.outcomes:
            report.add(_not_started(opts, prepared, why))
    clock.say("torn down")
    return report
