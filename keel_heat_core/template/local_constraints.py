"""The custom constraints checked in-process, with no service to ask.

Registered by the core under ``keel_heat.constraints``: ``ip_addr``,
``ip_or_cidr``, ``net_cidr``, ``mac_addr``, ``dns_name``, ``dns_domain``,
``rel_dns_name``, ``iso_8601``, ``expiration``, ``cron_expression``,
``timezone``, ``json_string``.  The
failure texts are Heat's.
"""

from __future__ import annotations

import datetime
import json
import re
import zoneinfo
from typing import Any

import netaddr
from oslo_utils import timeutils

from keel_heat_core.template.custom_constraints import BaseCustomConstraint

FQDN_MAX_LEN = 255
DNS_LABEL_MAX_LEN = 63
_DNS_LABEL = re.compile(f"[a-z0-9-]{{1,{DNS_LABEL_MAX_LEN}}}$")


def ip_address_error(data: Any) -> str | None:
    """Why ``data`` is not an IP address (neutron-lib's wording), or None."""
    try:
        if not isinstance(data, str) or data.strip() != data or not data:
            raise ValueError(data)
        ip = netaddr.IPAddress(data, flags=netaddr.core.ZEROFILL)
    except Exception:
        return f"'{data}' is not a valid IP address"
    if ":" not in data and data.count(".") != 3:
        return f"'{data}' is not a valid IP address"
    if ip.version == 4 and str(ip) != data:
        return f"'{data}' is not an accepted IP address, '{ip}' is recommended"
    return None


def subnet_error(data: Any) -> str | None:
    """Why ``data`` is not a subnet CIDR (neutron-lib's wording), or None."""
    try:
        if not isinstance(data, str) or data.strip() != data or not data:
            raise ValueError(data)
        net = netaddr.IPNetwork(data)
    except Exception:
        return f"'{data}' is not a valid IP subnet"
    if "/" not in data:
        return f"'{data}' is not a valid IP subnet"
    if net.version == 4 and str(net) != data:
        return (
            f"'{data}' isn't a recognized IP subnet cidr, '{net.cidr}' is "
            + "recommended"
        )
    return None


def dns_format_error(data: str) -> str | None:
    """Why ``data`` is not a DNS name (Heat's wording), or None."""
    if not data:
        return None
    trimmed = data[:-1] if data.endswith(".") else data
    if len(trimmed) > FQDN_MAX_LEN:
        return f"'{trimmed}' exceeds the {FQDN_MAX_LEN} character FQDN limit"
    names = trimmed.split(".")
    for name in names:
        if not name:
            return "Encountered an empty component."
        if name.endswith("-") or name.startswith("-"):
            return f"Name '{name}' must not start or end with a hyphen."
        if not _DNS_LABEL.match(name):
            return (
                f"Name '{name}' must be 1-{DNS_LABEL_MAX_LEN} characters "
                "long, each of which can only be alphanumeric or a hyphen."
            )
    if (
        data.endswith(".")
        and len(names) > 1
        and re.match("^[0-9]+$", names[-1])
    ):
        return f"TLD '{names[-1]}' must not be all numeric."
    return None


class IPConstraint(BaseCustomConstraint):
    """An IPv4 or IPv6 address."""

    def validate(self, value: Any, context: Any) -> bool:
        self._error_message = "Invalid IP address"
        return isinstance(value, str) and ip_address_error(value) is None


class IPCIDRConstraint(BaseCustomConstraint):
    """An IP address, or a subnet in CIDR notation."""

    def validate(self, value: Any, context: Any) -> bool:
        if not isinstance(value, str):
            self._error_message = f"{value} is not a valid IP or CIDR"
            return False
        msg = subnet_error(value) if "/" in value else ip_address_error(value)
        if msg is not None:
            self._error_message = msg
            return False
        return True


