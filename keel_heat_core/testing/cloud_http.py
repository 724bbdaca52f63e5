"""What a test sends an in-process cloud: HTTP, the CLI, polling.

See :class:`keel_heat_core.testing.cloud.InProcessCloud`; these work as
well against a cloud in another process (``keel-heat-all``).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

#: The folder of this interpreter's console scripts (``openstack``, ...).
BIN = pathlib.Path(sys.executable).parent

_T = TypeVar("_T")


def wait_for(
    predicate: Callable[[], _T],
    timeout: float = 60.0,
    what: str = "",
    interval: float = 0.2,
) -> _T:
    """Poll until ``predicate()`` answers something true; return it.

    :param predicate: called every ``interval`` seconds.
    :param timeout: seconds before giving up.
    :param what: what is awaited, for the failure message.
    :raises AssertionError: on time-out, with the last answer.
    """
    end = time.monotonic() + timeout
    last: _T | None = None
    while time.monotonic() < end:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(
        f"timed out ({timeout}s) waiting for {what}: {last!r}"
    )


def state_reached(
    stack: Mapping[str, Any], states: Iterable[str], strict: bool = False
) -> bool:
    """Whether a shown stack is in one of ``states``.

    :param stack: the stack as the API shows it (``stack_status``).
    :param states: the ``<ACTION>_<STATUS>`` values awaited.
    :param strict: also fail on a ``_COMPLETE`` state not awaited.
    :raises AssertionError: on a final state that is not awaited (any
        ``_FAILED`` one, or with ``strict`` any ``_COMPLETE`` one too).
    """
    wanted = tuple(states)
    state = str(stack["stack_status"])
    if state in wanted:
        return True
    final = ("_COMPLETE", "_FAILED") if strict else ("_FAILED",)
    assert not state.endswith(final), (
        f"{state} (waiting for {wanted}): {stack.get('stack_status_reason')}"
    )
    return False


def json_request(
    url: str,
    method: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> tuple[int, Any]:
    """One HTTP request with a JSON body.

    :returns: the status and the decoded JSON answer (``None`` when
        empty, the text when it is not JSON); error statuses are
        returned, not raised.
    """
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(  # noqa: S310
        url,
        data=data,
        method=method,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(  # noqa: S310
            req, timeout=timeout
        ) as resp:
            raw, status = resp.read(), int(resp.status)
    except urllib.error.HTTPError as err:
        raw, status = err.read(), err.code
    if not raw:
        return status, None
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def run_openstack(
    endpoint: str, *args: str, check: bool = True, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run the real ``openstack`` CLI against a noauth orchestration API.

    :param endpoint: ``http://host:port/v1/<project>``.
    :param args: the command and its arguments.
    :param check: assert that the command succeeds.
    :param timeout: seconds the command may take.

    ``OS_*`` variables of the environment are left out.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    result = subprocess.run(
        [
            str(BIN / "openstack"),
            "--os-auth-type",
            "none",
            "--os-endpoint",
            endpoint,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if check:
        assert result.returncode == 0, (
            f"openstack {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
        )
    return result
