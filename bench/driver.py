"""Benchmark driver: the same measurements against any Heat endpoint.

Usage (noauth, e.g. keel-heat's embedded default)::

    python -m bench.driver --endpoint http://127.0.0.1:8004/v1/PROJECT \\
        --sizes 10,100 --out bench/results/keel.jsonl

With Keystone::

    python -m bench.driver --os-auth-url http://127.0.0.1:5000/v3 \\
        --os-username demo --os-password secret --os-project-name demo

Each case writes one JSON line; a markdown table is printed at the end,
and ``--compare OTHER.jsonl`` prints the ratio of every case found in
both runs. Never part of the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from typing import Any

from bench import report, throughput
from bench.client import BenchError, Endpoint, OrchestrationClient
from bench.cpu import CpuMeter
from bench.shapes import SHAPES, big_template_text, outputs


def _name(prefix: str) -> str:
    return f"bench-{prefix}-{uuid.uuid4().hex[:8]}"


def _phase(
    client: OrchestrationClient,
    name: str,
    sid: str,
    action: str,
    timeout: float,
    start: Callable[[], Any],
) -> dict[str, Any]:
    """Start one operation and wait for its end; time both together."""
    t0 = time.perf_counter()
    try:
        start()
        started = time.perf_counter() - t0
        status = client.wait(
            name, sid, action, timeout, deleting=action == "DELETE"
        )
    except BenchError as exc:
        return {
            "case": action.lower(),
            "status": "ERROR",
            "error": str(exc)[:300],
            "seconds": time.perf_counter() - t0,
        }
    return {
        "case": action.lower(),
        "status": status,
        "seconds": time.perf_counter() - t0,
        "request_s": started,
    }


def one_lifecycle(
    client: OrchestrationClient,
    shape_name: str,
    n: int,
    rtype: str,
    timeout: float,
    actions: Collection[str] = ("CREATE", "UPDATE", "DELETE"),
) -> Iterator[dict[str, Any]]:
    """Create, update and delete one stack of a shape.

    An error (a refused request, a timeout) ends the stack's cases with
    an ``ERROR`` row instead of ending the whole run; the stack is then
    deleted without being timed, as it is when ``actions`` leaves out
    ``DELETE``. The stack is always created.
    """
    build = SHAPES[shape_name]
    name = _name(f"{shape_name}{n}")
    base = {"shape": shape_name, "n": n, "type": rtype}
    tmpl, files = build(n, "one", rtype)
    t0 = time.perf_counter()
    try:
        sid = client.create_stack(name, tmpl, files)
        posted = time.perf_counter() - t0
    except BenchError as exc:
        yield {
            **base,
            "case": "create",
            "status": "ERROR",
            "error": str(exc)[:300],
            "seconds": time.perf_counter() - t0,
        }
        return
    new_tmpl, new_files = build(n, "two", rtype)
    phases: list[tuple[str, Callable[[], Any]]] = [
        ("CREATE", lambda: None),
        (
            "UPDATE",
            lambda: client.update_stack(name, sid, new_tmpl, new_files),
        ),
        ("DELETE", lambda: client.delete_stack(name, sid)),
    ]
    for action, start in phases:
        if action not in actions and action != "CREATE":
            continue
        row = _phase(client, name, sid, action, timeout, start)
        if action == "CREATE":
            # The POST happened before the phase: time from before it.
            row["seconds"] = time.perf_counter() - t0
            row["request_s"] = posted
        yield {**base, **row}
        if row["status"] == "ERROR":
            break
    else:
        if "DELETE" in actions:
            return
    with contextlib.suppress(BenchError):
        client.delete_stack(name, sid)


def lifecycle_cases(
    client: OrchestrationClient,
    shapes: list[str],
    sizes: list[int],
    rtype: str,
    timeout: float,
    actions: Collection[str] = ("CREATE", "UPDATE", "DELETE"),
) -> Iterator[dict[str, Any]]:
    """Create, update and delete each shape at each size."""
    for shape_name in shapes:
        for n in sizes:
            yield from one_lifecycle(
                client, shape_name, n, rtype, timeout, actions
            )


def _load() -> str:
    """The 1/5/15-minute load average when the row was written."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return ""


