"""Wait condition handles: where signals for a wait condition arrive.

A handle keeps each signal in its metadata as ``{<id>: {status, reason,
data}}``; a wait condition polls the handle until enough successes (or a
failure) arrived.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api import signal_responder as sr

Schema = api.properties.Schema


class BaseWaitConditionHandle(sr.SignalResponder):
    """Receives signals and stores them in its metadata."""

    properties_schema: Mapping[str, Any] = {}
    WAIT_STATUSES = (STATUS_FAILURE, STATUS_SUCCESS) = ("FAILURE", "SUCCESS")
    METADATA_KEYS: tuple[str, ...] = ("data", "reason", "status", "id")
    DATA, REASON, STATUS, UNIQUE_ID = METADATA_KEYS

    def handle_create(self) -> None:
        super().handle_create()
        self.resource_id_set(self._get_user_id())

    def _status_ok(self, status: Any) -> bool:
        return status in self.WAIT_STATUSES

    def _metadata_format_ok(self, metadata: Any) -> bool:
        if not isinstance(metadata, Mapping):
            return False
        if set(metadata) != set(self.METADATA_KEYS):
            return False
        return self._status_ok(metadata[self.STATUS])

    def normalise_signal_data(
        self, signal_data: Any, latest_metadata: Mapping[str, Any]
    ) -> Any:
        return signal_data

    def handle_signal(self, details: Any = None) -> str:
        attempts: list[dict[str, Any]] = []

        def merge(signal_data: Any, latest: dict[str, Any]) -> dict[str, Any]:
            signal_data = self.normalise_signal_data(signal_data, latest)
            if not self._metadata_format_ok(signal_data):
                raise ValueError("Metadata format invalid")
            entry = dict(signal_data)
            unique_id = str(entry.pop(self.UNIQUE_ID))
            merged = dict(latest)
            merged[unique_id] = entry
            attempts.append(signal_data)
            return merged

        self.metadata_set(details, merge_metadata=merge)
        data = attempts[-1]
        return f"status:{data[self.STATUS]} reason:{data[self.REASON]}"

    def get_status(self) -> list[str]:
        """The status of every signal received so far."""
        return [
            v[self.STATUS] for v in self.metadata_get(refresh=True).values()
        ]

    def get_status_reason(self, status: str) -> list[str]:
        """The reasons of the signals with ``status``."""
        return [
            v[self.REASON]
            for v in self.metadata_get(refresh=True).values()
            if v[self.STATUS] == status
        ]


class HeatWaitConditionHandle(BaseWaitConditionHandle):
    """The handle of an ``OS::Heat::WaitCondition``.

    Signal it with a POST of ``{"status": "SUCCESS"|"FAILURE", "reason":
    ..., "data": ..., "id": ...}`` (every key optional: the signal number
    is the default id, success the default status).  With the default
    ``TOKEN_SIGNAL`` transport, the ``token`` and ``endpoint`` attributes
    (and the ready-made ``curl_cli``) are enough to signal; other
    transports are described by the ``signal`` attribute.
    """

    support_status = api.SupportStatus(version="2014.2")

    PROPERTIES = (SIGNAL_TRANSPORT,) = ("signal_transport",)
    ATTRIBUTES = (TOKEN, ENDPOINT, CURL_CLI, SIGNAL) = (
        "token",
        "endpoint",
        "curl_cli",
        "signal",
    )

    properties_schema = {
        SIGNAL_TRANSPORT: Schema(
            Schema.STRING,
            "How the handle is signalled: a pre-signed heat-api-cfn URL "
            "(CFN_SIGNAL), a Swift temporary URL (TEMP_URL_SIGNAL), the "
            "Heat API with the handle's credentials (HEAT_SIGNAL) or token "
            "(TOKEN_SIGNAL), a Zaqar queue (ZAQAR_SIGNAL), or not at all "
            "(NO_SIGNAL).",
            default=sr.TOKEN_SIGNAL,
            constraints=[
                api.constraints.AllowedValues(list(sr.SIGNAL_TRANSPORTS))
            ],
            support_status=api.SupportStatus(version="6.0.0"),
        ),
    }

    attributes_schema = {
        TOKEN: api.attributes.Schema(
            "A token that lets the bearer signal the handle.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
        ENDPOINT: api.attributes.Schema(
            "The URL to POST signals to, with the token.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
        CURL_CLI: api.attributes.Schema(
            "A curl command line that signals the handle.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
        SIGNAL: api.attributes.Schema(
            "JSON description of how to signal, for the chosen transport.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
    }

    def handle_create(self) -> None:
        self.password = sr.generate_password()
        super().handle_create()
        if self.signal_transport() == sr.TOKEN_SIGNAL:
            self.data_set("token", self._user_token(), True)
            self.data_set(
                "endpoint", f"{self._get_resource_endpoint()}/signal"
            )

    def _get_resource_endpoint(self) -> str:
        endpoint = str(self.client_plugin("heat").get_heat_url())
        project = str(self.context.project_id)
        rsrc_ep = endpoint.replace(project, self.identifier().url_path())
        return rsrc_ep.replace(project, str(self.stack.stack_user_project_id))

    def _resolve_attribute(self, key: str) -> Any:
        if not self.resource_id:
            return None
        if key == self.SIGNAL:
            return json.dumps(
                self._get_signal(sr.WAITCONDITION, multiple_signals=True)
            )
        if key in (self.TOKEN, self.ENDPOINT):
            return self.data().get(key)
        if key == self.CURL_CLI:
            endpoint = self.data().get("endpoint")
            token = self.data().get("token")
            if endpoint is None or token is None:
                return None
            insecure = self.client_plugin("heat").get_insecure_option()
            return (
                "curl {}-i -X POST -H 'X-Auth-Token: {}' "
                "-H 'Content-Type: application/json' "
                "-H 'Accept: application/json' {}".format(
                    "--insecure " if insecure else "", token, endpoint
                )
            )
        return None

    def normalise_signal_data(
        self, signal_data: Any, latest_metadata: Mapping[str, Any]
    ) -> dict[str, Any]:
        signal_num = len(latest_metadata) + 1
        metadata = dict(signal_data) if signal_data else {}
        metadata.setdefault(self.REASON, f"Signal {signal_num} received")
        metadata.setdefault(self.DATA, None)
        metadata.setdefault(self.UNIQUE_ID, signal_num)
        metadata.setdefault(self.STATUS, self.STATUS_SUCCESS)
        return metadata


class WaitConditionHandle(BaseWaitConditionHandle):
    """The handle of an ``AWS::CloudFormation::WaitCondition``.

    Its reference is a pre-signed URL: PUT to it ``{"Status":
    "SUCCESS"|"FAILURE", "UniqueId": ..., "Data": ..., "Reason": ...}``
    (all four keys required).
    """

    support_status = api.SupportStatus(version="2014.1")
    METADATA_KEYS = ("Data", "Reason", "Status", "UniqueId")
    DATA, REASON, STATUS, UNIQUE_ID = METADATA_KEYS

    def signal_transport(self) -> str | None:
        return sr.CFN_SIGNAL

    def get_reference_id(self) -> str:
        if self.resource_id:
            return str(self._get_ec2_signed_url(signal_type=sr.WAITCONDITION))
        return str(self.name)

    def metadata_update(self, new_metadata: Any = None) -> None:
        self.handle_signal(details=new_metadata)

    def handle_signal(self, details: Any = None) -> str:  # type: ignore[override]
        if details is None:
            return ""
        return super().handle_signal(details)


class UpdateWaitConditionHandle(WaitConditionHandle):
    """A CloudFormation-style handle replaced at every stack update.

    Signals received before are dropped with the old handle, so senders
    must signal the new handle: UPDATE_COMPLETE then means the new
    configuration was applied everywhere.
    """

    support_status = api.SupportStatus(version="2014.1")

    def _needs_update(self, *args: Any, **kwargs: Any) -> bool:
        raise api.exception.UpdateReplace(self.name)
