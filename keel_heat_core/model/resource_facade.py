"""``resource_facade`` in a stack that a template resource created.

The function answers with the parent resource's metadata, deletion
policy or update policy. A child stack knows its parent only by the
owner stack's id and the resource's name; the parent is read when a
``resource_facade`` is first resolved, so the many stacks that never use
the function pay nothing.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.template.protocols import PendingStackView

KINDS = ("metadata", "deletion_policy", "update_policy")


class ParentFacade:
    """What ``resource_facade`` gives in a child stack.

    :param stacks: the stack rows (the owner stack's).
    :param templates: the stored templates (the owner's definitions).
    :param resources: the resource rows (the parent's stored metadata).
    :param owner_id: the id of the stack of the parent resource.
    :param name: the parent resource's name.
    :param child_id: the child stack's id, to tell the parent row from a
        replacement of the same name.
    """

    def __init__(
        self,
        stacks: r.StackStore,
        templates: r.TemplateSource,
        resources: r.ResourceStore,
        owner_id: str,
        name: str,
        child_id: str | None = None,
    ) -> None:
        self._stacks = stacks
        self._templates = templates
        self._resources = resources
        self._owner_id = owner_id
        self._name = name
        self._child_id = child_id

    def __call__(self, kind: str) -> Any:
        owner = self._stacks.get_stack(self._owner_id)
        definitions = (
            self._templates.definitions(owner.raw_template_id, owner)
            if owner is not None
            else {}
        )
        parent = definitions.get(self._name)
        if parent is None:
            raise ValueError(
                f'"resource_facade" ({kind}) can only be used in a '
                "template that defines a template (provider) resource"
            )
        rdefn = parent.stored.stack_definition(
            PendingStackView()
        ).resource_definition(self._name)
        if kind == "deletion_policy":
            return rdefn.deletion_policy()
        if kind == "update_policy":
            return rdefn.update_policy_data()
        stored = self._stored_metadata()
        # a resource's metadata is its template's until it is stored
        return rdefn.metadata() if stored is None else stored

    def _stored_metadata(self) -> dict[str, Any] | None:
        rows = self._resources.get_resources(self._owner_id, [self._name])
        ours = [row for row in rows if row.physical_id == self._child_id]
        current = ours or [row for row in rows if row.replaced_by is None]
        return current[0].rsrc_metadata if current else None


def parent_facade(
    stacks: r.StackStore,
    templates: r.TemplateSource,
    resources: r.ResourceStore,
    stack: r.StackRow,
) -> ParentFacade | None:
    """The facade of ``stack``'s parent resource; None for a stack that
    no resource created."""
    if not stack.owner_id or not stack.parent_resource_name:
        return None
    return ParentFacade(
        stacks,
        templates,
        resources,
        stack.owner_id,
        stack.parent_resource_name,
        stack.id,
    )
