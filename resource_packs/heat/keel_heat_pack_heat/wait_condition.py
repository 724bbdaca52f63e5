"""Wait conditions: pause the stack until enough signals arrive."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.identifier import HeatIdentifier
from keel_heat_pack_heat.wait_condition_handle import (
    BaseWaitConditionHandle,
    WaitConditionHandle,
)

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema


class WaitConditionFailure(api.exception.Error):
    """A FAILURE signal arrived; the message joins the failure reasons."""

    def __init__(self, wait_condition: Any, handle: Any) -> None:
        reasons = handle.get_status_reason(handle.STATUS_FAILURE)
        super().__init__(";".join(reasons))


class WaitConditionTimeout(api.exception.Error):
    """Not enough signals in time: ``<n> of <count> received``."""

    def __init__(self, wait_condition: Any, handle: Any) -> None:
        reasons = handle.get_status_reason(handle.STATUS_SUCCESS)
        count = wait_condition.properties[wait_condition.COUNT]
        message = f"{len(reasons)} of {count} received"
        if reasons:
            message += " - " + ";".join(reasons)
        super().__init__(message)


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class HeatWaitCondition(api.Resource):
    """Waits for ``count`` success signals on its handle.

    Creation (and update) completes once ``count`` SUCCESS signals reached
    the handle; it fails at the first FAILURE signal, or after ``timeout``
    seconds.  The ``data`` attribute maps each signal id to its data.
    """

    support_status = api.SupportStatus(version="2014.2")

    PROPERTIES = (HANDLE, TIMEOUT, COUNT) = ("handle", "timeout", "count")
    ATTRIBUTES = (DATA,) = ("data",)

    properties_schema = {
        HANDLE: Schema(
            Schema.STRING,
            "The handle (its reference) that receives the signals.",
            required=True,
        ),
        TIMEOUT: Schema(
            Schema.NUMBER,
            "Seconds to wait for the signals.",
            required=True,
            constraints=[api.constraints.Range(1, 43200)],
        ),
        COUNT: Schema(
            Schema.INTEGER,
            "How many success signals to wait for.",
            constraints=[api.constraints.Range(min=1)],
            default=1,
            update_allowed=True,
        ),
    }

    attributes_schema = {
        DATA: api.attributes.Schema(
            "JSON text mapping each signal id to the data it carried.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
    }

    def _get_handle_resource(self) -> Any:
        return self.stack.resource_by_refid(self.properties[self.HANDLE])

    def _validate_handle_resource(self, handle: Any) -> None:
        if isinstance(handle, BaseWaitConditionHandle):
            return
        name = handle.name if handle else self.properties[self.HANDLE]
        raise ValueError(f"{name} is not a valid wait condition handle.")

    def _wait(
        self, handle: Any, started_at: datetime.datetime, timeout: float
    ) -> bool:
        if _utcnow() - started_at > datetime.timedelta(seconds=timeout):
            raise WaitConditionTimeout(self, handle)
        statuses = handle.get_status()
        if any(s != handle.STATUS_SUCCESS for s in statuses):
            raise WaitConditionFailure(self, handle)
        if len(statuses) >= self.properties[self.COUNT]:
            LOG.info("%s Succeeded", self)
            return True
        return False

    def handle_create(self) -> tuple[Any, datetime.datetime, float]:
        handle = self._get_handle_resource()
        self._validate_handle_resource(handle)
        return handle, _utcnow(), float(self.properties[self.TIMEOUT])

    def check_create_complete(self, data: Any) -> bool:
        return self._wait(*data)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> tuple[Any, datetime.datetime, float]:
        if prop_diff:
            self.properties = json_snippet.properties(
                self.properties_schema, self.context
            )
        handle = self._get_handle_resource()
        return handle, _utcnow(), float(self.properties[self.TIMEOUT])

    def check_update_complete(self, data: Any) -> bool:
        return self._wait(*data)

    def handle_delete(self) -> None:
        handle = self._get_handle_resource()
        if handle:
            handle.metadata_set({})

    def _resolve_attribute(self, key: str) -> Any:
        handle = self._get_handle_resource()
        if handle is None:
            return ""
        if key == self.DATA:
            meta = handle.metadata_get(refresh=True)
            return json.dumps({k: meta[k][handle.DATA] for k in meta})
        return None


class WaitCondition(HeatWaitCondition):
    """Waits for ``Count`` success signals on a CloudFormation handle.

    ``Handle`` is the reference (pre-signed URL) of an
    ``AWS::CloudFormation::WaitConditionHandle`` of the same stack.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (HANDLE, TIMEOUT, COUNT) = ("Handle", "Timeout", "Count")
    ATTRIBUTES = (DATA,) = ("Data",)

    properties_schema = {
        HANDLE: Schema(
            Schema.STRING,
            "The handle's pre-signed URL.",
            required=True,
        ),
        TIMEOUT: Schema(
            Schema.INTEGER,
            "Seconds to wait for the signals.",
            required=True,
            constraints=[api.constraints.Range(1, 43200)],
        ),
        COUNT: Schema(
            Schema.INTEGER,
            "How many success signals to wait for.",
            constraints=[api.constraints.Range(min=1)],
            default=1,
            update_allowed=True,
        ),
    }

    attributes_schema = {
        DATA: api.attributes.Schema(
            "JSON text mapping each signal id to the data it carried.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
    }

    def _handle_identifier(self) -> HeatIdentifier:
        return HeatIdentifier.from_arn_url(self.properties[self.HANDLE])

    def _validate_handle_url(self) -> None:
        handle_id = self._handle_identifier()
        if handle_id.tenant != self.context.project_id:
            raise ValueError(
                f"WaitCondition invalid Handle tenant {handle_id.tenant}"
            )
        if handle_id.stack_name != self.stack.name:
            raise ValueError(
                f"WaitCondition invalid Handle stack {handle_id.stack_name}"
            )
        if handle_id.stack_id != self.stack.id:
            raise ValueError(
                f"WaitCondition invalid Handle stack {handle_id.stack_id}"
            )
        handle = self.stack.resource_get(handle_id.resource_name or "")
        if not isinstance(handle, WaitConditionHandle):
            raise ValueError(
                f"WaitCondition invalid Handle {handle_id.resource_name}"
            )

    def handle_create(self) -> tuple[Any, datetime.datetime, float]:
        self._validate_handle_url()
        return super().handle_create()
