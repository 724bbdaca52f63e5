"""Concurrent GET throughput: requests per second and latency percentiles."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any

import requests

from bench.client import OrchestrationClient


def _percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, int(len(sorted_values) * fraction))
    return sorted_values[index]


def run(
    client: OrchestrationClient,
    path: str,
    concurrency: int,
    requests_total: int,
) -> dict[str, Any]:
    """GET ``path`` ``requests_total`` times from ``concurrency`` threads.

    Redirects are not followed, so a name-only path measures the lookup.
    Each thread keeps its own HTTP connection.
    """
    url = client.endpoint.url + path
    headers = dict(client.http.headers)
    local = threading.local()
    latencies: list[float] = []
    lock = threading.Lock()
    errors = 0

    def one(_: int) -> None:
        nonlocal errors
        sess = getattr(local, "sess", None)
        if sess is None:
            sess = local.sess = requests.Session()
        t0 = time.perf_counter()
        resp = sess.get(url, headers=headers, allow_redirects=False)
        elapsed = time.perf_counter() - t0
        with lock:
            latencies.append(elapsed)
            if resp.status_code >= 400:
                errors += 1

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(requests_total)))
    wall = time.perf_counter() - start
    latencies.sort()
    return {
        "requests": requests_total,
        "errors": errors,
        "req_per_s": requests_total / wall if wall else 0.0,
        "p50": _percentile(latencies, 0.50),
        "p99": _percentile(latencies, 0.99),
        "seconds": wall,
    }
