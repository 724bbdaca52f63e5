"""Heat ARNs: ``arn:openstack:heat::<tenant>:stacks/<name>/<id><path>``.

The API side of :mod:`keel_heat_core.plugin_api.identifier`, which the
API may not import (it would pull in the engine layers): the same
format, for the plain identity dictionaries of the engine RPC API.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, unquote

_PATH = re.compile(r"stacks/([^/]+)/([^/]+)(.*)")


def to_arn(identity: Mapping[str, str]) -> str:
    """Return the ARN of a stack, resource or event identity.

    :param identity: ``{tenant, stack_name, stack_id, path}``.
    :raises KeyError: when a key is missing.
    """
    return "arn:openstack:heat::{}:stacks/{}/{}{}".format(
        quote(identity["tenant"], ""),
        quote(identity["stack_name"], ""),
        quote(identity["stack_id"], ""),
        quote(identity.get("path") or ""),
    )


def from_arn(arn: str) -> dict[str, str]:
    """Return the identity an ARN names.

    :raises ValueError: when ``arn`` is not a Heat ARN.
    """
    fields = arn.split(":")
    if len(fields) < 6 or fields[0].lower() != "arn":
        raise ValueError(f'"{arn}" is not a valid ARN')
    match = _PATH.match(":".join(fields[5:]))
    if fields[1] != "openstack" or fields[2] != "heat" or not match:
        raise ValueError(f'"{arn}" is not a valid Heat ARN')
    return {
        "tenant": unquote(fields[4]),
        "stack_name": unquote(match.group(1)),
        "stack_id": unquote(match.group(2)),
        "path": unquote(match.group(3)),
    }


def stack_of(identity: Mapping[str, str]) -> dict[str, str]:
    """Return the identity of the stack a resource identity lies in."""
    return {
        "tenant": identity["tenant"],
        "stack_name": identity["stack_name"],
        "stack_id": identity["stack_id"],
        "path": "",
    }


def resource_name(identity: Mapping[str, str]) -> str:
    """Return the resource name of a ``/resources/<name>`` identity.

    :raises ValueError: when the identity names no resource.
    """
    parts = (identity.get("path") or "").split("/")
    if len(parts) != 3 or parts[0] or parts[1] != "resources" or not parts[2]:
        raise ValueError("The ARN does not name a resource")
    return parts[2]


def event_id(identity: Mapping[str, str]) -> str:
    """Return the event id (last path segment) of an event identity."""
    return (identity.get("path") or "").rsplit("/", 1)[-1]
