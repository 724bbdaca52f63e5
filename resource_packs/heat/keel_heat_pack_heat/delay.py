"""``OS::Heat::Delay``: wait a while during chosen actions."""

from __future__ import annotations

import datetime
import random
from typing import Any

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class Delay(api.Resource):
    """Pauses the stack for a while during the chosen actions.

    Place it between resources with dependencies: during CREATE and
    SUSPEND the pause happens after what it depends on and before what
    depends on it; during DELETE and RESUME, the other way round.  The
    pause lasts ``min_wait`` seconds plus a random jitter of up to
    ``max_jitter`` times ``jitter_multiplier`` seconds, which spreads the
    load when many resources start at once.
    """

    support_status = api.SupportStatus(version="11.0.0")

    PROPERTIES = (
        MIN_WAIT_SECS,
        MAX_JITTER,
        JITTER_MULTIPLIER_SECS,
        ACTIONS,
    ) = (
        "min_wait",
        "max_jitter",
        "jitter_multiplier",
        "actions",
    )
    _ALLOWED_ACTIONS = (
        api.Resource.CREATE,
        api.Resource.DELETE,
        api.Resource.SUSPEND,
        api.Resource.RESUME,
    )

    properties_schema = {
        MIN_WAIT_SECS: Schema(
            Schema.NUMBER,
            "Seconds to wait at least.",
            update_allowed=True,
            default=0,
            constraints=[api.constraints.Range(min=0)],
        ),
        MAX_JITTER: Schema(
            Schema.NUMBER,
            "The most random jitter to add, in jitter_multiplier units.",
            update_allowed=True,
            default=0,
            constraints=[api.constraints.Range(min=0)],
        ),
        JITTER_MULTIPLIER_SECS: Schema(
            Schema.NUMBER,
            "Seconds per unit of max_jitter.",
            update_allowed=True,
            default=1.0,
            constraints=[api.constraints.Range(min=0)],
        ),
        ACTIONS: Schema(
            Schema.LIST,
            "The actions during which to wait.",
            update_allowed=True,
            default=[api.Resource.CREATE],
            constraints=[api.constraints.AllowedValues(_ALLOWED_ACTIONS)],
        ),
    }

    def _wait_secs(self, action: str) -> float:
        if action not in self.properties[self.ACTIONS]:
            return 0
        jitter = (
            self.properties[self.MAX_JITTER]
            * self.properties[self.JITTER_MULTIPLIER_SECS]
        )
        return float(self.properties[self.MIN_WAIT_SECS]) + (
            jitter * random.random()  # noqa: S311 - not for security
        )

    def _handle_action(self) -> tuple[datetime.datetime, float]:
        return _utcnow(), self._wait_secs(self.action)

    def _check_complete(
        self, started_at: datetime.datetime, wait_secs: float
    ) -> bool:
        if not wait_secs:
            return True
        elapsed = (_utcnow() - started_at).total_seconds()
        if elapsed >= wait_secs:
            return True
        remaining = wait_secs - elapsed
        if remaining >= 4:
            raise api.PollDelay(int(remaining // 2))
        return False

    def handle_create(self) -> Any:
        return self._handle_action()

    def check_create_complete(self, cookie: Any) -> bool:
        return self._check_complete(*cookie)

    def handle_delete(self) -> Any:
        return self._handle_action()

    def check_delete_complete(self, cookie: Any) -> bool:
        return self._check_complete(*cookie)

    def handle_suspend(self) -> Any:
        return self._handle_action()

    def check_suspend_complete(self, cookie: Any) -> bool:
        return self._check_complete(*cookie)

    def handle_resume(self) -> Any:
        return self._handle_action()

    def check_resume_complete(self, cookie: Any) -> bool:
        return self._check_complete(*cookie)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        # Every property may change in place; nothing to do until the
        # next action.
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
