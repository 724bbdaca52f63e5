"""What the template layer needs from a running stack: :class:`StackView`.

Functions that read the stack at runtime (``get_resource``, ``get_attr``,
``Ref``, ``Fn::GetAtt``, ``resource_facade``, ``Fn::GetAZs``) never touch
the engine directly: a :class:`~.stack_definition.StackDefinition` asks a
``StackView`` that the engine implements.  Before a stack exists (validate,
preview) the template layer uses :class:`PendingStackView`, under which a
resource's reference ID is its name and every attribute is None, exactly
as Heat behaves before creation.

Contract for implementers (the engine's model of a stack):

* ``reference_id(name)``: the resource's reference ID (usually its physical
  ID), or None when the resource has none yet (the name is used then).
* ``attribute(name, attr)``: the whole value of attribute ``attr``, or None
  unless the resource's action is one of CREATE, ADOPT, SUSPEND, RESUME,
  UPDATE, ROLLBACK, SNAPSHOT, CHECK.  The template layer applies any path.
  May raise ``InvalidTemplateAttribute`` for a name the resource lacks.
* ``all_attributes(name)``: a map of every attribute except ``show``, or
  None unless the resource's status is IN_PROGRESS or COMPLETE (and its
  action as above).
* ``attribute_names(name, resource_type)``: the attribute names the
  resource type declares (``show`` included), or None when any name must
  be accepted before creation (template resources, unknown types).
* ``resource_facade(kind)``: for a stack created by a template resource,
  the parent resource's ``metadata``, ``deletion_policy`` or resolved
  ``update_policy``; raise ``ValueError`` with a clear message otherwise.
* ``availability_zones()``: names of the compute availability zones.
* ``resource_action(name)``: the resource's current action (``INIT``,
  ``CREATE``...), or None when it does not exist yet; property values that
  depend on a resource still in INIT are not validated (as in Heat).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class StackView(Protocol):
    """Runtime data of a stack's resources, as the engine knows it."""

    def reference_id(self, name: str) -> str | None: ...

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        """Attribute ``attr`` of ``name`` followed along ``path``; the
        resource follows the path itself (Heat's ``FnGetAtt(attr, *path)``:
        a group answers ``attributes`` or ``resource.<n>`` per path)."""

    def all_attributes(self, name: str) -> dict[str, Any] | None: ...

    def attribute_names(
        self, name: str, resource_type: str
    ) -> Collection[str] | None: ...

    def resource_facade(self, kind: str) -> Any: ...

    def availability_zones(self) -> list[str]: ...

    def resource_action(self, name: str) -> str | None: ...


class PendingStackView:
    """A stack whose resources do not exist yet (validation, preview).

    :param attribute_names: optional lookup ``resource_type -> names`` used
        to check ``get_attr`` names at validation; without it any name is
        accepted.
    :param availability_zones: what ``Fn::GetAZs`` returns.
    :param facade: ``kind -> value`` of ``resource_facade`` in a stack
        that a template resource creates.
    """

    def __init__(
        self,
        attribute_names: Any = None,
        availability_zones: list[str] | None = None,
        facade: Callable[[str], Any] | None = None,
    ) -> None:
        self._attribute_names = attribute_names
        self._zones = availability_zones or ["nova"]
        self._facade = facade

    def reference_id(self, name: str) -> str | None:
        return None

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        return None

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        return None

    def attribute_names(
        self, name: str, resource_type: str
    ) -> Collection[str] | None:
        if self._attribute_names is None:
            return None
        names: Collection[str] | None = self._attribute_names(resource_type)
        return names

    def resource_facade(self, kind: str) -> Any:
        if self._facade is not None:
            return self._facade(kind)
        raise ValueError(
            f'"resource_facade" ({kind}) can only be used in a template '
            "that defines a template (provider) resource"
        )

    def availability_zones(self) -> list[str]:
        return list(self._zones)

    def resource_action(self, name: str) -> str | None:
        return None
