"""Is the engine holding a lock alive? Its heartbeat, then the probe.

The listening probe alone (Heat's test) takes an engine for dead when
its answer does not come back in time. Right after a broker restart the
answer can be lost although the engine is working (its listener queue is
not declared again yet), and stealing the locks of a working engine
makes two engines act on one resource. An engine is therefore dead only
when *both* say so: its ``service`` row has not been refreshed for
``max_age`` seconds (it writes one every ``periodic_interval``) and it
does not answer the probe. A database outage stops the heartbeats but
not the probe; a broker outage the other way round.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from keel_heat_core.worker.deps import Liveness, utcnow

LOG = logging.getLogger(__name__)


class HeartbeatLiveness:
    """:class:`Liveness` from the heartbeat rows and a probe.

    :param probe: the listening probe.
    :param last_seen: the time of an engine's last heartbeat (naive UTC),
        None when it has no live row (never started, or stopped cleanly).
    :param max_age: seconds after which a heartbeat is stale.
    """

    def __init__(
        self,
        probe: Liveness,
        last_seen: Callable[[str], datetime.datetime | None],
        max_age: float,
        now: Callable[[], datetime.datetime] = utcnow,
    ) -> None:
        self.probe = probe
        self.last_seen = last_seen
        self.max_age = max_age
        self.now = now

    def _fresh(self, engine_id: str) -> bool:
        try:
            seen = self.last_seen(engine_id)
        except Exception:
            LOG.warning("Heartbeat of engine %s unreadable", engine_id)
            return False  # the probe decides alone
        if seen is None:
            return False
        return (self.now() - seen).total_seconds() <= self.max_age

    def is_alive(self, engine_id: str) -> bool:
        """Fresh heartbeat (no probe then), or an answer to the probe."""
        if self._fresh(engine_id):
            return True
        return self.probe.is_alive(engine_id)
