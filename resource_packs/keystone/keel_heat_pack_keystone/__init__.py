"""keel-heat resource pack: the ``OS::Keystone::*`` types.

Each type is one module (``project``, ``user``, ``group``, ``role``,
``domain``, ``region``, ``service``, ``endpoint``; the two role-assignment
types and the ``roles`` property in ``role_assignments``), registered
through the ``keel_heat.resources`` entry points. They reach Keystone
through the ``keystone`` client plugin (keel-heat-client-keystone).
``policies`` gives the admin-only ``resource_types:OS::Keystone::<Type>``
rules.
"""

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
