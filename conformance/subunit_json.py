"""Turn a subunit v2 stream into JSON lines (run with the tempest venv).

This file is executed by the tempest venv's interpreter, which has
python-subunit and testtools; it imports nothing of keel-heat. Each
finished (or interrupted) test gives one line: ``{"id", "status",
"details", "seconds"}`` where ``details`` maps detail names
(``traceback``, ``reason``) to text.

Usage: ``python subunit_json.py < run.subunit > run.jsonl``
"""

import json
import sys
from typing import Any

import subunit
import testtools


def _text(content: Any) -> str:
    try:
        raw = b"".join(bytes(chunk) for chunk in content.iter_bytes())
    except Exception as exc:  # a detail we cannot read is still a result
        return f"<unreadable detail: {exc}>"
    return raw.decode("utf-8", "replace")


def _seconds(test: dict[str, Any]) -> float | None:
    start, stop = test.get("timestamps") or (None, None)
    if start is None or stop is None:
        return None
    return float((stop - start).total_seconds())


def _emit(test: dict[str, Any]) -> None:
    # "inprogress": the test was still running when the stream ended.
    if test["status"] in ("exists", None):
        return
    details = {name: _text(c) for name, c in test["details"].items()}
    line = {
        "id": test["id"],
        "status": test["status"],
        "details": details,
        "seconds": _seconds(test),
    }
    sys.stdout.write(json.dumps(line) + "\n")


def main() -> None:
    stream = subunit.ByteStreamToStreamResult(
        sys.stdin.buffer, non_subunit_name="stdout"
    )
    result = testtools.StreamToDict(_emit)
    result.startTestRun()
    try:
        stream.run(result)
    finally:
        result.stopTestRun()


if __name__ == "__main__":
    main()
