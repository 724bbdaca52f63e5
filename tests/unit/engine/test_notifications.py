import datetime

from keel_heat_core.model import rows as r
from keel_heat_core.service.notifications import StackNotifier


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, object]]] = []

    def info(
        self, ctxt: object, kind: str, payload: dict[str, object]
    ) -> None:
        self.sent.append(("info", kind, payload))

    def error(
        self, ctxt: object, kind: str, payload: dict[str, object]
    ) -> None:
        self.sent.append(("error", kind, payload))


def stack(status: str, reason: str) -> r.StackRow:
    return r.StackRow(
        id="s-1",
        name="web",
        action="CREATE",
        status=status,
        status_reason=reason,
        raw_template_id=1,
        current_traversal="t",
        tenant="p-1",
        username="demo",
        created_at=datetime.datetime(2026, 11, 29, 12, 0, 5),
    )


def test_event_types_levels_and_payload() -> None:
    rec = Recorder()
    notifier = StackNotifier(rec)
    notifier.stack_state(None, stack("IN_PROGRESS", "Stack CREATE started"))
    notifier.stack_state(None, stack("FAILED", "boom"))
    assert [(lvl, kind) for lvl, kind, _ in rec.sent] == [
        ("info", "orchestration.stack.create.start"),
        ("error", "orchestration.stack.create.error"),
    ]
    payload = rec.sent[0][2]
    assert payload == {
        "tenant_id": "p-1",
        "user_id": "demo",
        "user_identity": None,
        "username": "demo",
        "stack_identity": "s-1",
        "stack_name": "web",
        "state": "CREATE_IN_PROGRESS",
        "state_reason": "Stack CREATE started",
        "create_at": "2026-11-29T12:00:05Z",
        "updated_at": None,
        "tags": [],
        "description": "",
    }


def test_tags_and_description_come_from_details() -> None:
    rec = Recorder()
    asked: list[str] = []

    def details(row: r.StackRow) -> tuple[list[str] | None, str]:
        asked.append(row.id)
        return ["a", "b"], "the web tier"

    StackNotifier(rec, details=details).stack_state(
        None, stack("COMPLETE", "done")
    )
    payload = rec.sent[0][2]
    assert (payload["tags"], payload["description"]) == (
        ["a", "b"],
        "the web tier",
    )
    assert asked == ["s-1"]


def test_nothing_without_a_driver() -> None:
    StackNotifier(None).stack_state(None, stack("COMPLETE", "done"))
