"""The resource plugin API: the only module resource packs import.

Everything a pack needs is re-exported here, and this surface follows
semantic versioning through :data:`PLUGIN_API_VERSION`: a minor version
only adds, a major one may change or remove. Each pack and client plugin
declares the range it supports, which the core checks before loading it
(:mod:`keel_heat_core.plugin_api.version`). ``docs/writing-a-pack.md``
describes the whole SDK.

Typical use::

    from keel_heat_core import plugin_api as api

    class Thing(api.Resource):
        support_status = api.SupportStatus(version="1.0.0")
        properties_schema = {
            "size": api.properties.Schema(
                api.properties.Schema.INTEGER,
                "How big the thing is.",
                constraints=[api.constraints.Range(min=1)],
                update_allowed=True,
            ),
        }
"""

from __future__ import annotations

from keel_heat_core.plugin_api import (
    attributes,
    constraints,
    errors,
    exception,
    identifier,
    properties,
    protocol,
    server_base,
    signal_responder,
    stack_resource,
    stack_user,
    support,
    templates,
    translation,
)
from keel_heat_core.plugin_api.client_plugin import (
    ClientPlugin,
    DefaultClientPlugin,
)
from keel_heat_core.plugin_api.hooks import hookimpl
from keel_heat_core.plugin_api.resource import PollDelay, Resource
from keel_heat_core.plugin_api.support import SupportStatus
from keel_heat_core.plugin_api.version import PLUGIN_API_VERSION

__all__ = [
    "PLUGIN_API_VERSION",
    "ClientPlugin",
    "DefaultClientPlugin",
    "PollDelay",
    "Resource",
    "SupportStatus",
    "attributes",
    "constraints",
    "errors",
    "exception",
    "identifier",
    "hookimpl",
    "properties",
    "protocol",
    "server_base",
    "signal_responder",
    "stack_resource",
    "stack_user",
    "support",
    "templates",
    "translation",
]