class CIDRConstraint(BaseCustomConstraint):
    """A subnet in CIDR notation."""

    def validate(self, value: Any, context: Any) -> bool:
        try:
            netaddr.IPNetwork(value)
        except Exception as exc:
            self._error_message = f"Invalid net cidr {exc} "
            return False
        msg = subnet_error(value)
        if msg is not None:
            self._error_message = msg
            return False
        return True


class MACConstraint(BaseCustomConstraint):
    """A MAC address."""

    def validate(self, value: Any, context: Any) -> bool:
        self._error_message = "Invalid MAC address."
        try:
            return bool(netaddr.valid_mac(value))
        except Exception:
            return False


class DNSNameConstraint(BaseCustomConstraint):
    """A DNS name (relative or fully qualified)."""

    def validate(self, value: Any, context: Any) -> bool:
        if not isinstance(value, str):
            self._error_message = f"'{value}' not in valid format."
            return False
        reason = dns_format_error(value)
        if reason is not None:
            self._error_message = (
                f"'{value}' not in valid format. Reason: {reason}"
            )
            return False
        return True


class RelativeDNSNameConstraint(DNSNameConstraint):
    """A DNS name that is not fully qualified."""

    def validate(self, value: Any, context: Any) -> bool:
        if not value:
            return True
        if isinstance(value, str) and value.endswith("."):
            self._error_message = (
                f"'{value}' is a FQDN. It should be a relative domain name."
            )
            return False
        if isinstance(value, str) and len(value) > FQDN_MAX_LEN - 3:
            self._error_message = (
                f"'{value}' contains '{len(value)}' characters. Adding a "
                "domain name will cause it to exceed the maximum length of "
                f"a FQDN of '{FQDN_MAX_LEN}'."
            )
            return False
        return super().validate(value, context)


class DNSDomainConstraint(DNSNameConstraint):
    """A fully qualified domain name, ending with a dot."""

    def validate(self, value: Any, context: Any) -> bool:
        if not value:
            return True
        if not super().validate(value, context):
            return False
        if not value.endswith("."):
            self._error_message = f"'{value}' must end with '.'."
            return False
        return True


class ISO8601Constraint(BaseCustomConstraint):
    """An ISO 8601 date and time."""

    def validate(self, value: Any, context: Any) -> bool:
        try:
            timeutils.parse_isotime(value)
        except Exception:
            return False
        return True


class ExpirationConstraint(BaseCustomConstraint):
    """An ISO 8601 time in the future."""

    def validate(self, value: Any, context: Any) -> bool:
        if not value:
            return True
        try:
            expiration = timeutils.normalize_time(
                timeutils.parse_isotime(value.strip())
            )
            now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
            if expiration > now:
                return True
            raise ValueError("Expiration time is out of date.")
        except Exception as exc:
            self._error_message = f"Expiration {value} is invalid: {exc}"
        return False


class CRONExpressionConstraint(BaseCustomConstraint):
    """A cron expression (as croniter reads it)."""

    def validate(self, value: Any, context: Any) -> bool:
        if not value:
            return True
        try:
            import croniter

            croniter.croniter(value)
            return True
        except Exception as exc:
            self._error_message = f"Invalid CRON expression: {exc}"
        return False


class TimezoneConstraint(BaseCustomConstraint):
    """A time zone name from the tz database."""

    def validate(self, value: Any, context: Any) -> bool:
        if not value:
            return True
        try:
            zoneinfo.ZoneInfo(value)
            return True
        except Exception:
            # pytz, which Heat uses, prints the quoted name.
            self._error_message = f"Invalid timezone: {value!r}"
        return False


class JsonStringConstraint(BaseCustomConstraint):
    """A string that parses as JSON."""

    def validate(self, value: Any, context: Any) -> bool:
        try:
            json.loads(value)
        except (ValueError, TypeError) as exc:
            self._error_message = f"JSON string {value} is invalid: {exc}"
            return False
        return True
