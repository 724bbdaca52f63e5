"""Nested stacks in a stack preview (``POST /stacks/preview``).

Heat previews a resource that owns a child stack (a template resource,
``OS::Heat::ResourceGroup``, ``OS::Heat::Stack``…) as the list of its
child's resources, recursively: the preview's ``resources`` is a nested
list. A child resource shows the child stack's name
(``<parent stack>-<resource>``) and ``parent_resource``. Types that do
not build their child template in memory are shown as plain resources.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.model.identifier import StackIdentifier

LOG = logging.getLogger(__name__)

#: ``(ctxt, stack name, stored template) -> preview`` (``_Preview``)
MakePreview = Callable[[Any, str, StoredTemplate], Any]


def resource_views(
    preview: Any, make: MakePreview, depth_left: int = 5
) -> list[Any]:
    """The preview's resources, a child stack's as a list of its own."""
    required_by = preview.required_by()
    parent = preview.row.parent_resource_name
    out: list[Any] = []
    for name in preview.stored:
        nested = child(preview, name, make) if depth_left > 0 else None
        if nested is not None:
            out.append(resource_views(nested, make, depth_left - 1))
            continue
        view = preview.resource_view(name, required_by.get(name, []))
        if parent:
            view["parent_resource"] = parent
        out.append(view)
    return out


def instance(preview: Any, name: str) -> Any:
    """The resource object; template resources are built here (the
    validation only reads their template)."""
    res = preview.resources.get(name)
    if res is not None:
        return res
    rtype = preview.stored[name].resource_type
    try:
        cls = preview.stored.env.get_class_to_instantiate(rtype, name)
        rdefn = preview.defn.resource_definitions()[name]
        return cls(name, rdefn, preview.facade)
    except Exception:  # shown as a plain resource, as before
        LOG.debug("No preview object for %s", name, exc_info=True)
        return None


def child(preview: Any, name: str, make: MakePreview) -> Any:
    """The validated preview of the child stack of resource ``name``
    (None: the resource owns none)."""
    res = instance(preview, name)
    child_template = getattr(res, "child_template", None)
    child_params = getattr(res, "child_params", None)
    if not callable(child_template) or not callable(child_params):
        return None
    try:
        template = child_template()
        params = child_params()
    except NotImplementedError:
        return None
    if template is None:
        return None
    nested_name = f"{preview.row.name}-{name}"
    env = preview.facade.child_environment(params, name)
    files = dict(getattr(preview.stored.t, "files", {}) or {})
    tenant = preview.row.tenant or ""
    stored = StoredTemplate(
        template, env, files, StackIdentifier(tenant, nested_name, "None")
    )
    nested = make(preview.ctxt, nested_name, stored)
    nested.row.parent_resource_name = name
    nested.validate()
    return nested
