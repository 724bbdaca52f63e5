"""``OS::Heat::TestResource``: a resource with knobs, for testing stacks."""

from __future__ import annotations

import datetime
import logging
import time
from typing import Any

from keel_heat_core import plugin_api as api

LOG = logging.getLogger(__name__)

Schema = api.properties.Schema


class TestConstraintDelay(api.constraints.BaseCustomConstraint):
    """The ``test_constr`` custom constraint: waits the value in seconds.

    Lets tests make validation slow on purpose; any number is valid.
    """

    def validate(self, value: Any, context: Any) -> bool:
        secs = min(float(value or 0), 60.0)
        if secs > 0:  # (a sleep of 0 still hands the GIL to every thread)
            time.sleep(secs)
        return True


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class TestResource(api.Resource):
    """Stores a string and behaves as its properties say, for tests.

    It can fail (``fail``), wait after each action (``wait_secs`` and
    ``action_wait_secs``), ask to be replaced on update
    (``update_replace``, or any change of ``update_replace_value``), poll a
    real client while waiting (``client_name`` and ``entity_name``), slow
    down validation (``constraint_prop_secs``) or attribute reads
    (``attr_wait_secs``).  Use it only to test templates and the engine.
    """

    __test__ = False  # not a pytest test class

    support_status = api.SupportStatus(version="5.0.0")

    ACTION_TIMES = (CREATE_WAIT_SECS, UPDATE_WAIT_SECS, DELETE_WAIT_SECS) = (
        "create",
        "update",
        "delete",
    )
    PROPERTIES = (
        VALUE,
        UPDATE_REPLACE,
        FAIL,
        CLIENT_NAME,
        ENTITY_NAME,
        WAIT_SECS,
        ACTION_WAIT_SECS,
        ATTR_WAIT_SECS,
        CONSTRAINT_PROP_SECS,
        UPDATE_REPLACE_VALUE,
    ) = (
        "value",
        "update_replace",
        "fail",
        "client_name",
        "entity_name",
        "wait_secs",
        "action_wait_secs",
        "attr_wait_secs",
        "constraint_prop_secs",
        "update_replace_value",
    )
    ATTRIBUTES = (OUTPUT,) = ("output",)

    properties_schema = {
        CONSTRAINT_PROP_SECS: Schema(
            Schema.NUMBER,
            "Seconds the test_constr custom constraint waits while "
            "validating.",
            constraints=[api.constraints.CustomConstraint("test_constr")],
            default=0,
            update_allowed=True,
        ),
        ATTR_WAIT_SECS: Schema(
            Schema.NUMBER,
            "Seconds to wait before answering an attribute read.",
            default=0,
            update_allowed=True,
        ),
        VALUE: Schema(
            Schema.STRING,
            "The string to store.",
            default="test_string",
            update_allowed=True,
        ),
        FAIL: Schema(
            Schema.BOOLEAN,
            "Make create and update fail once their wait is over.",
            default=False,
            update_allowed=True,
        ),
        UPDATE_REPLACE: Schema(
            Schema.BOOLEAN,
            "Replace the resource, rather than updating it, when this "
            "becomes true.",
            default=False,
            update_allowed=True,
        ),
        UPDATE_REPLACE_VALUE: Schema(
            Schema.STRING,
            "Any change of this value replaces the resource.",
        ),
        WAIT_SECS: Schema(
            Schema.NUMBER,
            "Seconds to wait after each action; -1 waits for ever.",
            default=0,
            update_allowed=True,
        ),
        ACTION_WAIT_SECS: Schema(
            Schema.MAP,
            "Seconds to wait after a given action, instead of wait_secs.",
            update_allowed=True,
            schema={
                key: Schema(
                    Schema.NUMBER,
                    f"Seconds to wait after {key}.",
                    update_allowed=True,
                )
                for key in ACTION_TIMES
            },
        ),
        CLIENT_NAME: Schema(
            Schema.STRING,
            "A client to poll while waiting.",
            default="",
            update_allowed=True,
        ),
        ENTITY_NAME: Schema(
            Schema.STRING,
            "The entity of that client to poll while waiting.",
            default="",
            update_allowed=True,
        ),
    }

    attributes_schema = {
        OUTPUT: api.attributes.Schema(
            "The stored string (also the reference of the resource).",
            cache_mode=api.attributes.Schema.CACHE_NONE,
        ),
    }

    def _wait_secs(self) -> float:
        secs = self._wait_secs_of(self.action)
        LOG.info(
            "%s wait_secs:%s, action:%s", self.name, secs, self.action.lower()
        )
        return secs

    def _wait_secs_of(self, action: str) -> float:
        secs = None
        per_action = self.properties[self.ACTION_WAIT_SECS]
        if per_action:
            secs = per_action.get(action.lower())
        if secs is None:
            secs = self.properties[self.WAIT_SECS]
        return float(secs)

    def action_is_local(self, action: str) -> bool:
        # Without a wait or a client to poll, every action only stores
        # the value.
        return (
            action in (self.CREATE, self.UPDATE, self.DELETE)
            and not self.properties[self.CLIENT_NAME]
            and self._wait_secs_of(action) == 0
        )

    def handle_create(self) -> tuple[datetime.datetime, float]:
        if not self.properties[self.FAIL]:
            self.data_set("value", self.properties[self.VALUE], redact=False)
            self.resource_id_set(self.physical_resource_name())
        return _utcnow(), self._wait_secs()

    def needs_replace_with_prop_diff(
        self, changed_properties_set: Any, after_props: Any, before_props: Any
    ) -> bool:
        if self.UPDATE_REPLACE in changed_properties_set:
            return bool(after_props.get(self.UPDATE_REPLACE))
        return False

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> tuple[datetime.datetime, float]:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        value = prop_diff.get(self.VALUE)
        if value:
            if not self.properties[self.FAIL]:
                self.data_set("value", value, redact=False)
            return _utcnow(), self._wait_secs()
        return _utcnow(), 0

    def handle_delete(self) -> tuple[datetime.datetime, float]:
        return _utcnow(), self._wait_secs()

    def handle_check(self) -> None:
        # a resource whose create failed has no physical resource
        if not self.resource_id:
            raise Exception("Resource not created")

    def check_create_complete(self, cookie: Any) -> bool:
        return self._check_status_complete(*cookie)

    def check_update_complete(self, cookie: Any) -> bool:
        return self._check_status_complete(*cookie)

    def check_delete_complete(self, cookie: Any) -> bool:
        return self._check_status_complete(*cookie)

    def _simulated_effort(self) -> None:
        client_name = self.properties[self.CLIENT_NAME]
        entity = self.properties[self.ENTITY_NAME]
        if client_name and entity:
            entity_id = self.data().get("value") or self.resource_id
            try:
                getattr(self.client(name=client_name), entity).get(entity_id)
            except Exception as exc:
                LOG.debug("%s.%s(%s) %s", client_name, entity, entity_id, exc)

    def _check_status_complete(
        self, started_at: datetime.datetime | str, wait_secs: float
    ) -> bool:
        if isinstance(started_at, str):
            started_at = datetime.datetime.fromisoformat(started_at)
        if started_at.tzinfo is not None:
            started_at = started_at.astimezone(datetime.UTC).replace(
                tzinfo=None
            )
        waited = _utcnow() - started_at
        LOG.info(
            "Resource %s waited %s/%s seconds", self.name, waited, wait_secs
        )
        if wait_secs >= 0 and waited > datetime.timedelta(seconds=wait_secs):
            if self.properties[self.FAIL] and self.action != self.DELETE:
                raise ValueError(f"Test Resource failed {self.name}")
            return True
        self._simulated_effort()
        return False

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.OUTPUT:
            secs = self.properties[self.ATTR_WAIT_SECS]
            if secs:
                time.sleep(min(float(secs), 60.0))
            return self.data().get("value")
        return None

    def get_live_state(self, resource_properties: Any) -> dict[str, Any]:
        return {self.VALUE: self.data().get("value")}
