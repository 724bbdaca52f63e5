"""Throughput of the native API's two hottest reads (not a test).

Creates (unless told to reuse) 50 stacks and one stack with 100 outputs,
then hammers ``GET /stacks`` and ``GET /stacks/{name}/{id}`` at a given
concurrency for a fixed number of requests, and prints requests per
second with p50 and p99 latencies.

    python bench/api_throughput.py http://127.0.0.1:8004/v1/<project> \\
        [--token TOKEN] [--concurrency 8] [--requests 2000]

The endpoint must be on this machine or a test host of the project. The
request loop is bounded by ``--requests`` and ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
import time
import uuid
from typing import Any

import requests

OUTPUTS = 100
STACKS = 50


def session(token: str | None) -> requests.Session:
    s = requests.Session()
    s.headers["Accept"] = "application/json"
    if token:
        s.headers["X-Auth-Token"] = token
    return s


def outputs_template(count: int) -> dict[str, Any]:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {"r": {"type": "OS::Heat::None"}},
        "outputs": {
            f"out{i}": {"value": f"value {i}", "description": f"output {i}"}
            for i in range(count)
        },
    }


def create(s: requests.Session, url: str, name: str, tmpl: Any) -> str:
    resp = s.post(
        url + "/stacks",
        json={"stack_name": name, "template": tmpl},
        timeout=60,
    )
    resp.raise_for_status()
    return str(resp.headers["Location"])


def wait_complete(s: requests.Session, location: str, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        status = s.get(location, timeout=60).json()["stack"]["stack_status"]
        if not status.endswith("IN_PROGRESS"):
            return
        time.sleep(0.5)


def prepare(url: str, token: str | None) -> str:
    """Create the stacks; return the URL of the one with the outputs."""
    s = session(token)
    run = uuid.uuid4().hex[:8]
    small = outputs_template(0)
    have = len(s.get(url + "/stacks", timeout=60).json()["stacks"])
    for i in range(max(0, STACKS - 1 - have)):
        create(s, url, f"bench-{run}-{i}", small)
    location = create(
        s, url, f"bench-{run}-outputs", outputs_template(OUTPUTS)
    )
    wait_complete(s, location, 120)
    return location


def measure(
    target: str,
    token: str | None,
    concurrency: int,
    total: int,
    max_seconds: float,
) -> dict[str, float]:
    """Send ``total`` GETs with ``concurrency`` workers; return stats."""
    sessions = [session(token) for _ in range(concurrency)]
    deadline = time.monotonic() + max_seconds
    latencies: list[float] = []
    errors = 0

    def worker(index: int) -> tuple[list[float], int]:
        s = sessions[index]
        mine: list[float] = []
        bad = 0
        for _ in range(total // concurrency):
            if time.monotonic() > deadline:
                break
            start = time.perf_counter()
            resp = s.get(target, timeout=60)
            mine.append(time.perf_counter() - start)
            bad += resp.status_code != 200
        return mine, bad

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        for mine, bad in pool.map(worker, range(concurrency)):
            latencies += mine
            errors += bad
    elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "requests": len(latencies),
        "errors": errors,
        "rps": len(latencies) / elapsed if elapsed else 0.0,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else 0,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000
        if latencies
        else 0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("endpoint", help="…/v1/<project_id>")
    parser.add_argument("--token", help="a Keystone token (X-Auth-Token)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--max-seconds", type=float, default=120)
    parser.add_argument(
        "--stack-url", help="reuse this stack instead of creating stacks"
    )
    args = parser.parse_args(argv)
    url = args.endpoint.rstrip("/")
    stack = args.stack_url or prepare(url, args.token)
    for label, target in (
        (f"GET /stacks ({STACKS} stacks)", url + "/stacks"),
        (f"GET /stacks/{{name}}/{{id}} ({OUTPUTS} outputs)", stack),
    ):
        stats = measure(
            target,
            args.token,
            args.concurrency,
            args.requests,
            args.max_seconds,
        )
        print(
            f"{label}: {stats['requests']} requests, {stats['errors']} "
            f"errors, {stats['rps']:.1f} req/s, p50 {stats['p50_ms']:.1f} ms, "
            f"p99 {stats['p99_ms']:.1f} ms, concurrency {args.concurrency}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
