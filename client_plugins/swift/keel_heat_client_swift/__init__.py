"""keel-heat client plugin for Swift (object storage).

* :mod:`.object_store`: Swift's account, container and object calls on
  a keystoneauth1 session, the endpoint found in the catalog.
* :mod:`.temp_url`: temporary URLs and Swift's dates (pure functions).
* :mod:`.plugin`: the ``swift`` client plugin.
"""
