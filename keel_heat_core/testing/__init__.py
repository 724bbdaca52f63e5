"""A testing kit for resource-pack authors.

* :mod:`.fakes` - request context, stack facade, resource definitions and
  client plugins, in memory;
* :mod:`.fake_engine` - the engine API in memory (a resource's
  ``rpc_client()``: child stacks, software configs and deployments; the
  engine behind the API tests);
* :mod:`.fake_clients` - stack-domain Keystone, heatclient and the
  ``heat``/``nova`` client plugins;
* :mod:`.driver` - runs lifecycle actions and update decisions like the
  engine;
* :mod:`.generic_resources` - Heat's generic test resource types;
* :mod:`.schema_compare` - compares resource-type views with Heat's;
* :mod:`.cloud` - the real database, engines and native API in the test
  process (noauth or behind a real Keystone), with HTTP, CLI and wait
  helpers (:mod:`.cloud_setup`, :mod:`.cloud_http`);
* :mod:`.openstack` - a small real OpenStack on loopback (Keystone,
  Placement, Nova, Glance, Neutron, Cinder, Swift) from one cached venv
  (:mod:`.venv_cache`), with the ``openstack_cloud`` fixture;
* :mod:`.plugin` - pytest fixtures over all of these.

See ``docs/writing-a-pack.md``.
"""
