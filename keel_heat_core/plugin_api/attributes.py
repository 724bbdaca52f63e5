"""Attributes of a resource: their schema and their resolution.

An attribute is what ``get_attr`` (HOT) or ``Fn::GetAtt`` (CFN) reads from
a resource.  A plugin declares ``attributes_schema`` as a mapping of name to
:class:`Schema`; every type also has the base attribute ``show``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import support

LOG = logging.getLogger(__name__)

#: Attributes every resource type has.
BASE_ATTRIBUTES = (SHOW_ATTR,) = ("show",)

#: Reserved name: ``get_attr: [res]`` with no attribute asks for them all.
ALL_ATTRIBUTES = "0"


class Schema(Mapping[str, Any]):
    """The schema of one attribute.

    :param description: user documentation of the attribute.
    :param support_status: a :class:`~.support.SupportStatus`; ``HIDDEN``
        attributes are left out of schemas and generated templates.
    :param cache_mode: :attr:`CACHE_LOCAL` (the value is remembered once
        resolved while the resource stays COMPLETE) or :attr:`CACHE_NONE`
        (resolved at every read).
    :param type: one of :attr:`TYPES`, or None for an untyped attribute.
    """

    KEYS = (DESCRIPTION, TYPE) = ("description", "type")
    CACHE_MODES = (CACHE_LOCAL, CACHE_NONE) = ("cache_local", "cache_none")
    TYPES = (STRING, MAP, LIST, INTEGER, BOOLEAN) = (
        "String",
        "Map",
        "List",
        "Integer",
        "Boolean",
    )

    def __init__(
        self,
        description: str | None = None,
        support_status: support.SupportStatus | None = None,
        cache_mode: str = CACHE_LOCAL,
        type: str | None = None,  # noqa: A002 - Heat's keyword
    ) -> None:
        if type is not None and type not in self.TYPES:
            raise exception.InvalidSchemaError(
                message=f"Invalid type ({type})"
            )
        if cache_mode not in self.CACHE_MODES:
            raise exception.InvalidSchemaError(
                message=f"Invalid cache_mode ({cache_mode})"
            )
        self.description = description
        self.support_status = support_status or support.SupportStatus()
        self.cache_mode = cache_mode
        self.type = type

    @classmethod
    def from_attribute(cls, schema: Schema | Mapping[str, Any]) -> Schema:
        """Accept a :class:`Schema` or a legacy ``{"description": ...}``.

        :raises InvalidSchemaError: for unknown keys in a legacy dict.
        """
        if isinstance(schema, cls):
            return schema
        unknown = [k for k in schema if k not in cls.KEYS]
        if unknown:
            raise exception.InvalidSchemaError(
                message=f"Unknown key(s) {unknown}"
            )
        return cls(schema.get(cls.DESCRIPTION), type=schema.get(cls.TYPE))

    def __getitem__(self, key: str) -> Any:
        if key == self.DESCRIPTION and self.description is not None:
            return self.description
        if key == self.TYPE and self.type is not None:
            return self.type.lower()
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        for key in self.KEYS:
            if key in self:
                yield key

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: The schema of the base attributes, shared by every resource type.
BASE_ATTRIBUTES_SCHEMA: dict[str, Schema] = {
    SHOW_ATTR: Schema(
        "Detailed information about the resource, as its service shows it.",
        cache_mode=Schema.CACHE_NONE,
        type=Schema.MAP,
    ),
}


def schemata(schema: Mapping[str, Any]) -> dict[str, Schema]:
    """Turn a mapping of legacy or typed attribute schemas into Schemas."""
    return {name: Schema.from_attribute(s) for name, s in schema.items()}


def visible_schemata(schema: Mapping[str, Any]) -> dict[str, Schema]:
    """The attribute schemas that are not HIDDEN."""
    return {
        name: s
        for name, s in schemata(schema).items()
        if not support.is_hidden(s.support_status)
    }


class Attributes(Mapping[str, Any]):
    """The attribute values of one resource, resolved on demand.

    :param resource_name: the logical name, for error messages.
    :param schema: the attribute schemas (base ones included).
    :param resolver: computes an attribute value from its name.
    """

    def __init__(
        self,
        resource_name: str,
        schema: Mapping[str, Any],
        resolver: Callable[[str], Any],
    ) -> None:
        if ALL_ATTRIBUTES in schema:
            raise exception.InvalidSchemaError(
                message=f"Invalid attribute name '{ALL_ATTRIBUTES}'"
            )
        self._resource_name = resource_name
        self._resolver = resolver
        self._schemata = schemata(schema)
        self._resolved: dict[str, Any] = {}
        self.has_new_cached_attrs = False

    def reset_resolved_values(self) -> None:
        """Forget cached values (the resource left the COMPLETE state)."""
        self._resolved = {}
        self.has_new_cached_attrs = False

    @property
    def cached_attrs(self) -> dict[str, Any]:
        """The values resolved so far with ``cache_local``."""
        return dict(self._resolved)

    def set_cached_attr(self, key: str, value: Any) -> None:
        """Seed the cache (from the stored attribute row)."""
        self._resolved[key] = value

    def get_cache_mode(self, name: str) -> str:
        """The cache mode of the attribute ``name``."""
        return self._schemata[name].cache_mode

    def __getitem__(self, key: str) -> Any:
        if key not in self._schemata:
            raise KeyError(f"{self._resource_name}: Invalid attribute {key}")
        schema = self._schemata[key]
        if schema.cache_mode == Schema.CACHE_NONE:
            return self._resolver(key)
        if key in self._resolved:
            return self._resolved[key]
        value = self._resolver(key)
        if value is not None:
            self._check_type(key, schema, value)
            self._resolved[key] = value
            self.has_new_cached_attrs = True
        return value

    def _check_type(self, key: str, schema: Schema, value: Any) -> None:
        expected: dict[str | None, type | tuple[type, ...]] = {
            Schema.STRING: str,
            Schema.LIST: list,
            Schema.MAP: dict,
            Schema.INTEGER: int,
            Schema.BOOLEAN: (bool, str),
        }
        wanted = expected.get(schema.type)
        if wanted is not None and not isinstance(value, wanted):
            LOG.warning("Attribute %s is not of type %s", key, schema.type)

    def __iter__(self) -> Iterator[str]:
        return iter(self._schemata)

    def __len__(self) -> int:
        return len(self._schemata)

    def __contains__(self, key: object) -> bool:
        return key in self._schemata


def select_from_attribute(value: Any, path: Sequence[Any]) -> Any:
    """Follow ``path`` (keys and indexes) into an attribute value.

    Anything that cannot be followed (missing key, index out of range, a
    scalar on the way, a path item that is neither text nor an integer)
    gives None, as Heat does for ``get_attr`` paths.
    """
    for item in path:
        if not isinstance(value, Mapping | Sequence):
            return None
        if not isinstance(item, str | int):
            return None
        try:
            value = value[item]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return value
