"""A bounded, seeded fuzzer of the native API (issue 37's checks, kept).

Every case of :mod:`tests.fuzz.cases` is sent over HTTP to a real API,
engine and database; the run fails on any 5xx, on any request that is
not answered within :data:`ANSWER_WITHIN` seconds, and on any stack a
case created that cannot then be deleted. ``KEEL_FUZZ_SEED`` and
``KEEL_FUZZ_CASES`` choose the cases (a failure names its seed and
case, which replays it).
"""

from __future__ import annotations

import os
import time
from typing import Any

import requests

from keel_heat_core.testing.cloud import InProcessCloud
from tests.fuzz import cases

SEED = int(os.environ.get("KEEL_FUZZ_SEED", "20261207"))
COUNT = int(os.environ.get("KEEL_FUZZ_CASES", "250"))
#: seconds a request has to be answered (Heat answers these at once)
ANSWER_WITHIN = 30
#: seconds every created stack has to be deleted in
DELETED_WITHIN = 180


def _send(base: str, case: cases.Case) -> requests.Response:
    return requests.request(
        case.method,
        base + case.path,
        data=case.body,
        headers={"X-Auth-Token": "anything", **case.headers},
        timeout=ANSWER_WITHIN,
        allow_redirects=False,
    )


def _stack_ids(cloud: InProcessCloud) -> dict[str, str]:
    status, body = cloud.request("GET", "/stacks?show_nested=false")
    assert status == 200, body
    return {s["id"]: s["stack_name"] for s in body["stacks"]}


def _deleted(cloud: InProcessCloud, name: str, stack_id: str) -> bool:
    status, body = cloud.request("GET", f"/stacks/{name}/{stack_id}")
    if status == 404:
        return True
    assert status == 200, body
    state = body["stack"]["stack_status"]
    assert state != "DELETE_FAILED", (
        f"seed {SEED}: {name} cannot be deleted: "
        f"{body['stack']['stack_status_reason']}"
    )
    return bool(state == "DELETE_COMPLETE")


def _heat_error(answer: requests.Response) -> bool:
    """Whether a refusal is a JSON fault with its status as ``code``
    (Heat's, or webob's JSON page that Heat answers for a path no route
    takes), never an HTML or text page; an empty body (a HEAD's) passes."""
    if not answer.content:
        return True
    try:
        fault: Any = answer.json()
    except ValueError:
        return False
    if not isinstance(fault, dict):
        return False
    code = fault.get("code")
    return code == answer.status_code or str(code).startswith(
        str(answer.status_code)
    )


def test_no_case_gets_a_5xx_or_hangs_and_every_stack_deletes(
    deployment: InProcessCloud,
) -> None:
    base = deployment.url()
    answered: dict[int, int] = {}
    failures: list[str] = []
    for case in cases.generate(SEED, COUNT):
        try:
            answer = _send(base, case)
        except requests.Timeout:
            failures.append(f"no answer: {case.describe()}")
            continue
        answered[answer.status_code] = answered.get(answer.status_code, 0) + 1
        if answer.status_code >= 500:
            failures.append(
                f"{answer.status_code} {answer.text[:300]}: {case.describe()}"
            )
        elif answer.status_code >= 400 and not _heat_error(answer):
            failures.append(
                f"{answer.status_code} not Heat's error shape "
                f"{answer.text[:200]!r}: {case.describe()}"
            )
    assert not failures, f"seed {SEED}:\n" + "\n".join(failures)
    # the cases are worth running: most are refused, some make stacks
    assert answered.get(400, 0) > COUNT // 4, answered
    assert answered.get(201, 0) > 0, answered
    print(f"seed {SEED}, {COUNT} cases: answers {sorted(answered.items())}")

    created = _stack_ids(deployment)
    assert created
    for stack_id, name in created.items():
        status, body = deployment.request(
            "DELETE", f"/stacks/{name}/{stack_id}"
        )
        assert status in (204, 404), body
    deadline = time.monotonic() + DELETED_WITHIN
    left = dict(created)
    while left and time.monotonic() < deadline:
        left = {
            sid: name
            for sid, name in left.items()
            if not _deleted(deployment, name, sid)
        }
        time.sleep(1)
    assert not left, f"seed {SEED}: never deleted: {sorted(left.values())}"
    assert _stack_ids(deployment) == {}
