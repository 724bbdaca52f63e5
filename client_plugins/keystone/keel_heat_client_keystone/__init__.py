"""keel-heat client plugin for Keystone (identity).

* :mod:`.lookup`: find Keystone objects by id, name or ``name{domain}``.
* :mod:`.identity_api`: Keystone v3 as JSON calls (create, show, grants).
* :mod:`.plugin`: the ``keystone`` client plugin.
* :mod:`.constraints`: the ``keystone.*`` custom constraints.
"""

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
