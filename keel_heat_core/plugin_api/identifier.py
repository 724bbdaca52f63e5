"""Stack and resource identifiers, written as Heat writes them.

An identifier names a stack (tenant, name, id) and optionally a path below
it (``/resources/<name>``).  Its ARN form
``arn:openstack:heat::<tenant>:stacks/<name>/<id><path>`` is what
``get_resource`` gives for nested stacks and what signed signal URLs sign.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlparse

_PATH_RE = re.compile(r"stacks/([^/]+)/([^/]+)(.*)")
_ARN_URL_PREFIX = "/arn%3Aopenstack%3Aheat%3A%3A"


@dataclass(frozen=True)
class HeatIdentifier:
    """A stack, or something under it when ``path`` is set."""

    tenant: str
    stack_name: str
    stack_id: str
    path: str = ""

    def _tenant_path(self) -> str:
        return "stacks/{}/{}{}".format(
            quote(self.stack_name, ""),
            quote(self.stack_id, ""),
            quote(self.path),
        )

    def arn(self) -> str:
        """``arn:openstack:heat::<tenant>:stacks/<name>/<id><path>``."""
        return f"arn:openstack:heat::{quote(self.tenant, '')}:" + (
            self._tenant_path()
        )

    def arn_url_path(self) -> str:
        """The ARN quoted as one URL path segment (after a ``/``)."""
        return "/" + quote(self.arn(), "")

    def url_path(self) -> str:
        """``<tenant>/stacks/<name>/<id><path>``."""
        return "/".join((quote(self.tenant, ""), self._tenant_path()))

    @property
    def resource_name(self) -> str | None:
        """The resource name, for a ``/resources/<name>`` path."""
        parts = self.path.split("/")
        if len(parts) >= 3 and parts[1] == "resources":
            return parts[2]
        return None

    @classmethod
    def from_arn(cls, arn: str) -> HeatIdentifier:
        """Parse an ARN.

        :raises ValueError: ``"x" is not a valid ARN``.
        """
        fields = arn.split(":")
        if len(fields) < 6 or fields[0].lower() != "arn":
            raise ValueError(f'"{arn}" is not a valid ARN')
        path = _PATH_RE.match(":".join(fields[5:]))
        if fields[1] != "openstack" or fields[2] != "heat" or not path:
            raise ValueError(f'"{arn}" is not a valid Heat ARN')
        return cls(
            unquote(fields[4]),
            unquote(path.group(1)),
            unquote(path.group(2)),
            unquote(path.group(3)),
        )

    @classmethod
    def from_arn_url(cls, url: str) -> HeatIdentifier:
        """Parse a URL whose path holds a quoted ARN (signed handles).

        :raises ValueError: for a URL without a Heat ARN.
        """
        parsed = urlparse(url)
        if (
            parsed.scheme not in ("http", "https")
            or not parsed.netloc
            or not parsed.path
        ):
            raise ValueError(f'"{url}" is not a valid URL')
        match = re.search(_ARN_URL_PREFIX, parsed.path, re.IGNORECASE)
        if match is None:
            raise ValueError(f'"{url}" is not a valid ARN URL')
        return cls.from_arn(unquote(parsed.path[match.start() + 1 :]))

    def to_dict(self) -> dict[str, str]:
        return {
            "tenant": self.tenant,
            "stack_name": self.stack_name,
            "stack_id": self.stack_id,
            "path": self.path,
        }


def stack_identifier(stack: Any) -> HeatIdentifier:
    """The identifier of a stack facade.

    ``stack.identifier()`` may give a mapping or an object with ``tenant``,
    ``stack_name``, ``stack_id`` and ``path``.
    """
    ident = stack.identifier()
    if isinstance(ident, HeatIdentifier):
        return ident

    def field(name: str) -> str:
        if isinstance(ident, Mapping):
            value = ident.get(name)
        else:
            value = getattr(ident, name, None)
        return "" if value is None else str(value)

    return HeatIdentifier(
        field("tenant"), field("stack_name"), field("stack_id"), field("path")
    )


def resource_identifier(stack: Any, resource_name: str) -> HeatIdentifier:
    """The identifier of resource ``resource_name`` of a stack."""
    base = stack_identifier(stack)
    return HeatIdentifier(
        base.tenant,
        base.stack_name,
        base.stack_id,
        f"/resources/{resource_name}",
    )
