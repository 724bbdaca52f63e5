"""keel-heat client plugin for Keystone (identity).

* :mod:`.lookup`: find Keystone objects by id, name or ``name{domain}``.
* :mod:`.plugin`: the ``keystone`` client plugin.
* :mod:`.constraints`: the ``keystone.*`` custom constraints.
"""
