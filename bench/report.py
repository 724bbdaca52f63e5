"""Markdown tables and run-to-run comparison for benchmark rows."""

from __future__ import annotations

import json
import statistics
from typing import Any


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies a case across runs."""
    return (
        row.get("case"),
        row.get("shape"),
        row.get("n"),
        row.get("concurrency"),
    )


def _figure(row: dict[str, Any]) -> float:
    return float(row["req_per_s"] if "req_per_s" in row else row["seconds"])


def medians(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per label and case: the median of its completed runs.

    A case measured several times (``--rounds``, or runs appended to one
    file) is compared by its median, not by whichever run came last: on
    a shared machine one run can be 20 % off the next. The row keeps the
    first run's other fields and gains ``runs`` and ``spread`` (the
    lowest and highest figure). Rows that did not complete are left out
    unless no run of the case completed.
    """
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row.get("label"), *key(row)), []).append(row)
    out = []
    for runs in groups.values():
        done = [r for r in runs if r.get("status") != "ERROR"] or runs
        figures = sorted(_figure(r) for r in done)
        row = dict(done[0])
        field = "req_per_s" if "req_per_s" in row else "seconds"
        row[field] = statistics.median(figures)
        row["runs"] = len(figures)
        row["spread"] = [figures[0], figures[-1]]
        out.append(row)
    return out


def load(path: str) -> list[dict[str, Any]]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _fmt(row: dict[str, Any]) -> str:
    if "req_per_s" in row:
        text = (
            f"{row['req_per_s']:.1f} req/s, p50 {row['p50'] * 1e3:.1f}"
            f" ms, p99 {row['p99'] * 1e3:.1f} ms"
        )
    else:
        text = f"{row['seconds']:.3f} s"
    if row.get("runs", 1) > 1:
        low, high = row["spread"]
        text += f" (median of {row['runs']}, {low:.3g}-{high:.3g})"
    return text


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| case | shape | n | concurrency | result | status |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.get('case')} | {row.get('shape', '')} "
            f"| {row.get('n', '')} | {row.get('concurrency', '')} "
            f"| {_fmt(row)} | {row.get('status', '')} |"
        )
    return "\n".join(lines)


def ratio(row: dict[str, Any], peer: dict[str, Any]) -> float:
    """How many times better ``row`` is than ``peer`` (req/s or time)."""
    if "req_per_s" in row:
        return float(row["req_per_s"]) / max(peer["req_per_s"], 1e-9)
    return float(peer["seconds"]) / max(row["seconds"], 1e-9)


def _case(row: dict[str, Any]) -> str:
    return (
        f"| {row.get('case')} | {row.get('shape', '')} "
        f"| {row.get('n', '')} | {row.get('concurrency', '')}"
    )


