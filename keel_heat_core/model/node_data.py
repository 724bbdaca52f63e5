"""Node data: what a finished node tells the nodes after it.

See docs/design/engine.md, "Sync points".

An update successor resolves ``get_resource``/``get_attr`` only from the
node data of its predecessors; no other resource row is read. The view
here implements the template layer's StackView protocol over that data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from keel_heat_core.convergence.node import (
    decode_tuple_keys,
    encode_tuple_keys,
)
from keel_heat_core.template.hot_functions import select_from_attribute


@dataclasses.dataclass
class NodeData:
    """One resource's node data."""

    id: int
    name: str
    uuid: str
    reference_id: str | None
    attrs: dict[Any, Any]
    action: str
    status: str

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (tuple attribute keys encoded)."""
        return encode_tuple_keys(dataclasses.asdict(self))  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> NodeData:
        """Parse the JSON form."""
        data = decode_tuple_keys(dict(values))
        return cls(
            id=data["id"],
            name=data["name"],
            uuid=data.get("uuid", ""),
            reference_id=data.get("reference_id"),
            attrs=dict(data.get("attrs") or {}),
            action=data.get("action", ""),
            status=data.get("status", ""),
        )


def node_data_by_name(input_data: Mapping[str, Any]) -> dict[str, NodeData]:
    """Pick the node data out of a sync point's ``input_data`` values."""
    out: dict[str, NodeData] = {}
    for value in input_data.values():
        if isinstance(value, Mapping) and "name" in value:
            data = NodeData.from_dict(value)
            out[data.name] = data
    return out


class NodeDataView:
    """A StackView answering from predecessors' node data.

    Before a resource exists its reference is its logical name and its
    attributes are null, as in Heat.
    """

    def __init__(
        self,
        data: Mapping[str, NodeData],
        facade: Callable[[str], Any] | None = None,
    ) -> None:
        self._data = data
        self._facade = facade

    def get_resource(self, name: str) -> str:
        """The reference id (``get_resource``/``Ref``) of ``name``."""
        data = self._data.get(name)
        if data is None or data.reference_id is None:
            return name
        return data.reference_id

    def get_attr(self, name: str, *path: Any) -> Any:
        """The value of attribute ``path`` of ``name`` (or None)."""
        data = self._data.get(name)
        if data is None or not path:
            return None
        key: Any = path[0] if len(path) == 1 else tuple(path)
        if key in data.attrs:
            return data.attrs[key]
        value = data.attrs.get(path[0])
        for step in path[1:]:
            if isinstance(value, Mapping):
                value = value.get(step)
            elif isinstance(value, list) and isinstance(step, int):
                value = (
                    value[step] if -len(value) <= step < len(value) else None
                )
            else:
                return None
        return value

    # -- the template layer's StackView protocol --------------------------

    def reference_id(self, name: str) -> str | None:
        """The reference id, or None before the resource has one."""
        data = self._data.get(name)
        return None if data is None else data.reference_id

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        """An attribute followed along ``path``: the value the resource
        gave for that path, else the path followed into the whole value
        (None when not sent)."""
        data = self._data.get(name)
        if data is None:
            return None
        if path and (attr, *path) in data.attrs:
            return data.attrs[(attr, *path)]
        value = data.attrs.get(attr)
        if value is None:
            return None
        return select_from_attribute(value, list(path))

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        data = self._data.get(name)
        if data is None:
            return None
        return {k: v for k, v in data.attrs.items() if isinstance(k, str)}

    def attribute_names(self, name: str, resource_type: str) -> None:
        return None

    def resource_facade(self, kind: str) -> Any:
        if self._facade is not None:
            return self._facade(kind)
        raise ValueError(
            f'"resource_facade" ({kind}) can only be used in a template '
            "that defines a template (provider) resource"
        )

    def availability_zones(self) -> list[str]:
        return ["nova"]
