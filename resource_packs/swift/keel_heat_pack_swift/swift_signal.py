"""``OS::Heat::SwiftSignalHandle`` and ``OS::Heat::SwiftSignal``.

The handle makes, in a container named after the stack's id, an object
named after the handle whose temporary ``PUT`` URL is the handle's
reference; the container keeps every version of its objects, so each
``PUT`` to the URL is one signal. The signal resource reads those
versions until ``count`` success signals are there, a failure signal
arrives, or ``timeout`` seconds pass.

A signal body is JSON with optional ``status`` (``SUCCESS`` or
``FAILURE``; SUCCESS by default), ``reason``, ``data`` and ``id`` (a
later signal with the same id replaces an earlier one); an empty body is
a success.
"""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any
from urllib import parse

from keel_heat_core import plugin_api as api

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema
Attr = api.attributes.Schema

#: The body of the handle's object before any signal (see the plugin).
IN_PROGRESS = "in progress"

STATUSES = (STATUS_FAILURE, STATUS_SUCCESS) = ("FAILURE", "SUCCESS")
SIGNAL_KEYS = (DATA, REASON, STATUS, UNIQUE_ID) = (
    "data",
    "reason",
    "status",
    "id",
)


def parse_signals(bodies: list[str]) -> list[dict[str, Any]]:
    """Signals from the object bodies, oldest first, with defaults set.

    The initial :data:`IN_PROGRESS` body is skipped; a signal whose id
    repeats an earlier one replaces it; ids default to the signal's
    position, reasons to ``Signal <id> received`` and status to SUCCESS.

    :raises Error: ``Failed to parse JSON data: <body>``.
    """
    parsed: list[dict[str, Any]] = []
    for body in bodies:
        if body == IN_PROGRESS:
            continue
        if body == "":
            parsed.append({})
            continue
        try:
            parsed.append(json.loads(body))
        except ValueError as ex:
            raise api.exception.Error(
                f"Failed to parse JSON data: {body}"
            ) from ex
    signals: list[dict[str, Any]] = []
    for number, signal in enumerate(parsed, start=1):
        if UNIQUE_ID in signal:
            signals = [
                s for s in signals if s.get(UNIQUE_ID) != signal[UNIQUE_ID]
            ]
        signal.setdefault(DATA, None)
        unique_id = signal.setdefault(UNIQUE_ID, number)
        signal.setdefault(REASON, f"Signal {unique_id} received")
        signal.setdefault(STATUS, STATUS_SUCCESS)
        signals.append(signal)
    return signals


class SwiftSignalFailure(api.exception.Error):
    """A FAILURE signal arrived; the message joins the failure reasons."""

    def __init__(self, signal: SwiftSignal) -> None:
        super().__init__(";".join(signal.get_status_reason(STATUS_FAILURE)))


class SwiftSignalTimeout(api.exception.Error):
    """Not enough signals in time: ``<n> of <count> received``."""

    def __init__(self, signal: SwiftSignal) -> None:
        reasons = signal.get_status_reason(STATUS_SUCCESS)
        message = (
            f"{len(reasons)} of {signal.properties[signal.COUNT]} received"
        )
        if reasons:
            message += " - " + ";".join(reasons)
        super().__init__(message)


