"""Test outcomes, the summary file and the closing line.

Every suite turns what its runner said into :class:`Outcome` rows; the
:class:`Report` counts them, groups the failures by their first line (with
ids, names and numbers blurred so that one cause gives one group) and
writes the summary that the harness prints and keeps in its work folder.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"

#: Test ids listed under each failure cause in the summary (all of them
#: are in ``tests.tsv``).
SHOWN_PER_CAUSE = 12

#: Tests running at least this long (seconds) are listed as slow.
SLOW = 30.0

_UUID = re.compile(
    r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}",
    re.IGNORECASE,
)
_RAND_NAME = re.compile(r"(?<=[A-Za-z_])-?\d{4,}")
_HEX = re.compile(r"\b[0-9a-f]{16,}\b", re.IGNORECASE)
_ADDRESS = re.compile(r"0x[0-9a-f]+", re.IGNORECASE)
_PORT = re.compile(r"127\.0\.0\.1:\d+")
# Heat's 12-character physical-name suffixes (with a digit, so that a
# 12-letter word survives).
_SHORT_ID = re.compile(r"\b(?=[a-z]*\d)[a-z0-9]{12}\b")


@dataclass(frozen=True)
class Outcome:
    """The result of one test.

    :ivar suite: ``api``, ``functional`` or ``gophercloud``.
    :ivar test_id: the runner's name for the test.
    :ivar status: :data:`PASSED`, :data:`FAILED` or :data:`SKIPPED`.
    :ivar reason: the first line of the failure, or the skip reason.
    :ivar seconds: how long it ran, when the runner said.
    """

    suite: str
    test_id: str
    status: str
    reason: str = ""
    seconds: float | None = None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FAULT = re.compile(
    r'"code": (?P<code>\d+).*?"type": "(?P<type>[^"]+)".*?'
    r'"message": "(?P<message>(?:[^"\\]|\\.)*)"',
    re.DOTALL,
)


def readable(text: str) -> str:
    """Return a failure line without colours, a Heat fault made short.

    A Heat error body (``{"code", "title", "explanation", "error": {"type",
    "message"}}``, possibly JSON-escaped inside a client's message) is
    replaced by ``HTTP code Type: message``; the text before it stays.

    :param text: the first line of a failure.
    """
    text = " ".join(_ANSI.sub("", text).split())
    unescaped = text.replace('\\"', '"')
    fault = _FAULT.search(unescaped)
    if fault is None:
        return text
    before = unescaped[: unescaped.find("{")].strip()
    before = before.removesuffix('"').strip()
    message = fault["message"].replace("\\\\", "\\")
    short = f"HTTP {fault['code']} {fault['type']}: {message}"
    return f"{before} {short}" if before else short


def cause_of(reason: str) -> str:
    """Return ``reason`` with ids, random names and ports blurred.

    Failures that differ only in a stack id or a random stack name then
    land in the same group.

    :param reason: the first line of a failure.
    """
    text = _UUID.sub("<id>", reason)
    text = _HEX.sub("<hex>", text)
    text = _ADDRESS.sub("<addr>", text)
    text = _PORT.sub("127.0.0.1:<port>", text)
    text = _RAND_NAME.sub("-<n>", text)
    text = _SHORT_ID.sub("<rand>", text)
    return text.strip()[:300]


def exception_line(traceback: str) -> str:
    """Return the exception a Python traceback ends with, on one line.

    That is the first unindented line after the last ``File ...`` frame;
    when it ends with a colon (gabbi's "response:"), the lines after it
    (the response body) are joined to it. Text without frames gives its
    first non-empty line.

    :param traceback: a formatted traceback or any failure text.
    """
    lines = traceback.splitlines()
    last_frame = -1
    for index, line in enumerate(lines):
        if line.startswith("  File "):
            last_frame = index
    if last_frame >= 0:
        for index in range(last_frame + 1, len(lines)):
            line = lines[index]
            if line.strip() and not line.startswith(" "):
                if line.rstrip().endswith(":"):
                    line = " ".join(lines[index:])
                return " ".join(line.split())[:2000]
    for line in lines:
        if line.strip():
            return line.strip()
    return ""


@dataclass
class Report:
    """Outcomes of every suite plus what went wrong around them.

    :ivar outcomes: one row per test.
    :ivar notes: deployment problems and other remarks for the summary.
    """

    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, outcomes: list[Outcome]) -> None:
        """Append the outcomes of one suite."""
        self.outcomes.extend(outcomes)

    def note(self, text: str) -> None:
        """Record a remark shown at the top of the summary."""
        self.notes.append(text)

    def counts(self, suite: str | None = None) -> Counter[str]:
        """Count outcomes by status, of one suite or of all."""
        return Counter(
            o.status
            for o in self.outcomes
            if suite is None or o.suite == suite
        )

    def suites(self) -> list[str]:
        """Return the suites in the order they were added."""
        return list(dict.fromkeys(o.suite for o in self.outcomes))

    def closing_line(self) -> str:
        """Return ``conformance: N passed, N failed, N skipped``."""
        c = self.counts()
        return (
            f"conformance: {c[PASSED]} passed, {c[FAILED]} failed, "
            f"{c[SKIPPED]} skipped"
        )

    def render(self) -> str:
        """Return the readable summary, closing line last."""
        out: list[str] = ["keel-heat conformance summary", ""]
        if self.notes:
            out.append("Notes:")
            out.extend(f"  - {note}" for note in self.notes)
            out.append("")
        for suite in self.suites():
            c = self.counts(suite)
            out.append(
                f"{suite}: {c[PASSED]} passed, {c[FAILED]} failed, "
                f"{c[SKIPPED]} skipped"
            )
        out.append("")
        out.extend(self._grouped(FAILED, "Failures by cause"))
        out.extend(self._grouped(SKIPPED, "Skips by reason"))
        out.extend(self._slowest())
        out.append(self.closing_line())
        return "\n".join(out) + "\n"

    def _grouped(self, status: str, title: str) -> list[str]:
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            if o.status == status:
                groups[cause_of(o.reason) or "(no message)"].append(o)
        if not groups:
            return []
        out = [f"{title}:"]
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for cause, rows in ranked:
            out.append(f"  [{len(rows)}] {cause}")
            if status == FAILED:
                out.extend(
                    f"        {o.suite}: {o.test_id}"
                    for o in rows[:SHOWN_PER_CAUSE]
                )
                if len(rows) > SHOWN_PER_CAUSE:
                    more = len(rows) - SHOWN_PER_CAUSE
                    out.append(f"        ... and {more} more (tests.tsv)")
        out.append("")
        return out

    def _slowest(self) -> list[str]:
        timed = [o for o in self.outcomes if (o.seconds or 0) >= SLOW]
        if not timed:
            return []
        timed.sort(key=lambda o: -(o.seconds or 0))
        out = [f"Slowest tests (over {SLOW:.0f}s):"]
        out.extend(
            f"  {o.seconds:6.0f}s {o.status:7} {o.suite}: {o.test_id}"
            for o in timed[:SHOWN_PER_CAUSE]
        )
        out.append("")
        return out

    def render_tests(self) -> str:
        """Return one line per test: suite, status, seconds, id, reason."""
        return "".join(
            f"{o.suite}\t{o.status}\t"
            f"{'' if o.seconds is None else f'{o.seconds:.1f}'}\t"
            f"{o.test_id}\t{o.reason}\n"
            for o in self.outcomes
        )

    def write(self, folder: Path) -> str:
        """Write ``summary.txt`` and ``tests.tsv``; return the summary.

        :param folder: the run's work folder.
        """
        (folder / "tests.tsv").write_text(self.render_tests())
        text = self.render()
        (folder / "summary.txt").write_text(text)
        return text


def first_line(text: str) -> str:
    """Return the first non-empty line of ``text`` (or ``text``)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return text.strip()


def not_run(suite: str, test_ids: list[str], why: str) -> list[Outcome]:
    """Return failures for tests that never ran, with the reason.

    :param suite: the suite name.
    :param test_ids: the tests that should have run.
    :param why: what stopped them.
    """
    return [
        Outcome(suite, test_id, FAILED, f"not run: {why}")
        for test_id in test_ids
    ]
