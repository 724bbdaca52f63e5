"""The version of the plugin API and how a distribution declares its range.

:data:`PLUGIN_API_VERSION` is ``major.minor``: a minor version only adds
to the API, a major version may change or remove. Every distribution that
registers ``keel_heat.*`` entry points (a resource pack, a client plugin)
declares the range of API versions it works with, as a PEP 440 version
specifier held by a module attribute named by one entry point::

    # pyproject.toml of the distribution
    [project.entry-points."keel_heat.plugin_api"]
    requires = "keel_heat_pack_thing:PLUGIN_API_REQUIRES"

    # keel_heat_pack_thing/__init__.py
    PLUGIN_API_REQUIRES = ">=1.0,<2"

The plugin registry reads it before it loads anything of the distribution
and refuses the distribution when :data:`PLUGIN_API_VERSION` is outside
the range (or when there is no declaration), naming the distribution, the
range and the core's version.
"""

from __future__ import annotations

#: The version of this API (``major.minor``).
PLUGIN_API_VERSION = "1.0"

#: The entry-point group of the declaration, and its one entry's name.
REQUIRES_GROUP = "keel_heat.plugin_api"
REQUIRES_NAME = "requires"