def _timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def _latency(case: str, times: list[float], **more: Any) -> dict[str, Any]:
    """A case's row: the median and the slowest of its ``times``."""
    return {
        "case": case,
        **more,
        "seconds": sorted(times)[len(times) // 2],
        "p99": max(times),
    }


#: what a show stands on, cheapest first: the root URL (no token
#: checked, no engine call), a URL under the project that no route takes
#: (the token checked, 404), ``GET /build_info`` (one engine call that
#: reads nothing; Heat's API asks its engine for the revision too) and
#: the show of the 100-output stack without its outputs
FLOORS = (
    ("floor GET / (no token, no engine call)", "{root}", (200, 300)),
    (
        "floor GET {project}/no-such-route (token, 404)",
        "{project}/no-such-route",
        (404,),
    ),
    (
        "floor GET /build_info (token, one engine call)",
        "{project}/build_info",
        (200,),
    ),
    (
        "show_100_outputs resolve_outputs=false",
        "{project}/stacks/{stack}?resolve_outputs=false",
        (200,),
    ),
)


def floor_cases(
    client: OrchestrationClient, name: str, stack_id: str, repeat: int = 50
) -> Iterator[dict[str, Any]]:
    """The median latency of each of :data:`FLOORS`, one at a time."""
    places = {
        "root": client.endpoint.url.rsplit("/v1/", 1)[0] + "/",
        "project": client.endpoint.url,
        "stack": f"{name}/{stack_id}",
    }
    for case, template, expect in FLOORS:
        url = template.format(**places)

        def get(url: str = url, expect: tuple[int, ...] = expect) -> None:
            resp = client.http.get(url, allow_redirects=False)
            if resp.status_code not in expect:
                raise BenchError(f"GET {url}: {resp.status_code}")

        yield _latency(case, _timed(get, repeat))


def read_cases(
    client: OrchestrationClient,
    timeout: float,
    concurrency: list[int],
    list_stacks: int = 48,
    events: bool = True,
    requests_total: int = 400,
) -> Iterator[dict[str, Any]]:
    """Stack show with 100 outputs, events paging, API throughput
    (``events=False``, the ``throughput`` case: without events paging)."""
    name = _name("outputs")
    sid = client.create_stack(name, outputs(100), {})
    client.wait(name, sid, "CREATE", timeout)
    times = _timed(lambda: client.show_stack(name, sid), 20)
    yield _latency("show_100_outputs", times, n=100)
    yield from floor_cases(client, name, sid)

    made = [(name, sid)]
    if events:
        ev_name = _name("events")
        tmpl, files = SHAPES["wide"](500, "one", "OS::Heat::None")
        ev_id = client.create_stack(ev_name, tmpl, files)
        client.wait(ev_name, ev_id, "CREATE", timeout)
        made.append((ev_name, ev_id))
        count = 0

        def page() -> None:
            nonlocal count
            count = client.list_events(ev_name, ev_id)

        times = _timed(page, 3)
        yield {
            "case": "event_list",
            "n": count,
            "seconds": sorted(times)[len(times) // 2],
        }

    # GET /stacks lists 50 stacks (issue 7's case) either way
    listed = _create_many(client, list_stacks + 2 - len(made), timeout)
    for conc in concurrency:
        for label, path in (
            ("GET /stacks", "/stacks"),
            ("GET /stacks/{name}/{id}", f"/stacks/{name}/{sid}"),
            ("GET /build_info", "/build_info"),
        ):
            res = throughput.run(
                client, path, conc, requests_total=requests_total
            )
            yield {
                "case": f"throughput {label}",
                "concurrency": conc,
                "stacks": len(listed) + len(made),
                **res,
            }

    for sname, stack_id in [*made, *listed]:
        client.delete_stack(sname, stack_id)


def _create_many(
    client: OrchestrationClient, count: int, timeout: float
) -> list[tuple[str, str]]:
    """Create ``count`` one-resource stacks (all at once) for GET /stacks.

    The outputs and events stacks exist too, so GET /stacks lists
    ``count + 2`` stacks.
    """
    tmpl = {
        "heat_template_version": "2021-04-16",
        "resources": {"r": {"type": "OS::Heat::None"}},
    }
    made = []
    for _ in range(count):
        name = _name("list")
        made.append((name, client.create_stack(name, tmpl, {})))
    for name, sid in made:
        client.wait(name, sid, "CREATE", timeout)
    return made


def validate_case(client: OrchestrationClient) -> dict[str, Any]:
    text = big_template_text(2000)
    try:
        times = _timed(lambda: client.validate(text), 3)
    except BenchError as exc:
        return {
            "case": "validate_5mb",
            "bytes": len(text),
            "status": "ERROR",
            "error": str(exc)[:300],
            "seconds": 0.0,
        }
    return {
        "case": "validate_5mb",
        "bytes": len(text),
        "seconds": sorted(times)[1],
    }


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--endpoint", help="orchestration URL with project")
    p.add_argument("--token")
    p.add_argument("--os-auth-url")
    p.add_argument("--os-username")
    p.add_argument("--os-password")
    p.add_argument("--os-project-name")
    p.add_argument("--shapes", default="wide,chain,group,nested")
    p.add_argument("--sizes", default="10,100,1000")
    p.add_argument("--type", default="OS::Heat::TestResource")
    p.add_argument("--cases", default="lifecycle,read,validate")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument(
        "--requests",
        type=int,
        default=400,
        help="GETs per throughput case (fewer for a slow endpoint)",
    )
    p.add_argument(
        "--actions",
        default="create,update,delete",
        help="lifecycle actions to time (the stack is always created)",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run the lifecycle cases this many times (a new stack each "
        "time); the summary and --compare take each case's median",
    )
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument(
        "--poll-interval",
        type=float,
        default=0.2,
        help="seconds between status polls (0.2, the suite's standard; a "
        "shorter one shows when a stack really finished, for diagnosis)",
    )
    p.add_argument("--label", default="keel-heat")
    p.add_argument("--out", help="JSON lines file to append to")
    p.add_argument("--compare", help="another run's JSON lines file")
    p.add_argument(
        "--pids",
        help="comma-separated process ids of the service (engine and API "
        "workers) whose CPU seconds each lifecycle case records",
    )
    p.add_argument(
        "--engine-pids",
        help="the engine's processes among --pids: their CPU seconds are "
        "also recorded alone (cpu_engine_s, without the API's status polls)",
    )
    return p.parse_args(argv)


def make_client(args: argparse.Namespace) -> OrchestrationClient:
    if args.os_auth_url:
        endpoint = Endpoint.from_keystone(
            args.os_auth_url,
            args.os_username,
            args.os_password,
            args.os_project_name,
            url=args.endpoint,
        )
    elif args.endpoint:
        endpoint = Endpoint(args.endpoint.rstrip("/"), args.token)
    else:
        raise SystemExit("give --endpoint or --os-auth-url")
    return OrchestrationClient(endpoint, poll_interval=args.poll_interval)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    client = make_client(args)
    cases = set(args.cases.split(","))
    meta = {
        "label": args.label,
        "machine": platform.platform(),
        "python": platform.python_version(),
    }
    if args.poll_interval != 0.2:
        meta["poll_s"] = args.poll_interval
    rows: list[dict[str, Any]] = []
    sink = open(args.out, "a") if args.out else None  # noqa: SIM115

    meter = (
        CpuMeter([int(p) for p in args.pids.split(",")]) if args.pids else None
    )
    engine_meter = (
        CpuMeter([int(p) for p in args.engine_pids.split(",")])
        if args.engine_pids
        else None
    )

    def emit(row: dict[str, Any]) -> None:
        row = {**meta, "load": _load(), **row}
        if meter is not None and "shape" in row:
            row["cpu_s"] = round(meter.lap(), 2)
        if engine_meter is not None and "shape" in row:
            row["cpu_engine_s"] = round(engine_meter.lap(), 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if sink:
            sink.write(json.dumps(row) + "\n")
            sink.flush()

    try:
        if "lifecycle" in cases:
            if meter is not None:
                meter.lap()
            for round_no in range(1, args.rounds + 1):
                for row in lifecycle_cases(
                    client,
                    args.shapes.split(","),
                    [int(s) for s in args.sizes.split(",")],
                    args.type,
                    args.timeout,
                    args.actions.upper().split(","),
                ):
                    emit({**row, "round": round_no})
        if "read" in cases or "throughput" in cases:
            conc = [int(c) for c in args.concurrency.split(",")]
            for row in read_cases(
                client,
                args.timeout,
                conc,
                events="read" in cases,
                requests_total=args.requests,
            ):
                emit(row)
        if "validate" in cases:
            emit(validate_case(client))
    finally:
        if sink:
            sink.close()
    print(report.table(rows))
    if args.rounds > 1:
        print(report.table(report.medians(rows)))
    if args.compare:
        print(report.compare(rows, report.load(args.compare)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
