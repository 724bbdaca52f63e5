"""The ``keystone.*`` custom constraints: the value must exist in Keystone.

Each asks the ``keystone`` client plugin's finder; a value it cannot find
fails validation with the finder's message, e.g. ``Error validating value
'x': The KeystoneRole (x) could not be found.``
"""

from __future__ import annotations

from keel_heat_core.plugin_api import exception
from keel_heat_core.plugin_api.constraints import BaseCustomConstraint


class _KeystoneConstraint(BaseCustomConstraint):
    resource_client_name = "keystone"


class KeystoneRoleConstraint(_KeystoneConstraint):
    """A Keystone role, by id, name or ``name{domain}``."""

    resource_getter_name = "get_role_id"


class KeystoneDomainConstraint(_KeystoneConstraint):
    """A Keystone domain, by id or name."""

    resource_getter_name = "get_domain_id"


class KeystoneProjectConstraint(_KeystoneConstraint):
    """A Keystone project, by id, name or ``name{domain}``."""

    resource_getter_name = "get_project_id"


class KeystoneGroupConstraint(_KeystoneConstraint):
    """A Keystone group, by id, name or ``name{domain}``."""

    resource_getter_name = "get_group_id"


class KeystoneServiceConstraint(_KeystoneConstraint):
    """A Keystone service, by id or a name no other service has."""

    expected_exceptions = (
        exception.EntityNotFound,
        exception.KeystoneServiceNameConflict,
    )
    resource_getter_name = "get_service_id"


class KeystoneUserConstraint(_KeystoneConstraint):
    """A Keystone user, by id, name or ``name{domain}``."""

    resource_getter_name = "get_user_id"


class KeystoneRegionConstraint(_KeystoneConstraint):
    """A Keystone region, by id."""

    resource_getter_name = "get_region_id"
