"""Drive the Heat 27 vectors through keel-heat's API and engine, compare.

Each vector is a ``POST /v1/{tenant}/stacks`` body: it is sent over HTTP
to an in-process keel-heat (:mod:`tests.conformance.service`), the stack
is shown once its create has finished, then deleted; the same body goes
to ``POST /v1/{tenant}/validate``.

Run as a script to print the pass rate and the failures::

    .venv/bin/python -m tests.conformance.runner [-v] [id-prefix]
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import re
import sys
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conformance import service
from tests.conformance.deliberate import DELIBERATE
from tests.conformance.outcome import Outcome
from tests.conformance.service_path import ServicePath

DATA = Path(__file__).parent / "data" / "function_vectors.jsonl"
#: In-process keel-heats. Every vector creates a stack of the same name
#: in the same project, so the creates of one service take turns: each
#: lane (its own database) adds one create at a time.
LANES = 2
#: Vectors in flight per lane (those that fail validation run alongside).
WORKERS = 3


def load_vectors() -> list[dict[str, Any]]:
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _floats(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return float(value["$float"].replace("Infinity", "inf"))
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return (
        type(a) is type(b) and a == b
        if isinstance(a, bool) or isinstance(b, bool)
        else a == b
    )


_ITEM = re.compile(r'(\w+ "[^"]*"): \{([^}]*)\}')


def _same_map_text(expected: str, got: str) -> bool:
    """Equal but for the key order of one printed map (the vectors'
    templates were written with sorted keys)."""
    a, b = expected.find("{"), got.find("{")
    if a < 0 or a != b or expected[:a] != got[:b]:
        return False
    try:
        return ast.literal_eval(expected[a:]) == ast.literal_eval(got[b:])
    except (ValueError, SyntaxError):
        return False


def _set_items(prefix: str, text: str) -> set[Any]:
    found = _ITEM.findall(text)
    if found:
        return {(k, frozenset(v.split(", "))) for k, v in found}
    return set(text[len(prefix) :].rstrip(")").split(", "))


_SET_MESSAGES = (
    "Circular Dependency Found: ",
    "The template version is invalid: Ambiguous versions (",
)


def _same_message(expected: str, got: str) -> bool:
    """Equal texts; set-printing messages compare as sets of items."""
    if expected == got or _same_map_text(expected, got):
        return True
    for prefix in _SET_MESSAGES:
        if expected.startswith(prefix) and got.startswith(prefix):
            return _set_items(prefix, expected) == _set_items(prefix, got)
    return False


def _skipped(path: str, expect: dict[str, Any]) -> bool:
    skip = expect.get("nondeterministic", []) + expect.get("unstable", [])
    return any(path == s or path.startswith(s + ".") for s in skip)


@dataclass
class Result:
    vector_id: str
    ok: bool
    problems: list[str]
    deliberate: bool = False
    #: the template-validate (``POST /validate``) comparison
    validate_ok: bool = True
    validate_problems: tuple[str, ...] = ()


def _api_message(record: dict[str, Any]) -> str | None:
    """``api_body.error.message`` of an error record (``None`` for the
    500-class Python errors, which carry none)."""
    error = (record.get("api_body") or {}).get("error") or {}
    message = error.get("message")
    return None if message is None else str(message)


def _compare_error(expect: dict[str, Any], got: Outcome) -> list[str]:
    problems = []
    if expect.get("http_status") != got.http_status:
        problems.append(
            f"http_status: {expect.get('http_status')} != {got.http_status}"
        )
    if expect.get("error_type") != got.error_type:
        problems.append(
            f"error_type: {expect.get('error_type')} != {got.error_type}"
        )
    api = _api_message(expect)
    if (api is None) != (got.error_message is None) or not _same_message(
        api or "", got.error_message or ""
    ):
        problems.append(
            f"api_body.error.message:\n    expected {api!r}\n"
            f"    got      {got.error_message!r}"
        )
    return problems


def _compare_outputs(expect: dict[str, Any], got: Outcome) -> list[str]:
    problems = []
    errors = expect.get("output_errors") or {}
    for key, value in (expect.get("outputs") or {}).items():
        if _skipped(f"outputs.{key}", expect):
            continue
        if key not in got.outputs or not _same(value, got.outputs[key]):
            seen = got.outputs.get(key, got.output_errors.get(key))
            problems.append(f"outputs.{key}: expected {value!r}, got {seen!r}")
    for key, value in errors.items():
        if got.output_errors.get(key) != value:
            problems.append(
                f"output_errors.{key}: expected {value!r}, "
                f"got {got.output_errors.get(key)!r}"
            )
    for key, text in got.output_errors.items():
        if key not in errors:
            problems.append(f"unexpected output error {key}: {text}")
    return problems


def compare(vector: dict[str, Any], got: Outcome) -> list[str]:
    """Differences between a vector's ``expect`` and the outcome."""
    expect = _floats(vector["expect"])
    stage = expect.get("stage")
    if expect["valid"] != got.valid or (
        not expect["valid"] and stage != got.stage
    ):
        return [
            f"valid/stage: expected {expect['valid']}/{stage}, got "
            f"{got.valid}/{got.stage} {got.error_type}: {got.error_message}"
        ]
    if not expect["valid"]:
        return _compare_error(expect, got)
    problems = []
    status = expect.get("stack_status")
    if status is not None and status != got.stack_status:
        problems.append(
            f"stack_status: {status} != {got.stack_status} "
            f"({got.stack_status_reason})"
        )
    problems += _compare_outputs(expect, got)
    for key, value in (expect.get("parameters") or {}).items():
        if _skipped(f"parameters.{key}", expect):
            continue
        if got.parameters.get(key) != value:
            problems.append(
                f"parameters.{key}: expected {value!r}, "
                f"got {got.parameters.get(key)!r}"
            )
    for name, state in (expect.get("resources") or {}).items():
        seen = got.resources.get(name, {})
        if seen.get("status") != state["status"]:
            problems.append(f"resources.{name}: expected {state}, got {seen}")
    return problems


