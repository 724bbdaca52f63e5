"""keel-heat client plugin for Keystone (identity).

* :mod:`.lookup`: find Keystone objects by id, name or ``name{domain}``.
* :mod:`.identity_api`: Keystone v3 as JSON calls (create, show, grants).
* :mod:`.plugin`: the ``keystone`` client plugin.
* :mod:`.constraints`: the ``keystone.*`` custom constraints.
"""
