"""CPU time used by the service's processes between two points.

Elapsed seconds on a shared, overloaded machine say more about the
neighbours than about the service; the CPU seconds the service's own
processes spent on a case do not depend on the load as much. Linux only
(``/proc/<pid>/stat``); other systems get no figure.
"""

from __future__ import annotations

import os

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of one process (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return 0.0
    # The command name (field 2) may hold spaces: split after its ")".
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


class CpuMeter:
    """CPU seconds of a set of processes since the previous lap.

    :param pids: the processes to add up (engine and API workers).
    """

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self._last = self._total()

    def _total(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def lap(self) -> float:
        """CPU seconds since the last call (or since creation)."""
        now = self._total()
        spent, self._last = now - self._last, now
        return spent
