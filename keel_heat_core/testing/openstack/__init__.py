"""A small, real OpenStack on 127.0.0.1 for tests and ``make cloud``.

* :mod:`.venv` - the one cached venv of every service, pinned by
  ``cloud.lock.txt`` and ``constraints.txt`` (shipped here);
* :mod:`.layout` - names, folders, ports and databases of one cloud;
* :mod:`.config` - the services' configuration files (pure);
* :mod:`.setup` - databases, virtual host, schemas, cells, rings, the
  Neutron agent row;
* :mod:`.processes` - starting and stopping exactly our processes;
* :mod:`.ready` - readiness checks and the seed data;
* :mod:`.cloud` - :class:`~.cloud.OpenStackCloud`, start/load/stop;
* :mod:`.fixture` - the ``openstack_cloud`` pytest fixture;
* ``python -m keel_heat_core.testing.openstack up|down|status`` and
  :mod:`.heat` (``make cloud``).

The services run with fake back ends (Nova's fake driver, Cinder's fake
volume driver, no Neutron agents): servers become ACTIVE and volumes
attach, but nothing runs inside a server.
"""