class SwiftSignalHandle(api.Resource):
    """A temporary URL of Swift that an OS::Heat::SwiftSignal waits on.

    Whoever holds the URL (the ``endpoint`` attribute, also the
    resource's reference) signals with an HTTP PUT of a JSON body, e.g.
    ``curl -X PUT --data-binary '{"status": "SUCCESS"}' <url>``; no token
    is needed. The handle has no properties; deleting it deletes its
    signals and, when nothing else is in it, the stack's container.
    """

    support_status = api.SupportStatus(version="2014.2")
    default_client_name = "swift"

    ATTRIBUTES = (TOKEN, ENDPOINT, CURL_CLI) = (
        "token",
        "endpoint",
        "curl_cli",
    )

    attributes_schema = {
        TOKEN: Attr(
            "Always empty: a temporary URL needs no token. Kept so that "
            "templates written for OS::Heat::WaitConditionHandle work.",
            cache_mode=Attr.CACHE_NONE,
            type=Attr.STRING,
        ),
        ENDPOINT: Attr(
            "The URL to PUT signals to.",
            cache_mode=Attr.CACHE_NONE,
            type=Attr.STRING,
        ),
        CURL_CLI: Attr(
            "The start of a curl command that signals the handle; add "
            '--data-binary \'{"status": "SUCCESS"}\' for a success or '
            '--data-binary \'{"status": "FAILURE"}\' for a failure.',
            cache_mode=Attr.CACHE_NONE,
            type=Attr.STRING,
        ),
    }

    def handle_create(self) -> None:
        name = str(self.physical_resource_name())
        url = self.client_plugin().get_signal_url(str(self.stack.id), name)
        self.data_set(self.ENDPOINT, url)
        self.resource_id_set(name)

    def _resolve_attribute(self, name: str) -> Any:
        if not self.resource_id:
            return None
        if name == self.TOKEN:
            return ""
        endpoint = self.data().get(self.ENDPOINT)
        if name == self.ENDPOINT:
            return endpoint
        if name == self.CURL_CLI:
            return f"curl -i -X PUT '{endpoint}'"
        return None

    def handle_delete(self) -> None:
        plugin = self.client_plugin()
        client = plugin.client()
        container = str(self.stack.id)
        name = str(self.physical_resource_name())
        # each delete removes the newest version and restores the one
        # before: repeat until none is left
        while True:
            try:
                client.delete_object(container, name)
            except Exception as ex:
                plugin.ignore_not_found(ex)
                break
        try:
            client.delete_container(container)
        except Exception as ex:
            # another handle of the stack may still use it
            if not (plugin.is_not_found(ex) or plugin.is_conflict(ex)):
                raise
        self.data_delete(self.ENDPOINT)

    def get_reference_id(self) -> str:
        return str(self.data().get(self.ENDPOINT))


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class SwiftSignal(api.Resource):
    """Waits for signals PUT to an OS::Heat::SwiftSignalHandle's URL.

    Creation completes once ``count`` success signals arrived; it fails at
    the first failure signal (with the failure reasons) or after
    ``timeout`` seconds (``<n> of <count> received``). The ``data``
    attribute maps each signal's id to its data, as JSON text.
    """

    support_status = api.SupportStatus(version="2014.2")
    default_client_name = "swift"

    PROPERTIES = (HANDLE, TIMEOUT, COUNT) = ("handle", "timeout", "count")
    ATTRIBUTES = (DATA_ATTR,) = (DATA,)
    STATUS_FAILURE = STATUS_FAILURE
    STATUS_SUCCESS = STATUS_SUCCESS

    properties_schema = {
        HANDLE: Schema(
            Schema.STRING,
            "The handle's temporary URL (its reference), where signals "
            "and their data arrive.",
            required=True,
        ),
        TIMEOUT: Schema(
            Schema.NUMBER,
            "Seconds to wait for the signals before creation fails.",
            required=True,
            constraints=[api.constraints.Range(1, 43200)],
        ),
        COUNT: Schema(
            Schema.INTEGER,
            "How many success signals creation waits for.",
            default=1,
            constraints=[api.constraints.Range(1, 1000)],
        ),
    }

    attributes_schema = {
        DATA: Attr(
            "JSON text mapping each signal's id to the data it carried.",
            type=Attr.STRING,
        ),
    }

    @property
    def _url(self) -> parse.ParseResult:
        return parse.urlparse(str(self.properties[self.HANDLE]))

    @property
    def obj_name(self) -> str:
        """The handle's object name (from the URL's path)."""
        return self._url.path.split("/")[4]

    def _validate_handle_url(self) -> None:
        path = self._url.path
        parts = path.split("/")
        if not self.client_plugin().is_valid_temp_url_path(path):
            part = "Swift TempURL path"
        elif parts[3] != self.stack.id:
            part = "container name"
        else:
            return
        raise ValueError(
            f'"{path}" is not a valid SwiftSignalHandle.  The {part} '
            "is invalid"
        )

    def handle_create(self) -> tuple[datetime.datetime, float]:
        self._validate_handle_url()
        return _utcnow(), float(self.properties[self.TIMEOUT])

    def get_signals(self) -> list[dict[str, Any]]:
        """Every signal of this resource's handle, oldest first."""
        plugin = self.client_plugin()
        container = str(self.stack.id)
        try:
            index = self.client().get_container(container)[1]
        except Exception as ex:
            plugin.ignore_not_found(ex)
            LOG.debug("Swift container %s was not found", container)
            return []
        # the stack's handles share the container; versions of this
        # handle's object have its name inside theirs
        bodies: list[str] = []
        for obj in index:
            if self.obj_name not in obj["name"]:
                continue
            try:
                body = self.client().get_object(container, obj["name"])[1]
            except Exception as ex:
                plugin.ignore_not_found(ex)
                continue
            bodies.append(body.decode() if isinstance(body, bytes) else body)
        return parse_signals(bodies)

    def get_status(self) -> list[str]:
        """The status of each signal."""
        return [s[STATUS] for s in self.get_signals()]

    def get_status_reason(self, status: str) -> list[str]:
        """The reasons of the signals with ``status``."""
        return [s[REASON] for s in self.get_signals() if s[STATUS] == status]

    def get_data(self) -> dict[Any, Any] | None:
        """Each signal's data by id; ``None`` without signals."""
        signals = self.get_signals()
        if not signals:
            return None
        return {s[UNIQUE_ID]: s[DATA] for s in signals}

    def check_create_complete(
        self, create_data: tuple[datetime.datetime, float]
    ) -> bool:
        started_at, timeout = create_data
        if _utcnow() - started_at > datetime.timedelta(seconds=timeout):
            raise SwiftSignalTimeout(self)
        statuses = self.get_status()
        if not statuses:
            return False
        for status in statuses:
            if status == STATUS_FAILURE:
                failure = SwiftSignalFailure(self)
                LOG.info("%s Failed (%s)", self, failure)
                raise failure
            if status != STATUS_SUCCESS:
                raise api.exception.Error(f"Unknown status: {status}")
        if len(statuses) >= self.properties[self.COUNT]:
            LOG.info("%s Succeeded", self)
            return True
        return False

    def _resolve_attribute(self, name: str) -> Any:
        if name == DATA:
            return json.dumps(self.get_data())
        return None
