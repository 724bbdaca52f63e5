"""The resource plugin API: the only module resource packs import.

Everything a pack needs is re-exported here, and this surface follows
semantic versioning through :data:`PLUGIN_API_VERSION`: a pack declares the
major version it was written for, minor versions only add.

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

import pluggy

from keel_heat_core import exception
from keel_heat_core.plugin_api import (
    attributes,
    constraints,
    errors,
    identifier,
    properties,
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
from keel_heat_core.plugin_api.resource import PollDelay, Resource
from keel_heat_core.plugin_api.support import SupportStatus

#: The version of this API (major.minor); packs check the major.
PLUGIN_API_VERSION = "1.0"

try:
    #: Marker of pluggy hook implementations (project ``keel_heat``).
    from keel_heat_core.plugins.spec import hookimpl
except ImportError:  # pragma: no cover - before the plugins layer exists
    # The same project name makes this marker equivalent to the core's.
    hookimpl = pluggy.HookimplMarker("keel_heat")

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
    "server_base",
    "signal_responder",
    "stack_resource",
    "stack_user",
    "support",
    "templates",
    "translation",
]