def compare_validate(vector: dict[str, Any], got: Outcome) -> list[str]:
    """Differences from the vector's ``validate_template`` record."""
    expect = vector["expect"]["validate_template"]
    if expect["valid"]:
        if not got.valid:
            return [f"validate: {got.error_type}: {got.error_message}"]
        if got.result != expect["result"]:
            return [
                f"validate result:\n    expected {expect['result']!r}\n"
                f"    got      {got.result!r}"
            ]
        return []
    if got.valid:
        return [f"validate: expected {expect['error_message']!r}"]
    return [f"validate {p}" for p in _compare_error(expect, got)]


def heat_shaped(got: Outcome) -> bool:
    """Accepted, or refused with a 400 that carries a message."""
    return got.valid or (
        got.http_status == 400 and got.error_message is not None
    )


def run_vector(vector: dict[str, Any], path: ServicePath) -> Result:
    """Create + show and validate one vector through the service."""
    got = path.create(vector)
    checked = path.validate(vector)
    vid = vector["id"]
    if vid in DELIBERATE:
        return Result(
            vid,
            DELIBERATE[vid].check(got),
            [f"deliberate: {DELIBERATE[vid].reason}"],
            True,
            validate_ok=heat_shaped(checked),
        )
    problems = compare(vector, got)
    validate = compare_validate(vector, checked)
    return Result(
        vid, not problems, problems, False, not validate, tuple(validate)
    )


def _guarded(vector: dict[str, Any], path: ServicePath) -> Result:
    try:
        return run_vector(vector, path)
    except Exception as err:  # one broken vector must not stop the suite
        problem = f"harness: {type(err).__name__}: {err}"
        return Result(vector["id"], False, [problem], False, False)


def run_all(
    prefix: str = "",
    lanes: int = LANES,
    workers: int = WORKERS,
    report: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Run the vectors whose id starts with ``prefix``.

    :param lanes: in-process keel-heats (one database each); vector ``i``
        goes to lane ``i % lanes``.
    :param workers: vectors in flight per lane.
    :param report: called with each result as it comes.
    """
    vectors = [v for v in load_vectors() if v["id"].startswith(prefix)]
    with contextlib.ExitStack() as stack:
        paths = [
            ServicePath(stack.enter_context(service.running()))
            for _ in range(max(1, min(lanes, len(vectors))))
        ]

        def one(index: int) -> Result:
            result = _guarded(vectors[index], paths[index % len(paths)])
            if report is not None:
                report(result)
            return result

        with futures.ThreadPoolExecutor(workers * len(paths)) as pool:
            return list(pool.map(one, range(len(vectors))))


def _print(result: Result, verbose: bool) -> None:
    r = result
    if not r.ok or not r.validate_ok or (verbose and r.deliberate):
        failed = not (r.ok and r.validate_ok)
        lines = [f"{'FAIL' if failed else 'NOTE'} {r.vector_id}"]
        lines += [f"    {p}" for p in [*r.problems, *r.validate_problems]]
        print("\n".join(lines), flush=True)


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    started = time.monotonic()
    results = run_all(
        args[0] if args else "", report=lambda r: _print(r, verbose)
    )
    compared = [r for r in results if not r.deliberate]
    passed = sum(r.ok for r in compared)
    deliberate_ok = sum(r.ok for r in results if r.deliberate)
    total = len(compared)
    rate = 100.0 * passed / total if total else 100.0
    checked = sum(r.validate_ok for r in results)
    print(
        f"create+show: {passed}/{total} vectors pass ({rate:.1f}%); "
        f"{deliberate_ok}/{len(results) - total} deliberate differences "
        f"hold; template-validate: {checked}/{len(results)} pass "
        f"({time.monotonic() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
