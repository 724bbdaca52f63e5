"""gophercloud's orchestration acceptance tests against the deployment.

Debian's ``golang-github-gophercloud-gophercloud-dev`` (0.12) ships the
whole source tree in GOPATH layout, acceptance tests included.
They are compiled in GOPATH mode
(``GO111MODULE=off``, ``GOPROXY=off``, a cached ``GOCACHE``) into one test
binary, which runs with the package folder as working directory (the
``get_file`` test reads ``testdata/samplefile`` relative to it) and the
demo user's ``OS_*`` variables.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conformance.results import (
    FAILED,
    PASSED,
    SKIPPED,
    Outcome,
    not_run,
    readable,
)
from keel_heat_core.testing.keystone_venv import cache_root

GOPATH = Path("/usr/share/gocode")
PACKAGE = "github.com/gophercloud/gophercloud/acceptance/openstack/" + (
    "orchestration/v1"
)
PACKAGES = ("golang-go", "golang-github-gophercloud-gophercloud-dev")
SUITE = "gophercloud"

#: Tests run, and why the others are skipped.
RUN = (
    "TestBuildInfo",
    "TestStackTemplateWithFile",
    # OS::Neutron::SecurityGroup is mapped to OS::Heat::None by the
    # deployment's environment.d, which these four need.
    "TestStacksCRUD",
    "TestStackEvents",
    "TestStackResources",
    "TestStackTemplatesCRUD",
)
SKIP = {
    "TestStackTemplatesValidate": "validates an OS::Nova::Server template: "
    "needs Nova (a compute endpoint), absent from this test bed",
}

_RESULT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)")
_RUN = re.compile(r"^=== (?:RUN|CONT)\s+(\S+)")


@dataclass(frozen=True)
class Credentials:
    """The ``OS_*`` variables the acceptance tests read."""

    auth_url: str
    username: str
    password: str
    project_name: str
    region: str

    def environ(self) -> dict[str, str]:
        """Return them as environment variables (domain ``default``)."""
        return {
            "OS_AUTH_URL": self.auth_url,
            "OS_USERNAME": self.username,
            "OS_PASSWORD": self.password,
            "OS_PROJECT_NAME": self.project_name,
            "OS_DOMAIN_ID": "default",
            "OS_REGION_NAME": self.region,
        }


def source_dir() -> Path:
    """The acceptance test package inside Debian's GOPATH."""
    return GOPATH / "src" / PACKAGE


def ensure_tools(log: Path) -> None:
    """Install Go and gophercloud from Debian when they are missing.

    :param log: receives apt-get's output.
    :raises RuntimeError: when they are still missing afterwards.
    """
    if shutil.which("go") and source_dir().is_dir():
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with log.open("a") as out:
        for argv in (
            ["apt-get", "update"],
            ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES],
        ):
            subprocess.run(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                timeout=900,
                check=False,
            )
    if not (shutil.which("go") and source_dir().is_dir()):
        raise RuntimeError(
            f"apt-get install {' '.join(PACKAGES)} did not provide go and "
            f"{source_dir()} (log {log})"
        )


def go_environ() -> dict[str, str]:
    """Return the environment for a GOPATH-mode build with no network."""
    return dict(
        os.environ,
        GOPATH=str(GOPATH),
        GO111MODULE="off",
        GOPROXY="off",
        GOFLAGS="",
        GOCACHE=str(cache_root() / "go-build"),
    )


def compile_tests(workdir: Path) -> Path:
    """Compile the acceptance tests into ``workdir``; return the binary.

    :raises RuntimeError: with the compiler's output when it fails.
    """
    binary = workdir / "orchestration.test"
    result = subprocess.run(
        ["go", "test", "-tags", "acceptance", "-c", "-o", str(binary)]
        + [PACKAGE],
        env=go_environ(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"go test -c {PACKAGE} failed:\n{result.stderr[-2000:]}"
        )
    return binary


def list_tests(binary: Path) -> list[str]:
    """Return the test names the binary holds."""
    result = subprocess.run(
        [str(binary), "-test.list", "."],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [n for n in result.stdout.split() if n.startswith("Test")]


def parse(output: str) -> list[Outcome]:
    """Turn ``go test -v`` output into outcomes.

    A failure's reason is the last line the test logged before its
    ``--- FAIL`` line (``t.Fatalf`` stops there), without the file prefix.

    :param output: the test binary's combined output.
    """
    outcomes: list[Outcome] = []
    logged: dict[str, list[str]] = {}
    current: str | None = None
    for line in output.splitlines():
        started = _RUN.match(line)
        if started:
            current = started.group(1)
            logged.setdefault(current, [])
            continue
        ended = _RESULT.match(line)
        if ended:
            verdict, name = ended.groups()
            outcomes.append(_outcome(verdict, name, logged.get(name, [])))
            current = None
            continue
        if current is not None and line.startswith("    ") and line.strip():
            logged[current].append(line.strip())
    return outcomes


def _outcome(verdict: str, name: str, lines: list[str]) -> Outcome:
    status = {"PASS": PASSED, "FAIL": FAILED, "SKIP": SKIPPED}[verdict]
    reason = ""
    if status != PASSED and lines:
        reason = readable(re.sub(r"^\S+\.go:\d+: ", "", lines[-1]))
    return Outcome(SUITE, name, status, reason)


def run(
    binary: Path, creds: Credentials, workdir: Path, deadline: float
) -> list[Outcome]:
    """Run the chosen tests; skipped and unreported ones included.

    :param binary: the compiled acceptance tests.
    :param creds: the demo user's credentials.
    :param workdir: where the output log goes.
    :param deadline: seconds allowed.
    """
    available = list_tests(binary)
    chosen = [name for name in RUN if name in available]
    pattern = "^(" + "|".join(chosen) + ")$"
    log = workdir / "gophercloud.log"
    try:
        result = subprocess.run(
            [str(binary), "-test.v", "-test.run", pattern]
            + ["-test.timeout", f"{int(deadline)}s"],
            cwd=source_dir(),
            env=dict(os.environ, **creds.environ()),
            capture_output=True,
            text=True,
            timeout=deadline + 30,
            check=False,
        )
        output = result.stdout + result.stderr
    except subprocess.TimeoutExpired as exc:
        output = str(exc.stdout or "")
    log.write_text(output)
    outcomes = parse(output)
    seen = {o.test_id for o in outcomes}
    outcomes += not_run(
        SUITE,
        [name for name in chosen if name not in seen],
        f"no result reported (deadline {deadline:.0f}s; see {log})",
    )
    outcomes += [
        Outcome(SUITE, name, SKIPPED, SKIP.get(name, "not selected"))
        for name in available
        if name not in chosen
    ]
    return outcomes
