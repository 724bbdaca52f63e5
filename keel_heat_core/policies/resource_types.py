"""Admin-only resource types (``resource_types:<Type>``).

The engine checks ``resource_types:<Type>`` and then the wildcard
``resource_types:<Prefix>::*`` when a stack uses a type, and when a type's
schema or template is asked for; unregistered names are allowed. Packs add
their own rules through the ``oslo.policy.policies`` entry points.
"""

from oslo_policy import policy

from keel_heat_core.policies import base

#: Types only a project admin may use, in Heat 27's order.
ADMIN_ONLY_TYPES: tuple[str, ...] = (
    "OS::Nova::Flavor",
    "OS::Cinder::EncryptedVolumeType",
    "OS::Cinder::VolumeType",
    "OS::Cinder::Quota",
    "OS::Neutron::Quota",
    "OS::Nova::Quota",
    "OS::Octavia::Quota",
    "OS::Manila::ShareType",
    "OS::Neutron::ProviderNet",
    "OS::Neutron::QoSPolicy",
    "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule",
    "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::QoSMinimumPacketRateRule",
    "OS::Neutron::Segment",
    "OS::Nova::HostAggregate",
    "OS::Cinder::QoSSpecs",
    "OS::Cinder::QoSAssociation",
    "OS::Keystone::*",
    "OS::Blazar::Host",
    "OS::Octavia::Flavor",
    "OS::Octavia::FlavorProfile",
    "OS::Octavia::AvailabilityZone",
    "OS::Octavia::AvailabilityZoneProfile",
)


def resource_type_rule(type_name: str) -> policy.RuleDefault:
    """Return the admin-only rule for one resource type (or wildcard).

    Packs call this from their own ``list_rules`` to keep one style.

    :param type_name: a type name such as ``OS::Nova::Flavor``, or a
        wildcard such as ``OS::Keystone::*``.
    """
    return policy.RuleDefault(
        name="resource_types:" + type_name,
        check_str=base.RULE_PROJECT_ADMIN,
        description=f"Use the {type_name} resource type.",
        scope_types=["project"],
    )


def list_rules() -> list[policy.RuleDefault]:
    """Return the 24 built-in ``resource_types:*`` rules."""
    return [resource_type_rule(t) for t in ADMIN_ONLY_TYPES]
