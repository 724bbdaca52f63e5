"""An engine is dead only when its heartbeat is stale and it does not
answer the probe (keel_heat_core/worker/liveness.py)."""

import datetime

from keel_heat_core.worker.liveness import HeartbeatLiveness

NOW = datetime.datetime(2026, 12, 2, 2, 0, 0)


class Probe:
    def __init__(self, answers: bool) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def is_alive(self, engine_id: str) -> bool:
        self.asked.append(engine_id)
        return self.answers


def _liveness(
    probe: Probe, seen: datetime.datetime | None | Exception
) -> HeartbeatLiveness:
    def last_seen(engine_id: str) -> datetime.datetime | None:
        if isinstance(seen, Exception):
            raise seen
        return seen

    return HeartbeatLiveness(probe, last_seen, 3, now=lambda: NOW)


def test_fresh_heartbeat_is_alive_without_a_probe() -> None:
    """A broker restart loses the probe's answer: the heartbeat, written
    a second ago, keeps the engine's locks from being stolen."""
    probe = Probe(answers=False)
    alive = _liveness(probe, NOW - datetime.timedelta(seconds=1))
    assert alive.is_alive("e1")
    assert probe.asked == []


def test_stale_heartbeat_and_no_answer_is_dead() -> None:
    probe = Probe(answers=False)
    alive = _liveness(probe, NOW - datetime.timedelta(seconds=4))
    assert not alive.is_alive("e1")
    assert probe.asked == ["e1"]


def test_stale_heartbeat_but_an_answer_is_alive() -> None:
    """A database outage stops the heartbeats, not the probe."""
    assert _liveness(
        Probe(True), NOW - datetime.timedelta(seconds=60)
    ).is_alive("e1")


def test_no_row_or_unreadable_row_leaves_it_to_the_probe() -> None:
    assert not _liveness(Probe(False), None).is_alive("e1")
    assert _liveness(Probe(True), None).is_alive("e1")
    assert not _liveness(Probe(False), RuntimeError("db down")).is_alive("e1")
