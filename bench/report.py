"""Markdown tables and run-to-run comparison for benchmark rows."""

from __future__ import annotations

import json
from typing import Any


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies a case across runs."""
    return (
        row.get("case"),
        row.get("shape"),
        row.get("n"),
        row.get("concurrency"),
    )


def load(path: str) -> list[dict[str, Any]]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _fmt(row: dict[str, Any]) -> str:
    if "req_per_s" in row:
        return (
            f"{row['req_per_s']:.1f} req/s, p50 {row['p50'] * 1e3:.1f}"
            f" ms, p99 {row['p99'] * 1e3:.1f} ms"
        )
    return f"{row['seconds']:.3f} s"


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


def compare(mine: list[dict[str, Any]], other: list[dict[str, Any]]) -> str:
    """Ratio other/mine for times (higher is better for mine)."""
    theirs = {key(r): r for r in other}
    lines = [
        "| case | shape | n | concurrency | this | other | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in mine:
        peer = theirs.get(key(row))
        if peer is None:
            continue
        if "req_per_s" in row:
            ratio = row["req_per_s"] / max(peer["req_per_s"], 1e-9)
        else:
            ratio = peer["seconds"] / max(row["seconds"], 1e-9)
        lines.append(
            f"| {row.get('case')} | {row.get('shape', '')} "
            f"| {row.get('n', '')} | {row.get('concurrency', '')} "
            f"| {_fmt(row)} | {_fmt(peer)} | {ratio:.1f}x |"
        )
    return "\n".join(lines)