def compare(mine: list[dict[str, Any]], other: list[dict[str, Any]]) -> str:
    """Ratio other/mine for times (higher is better for mine), median
    against median where a case ran more than once."""
    mine = medians(mine)
    theirs = {key(r): r for r in medians(other)}
    lines = [
        "| case | shape | n | concurrency | this | other | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in mine:
        peer = theirs.get(key(row))
        if peer is None:
            continue
        lines.append(
            f"{_case(row)} | {_fmt(row)} | {_fmt(peer)} "
            f"| {ratio(row, peer):.1f}x |"
        )
    return "\n".join(lines)


#: Heat 27.0.1 by the same driver on the same kind of machine (2 engine
#: workers, MariaDB, RabbitMQ, Keystone; issue 12): (shape, n, case) ->
#: seconds. ``None``: never completes.
HEAT27: dict[tuple[str, int, str], float | None] = {
    ("wide", 10, "create"): 9.4,
    ("wide", 10, "update"): 9.3,
    ("wide", 10, "delete"): 9.3,
    ("wide", 100, "create"): 101.5,
    ("wide", 100, "update"): 101.1,
    ("wide", 100, "delete"): 99.5,
    ("chain", 10, "create"): 0.64,
    ("chain", 10, "update"): 0.77,
    ("chain", 10, "delete"): 0.48,
    ("chain", 100, "create"): 5.3,
    ("chain", 100, "update"): 15.1,
    ("chain", 100, "delete"): 4.3,
    ("group", 10, "create"): 10.3,
    ("group", 10, "update"): 10.4,
    ("group", 10, "delete"): 10.3,
    ("group", 100, "create"): 100.7,
    ("group", 100, "update"): 100.7,
    ("group", 100, "delete"): 100.4,
    ("chain", 500, "create"): 111.8,
    ("chain", 500, "update"): None,
}


def lifecycle_matrix(runs: dict[str, list[dict[str, Any]]]) -> str:
    """One line per (shape, n, case), one column per run (the median of
    a case measured more than once), then Heat 27 and the ratio Heat/run
    for each run (above 1: faster than Heat)."""
    labels = list(runs)
    cells: dict[tuple[str, int, str], dict[str, dict[str, Any]]] = {}
    for label, rows in runs.items():
        for row in medians(rows):
            if "shape" in row:
                k = (row["shape"], row["n"], row["case"])
                cells.setdefault(k, {})[label] = row
    head = ["shape", "n", "case", *labels, "Heat 27"]
    head += [f"Heat/{label}" for label in labels]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in sorted(cells, key=lambda k: (k[0], k[1], _ORDER[k[2]])):
        heat = HEAT27.get(k)
        line = [k[0], str(k[1]), k[2]]
        ratios = []
        for label in labels:
            row = cells[k].get(label)
            if row is None:
                line.append("")
                ratios.append("")
            elif row.get("status") == "ERROR":
                line.append("error")
                ratios.append("")
            else:
                line.append(f"{row['seconds']:.2f} s")
                ratios.append(f"{heat / row['seconds']:.1f}x" if heat else "")
        line.append(
            "" if k not in HEAT27 else f"{heat} s" if heat else "never"
        )
        lines.append("| " + " | ".join(line + ratios) + " |")
    return "\n".join(lines)


_ORDER = {"create": 0, "update": 1, "delete": 2}


def vs_heat(rows: list[dict[str, Any]], heat: str = "heat27") -> str:
    """Rows labelled ``heat`` against every other label's, case by case.

    The ratio reads "times better than Heat": Heat's seconds over
    keel-heat's, or keel-heat's requests per second over Heat's. A case
    measured more than once is taken by its median (:func:`medians`).
    Each figure carries the 1-minute load average of its first run.
    """
    by_label: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
    for row in medians(rows):
        by_label.setdefault(row.get("label", "?"), {})[key(row)] = row
    theirs = by_label.pop(heat, {})
    lines = [
        "| case | shape | n | conc. | Heat 27.0.1 | load | "
        "keel-heat | load | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, mine in by_label.items():
        for k, row in mine.items():
            peer = theirs.get(k)
            if peer is None:
                continue
            lines.append(
                f"{_case(row)} | {_fmt(peer)} | {_load1(peer)} "
                f"| {_fmt(row)} ({label}) | {_load1(row)} "
                f"| {ratio(row, peer):.1f}x |"
            )
    return "\n".join(lines)


def _load1(row: dict[str, Any]) -> str:
    return str(row.get("load", "")).split(" ")[0]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.report A.jsonl B.jsonl ...``: the lifecycle
    matrix of several runs (the label of a file is its first row's);
    ``--vs-heat FILE``: the ``heat27`` rows of FILE against the others.
    """
    import sys

    paths = sys.argv[1:] if argv is None else argv
    if paths[:1] == ["--vs-heat"]:
        print(vs_heat([r for path in paths[1:] for r in load(path)]))
        return 0
    runs: dict[str, list[dict[str, Any]]] = {}
    for path in paths:
        rows = load(path)
        if rows:
            runs[rows[0].get("label", path)] = rows
    print(lifecycle_matrix(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
