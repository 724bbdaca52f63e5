"""keel-heat client plugin for Swift (object storage).

* :mod:`.object_store`: Swift's account, container and object calls on
  a keystoneauth1 session, the endpoint found in the catalog.
* :mod:`.temp_url`: temporary URLs and Swift's dates (pure functions).
* :mod:`.plugin`: the ``swift`` client plugin.
"""

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
