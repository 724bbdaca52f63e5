"""Persistence: Heat 27's schema, repositories and their records.

The only package that imports SQLAlchemy. Open a
:class:`~keel_heat_core.db.database.Database` and call the repository
module of the aggregate you need (``stack``, ``resource``, ``event``,
``raw_template``, ``sync_point``, ``software_config``,
``software_deployment``, ``snapshot``, ``user_creds``, ``service``,
``stack_tag``, ``resource_data``, ``resource_properties_data``,
``stack_lock``); they return frozen records from
:mod:`keel_heat_core.db.records`. ``keel_heat_core.service.db_stores``
adapts them to the engine's store protocols. See
``docs/design/persistence.md``.
"""
