"""``python -m conformance``: see :mod:`conformance.run`."""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conformance.level import DEFAULT, Level
from conformance.results import FAILED
from conformance.run import SUITES, Options, execute


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m conformance",
        description="Run heat-tempest-plugin (api + Heat/Keystone "
        "functional tests), Heat's in-tree functional tests "
        "(heat_integrationtests) and gophercloud's orchestration "
        "acceptance tests against a freshly deployed keel-heat.",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="folder for configuration, logs and the summary "
        "(default: a new folder under the system's temp folder)",
    )
    parser.add_argument(
        "--suites",
        default=",".join(SUITES),
        help="comma-separated subset of %(default)s",
    )
    parser.add_argument("--api-deadline", type=float, default=360.0)
    parser.add_argument("--functional-deadline", type=float, default=900.0)
    parser.add_argument("--gophercloud-deadline", type=float, default=300.0)
    parser.add_argument("--integration-deadline", type=float, default=1200.0)
    parser.add_argument(
        "--budget",
        type=float,
        default=1800.0,
        help="seconds the whole run may take; each suite's deadline is cut "
        "to fit (default %(default)s)",
    )
    parser.add_argument(
        "--run-anyway",
        action="store_true",
        help="run the suites even when keel-heat did not become ready",
    )
    parser.add_argument(
        "--allow-failures",
        action="store_true",
        help="exit 0 even when tests failed (the summary still says so)",
    )
    parser.add_argument(
        "--level",
        nargs="?",
        type=Path,
        const=DEFAULT,
        help="exit 0 when the run reaches the level recorded in this file "
        "(default when given without a value: %(const)s) even if other "
        "tests failed; exit 1 when it falls below it",
    )
    args = parser.parse_args(argv)
    unknown = set(args.suites.split(",")) - set(SUITES)
    if unknown:
        parser.error(f"unknown suites: {', '.join(sorted(unknown))}")
    return args


def _stop_on_sigterm(signum: int, frame: object) -> None:
    # Unwinding runs the deployment's teardown (processes, vhost, DB).
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the harness; return 1 when a test failed (unless allowed)."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="keel-conf-"))
    opts = Options(
        workdir=workdir.resolve(),
        suites=tuple(args.suites.split(",")),
        api_deadline=args.api_deadline,
        functional_deadline=args.functional_deadline,
        gophercloud_deadline=args.gophercloud_deadline,
        integration_deadline=args.integration_deadline,
        budget=args.budget,
        run_anyway=args.run_anyway,
    )
    report = execute(opts)
    text = report.write(opts.workdir)
    print(
        f"\nsummary in {opts.workdir}/summary.txt, every test's result "
        f"in {opts.workdir}/tests.tsv\n",
        flush=True,
    )
    print(text, end="", flush=True)
    failed = report.counts()[FAILED]
    if args.allow_failures or failed == 0:
        return 0
    if args.level is None:
        return 1
    shortfalls = Level.load(args.level).shortfalls(report, opts.suites)
    for line in shortfalls:
        print(f"below the level: {line}", flush=True)
    if not shortfalls:
        print(
            f"{failed} tests failed; the level of {args.level} is reached",
            flush=True,
        )
    return 1 if shortfalls else 0


if __name__ == "__main__":
    sys.exit(main())
