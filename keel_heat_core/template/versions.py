"""Template versions: the ``keel_heat.templates`` entry points.

Each entry point is named ``<version key>.<version>`` (``heat_template_
version.2021-04-16``, aliases such as ``heat_template_version.wallaby``
point to the same class) and its value is a :class:`~.base.Template`
subclass.  The core registers its 13 classes and 6 aliases in its
``pyproject.toml``; another distribution can add a version.  The same name
from two distributions is refused, naming both.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template.base import Template
from keel_heat_core.template.cfn import CFN_CLASSES
from keel_heat_core.template.hot import HOT_CLASSES

GROUP = "keel_heat.templates"


def builtin_versions() -> dict[str, type[Template]]:
    """The core's own versions, by entry-point name."""
    out: dict[str, type[Template]] = {}
    for cls in (*CFN_CLASSES, *HOT_CLASSES):
        out[f"{cls.VERSION_KEY}.{cls.VERSION_DATE}"] = cls
        for alias in cls.ALIASES:
            out[f"{cls.VERSION_KEY}.{alias}"] = cls
    return out


@functools.cache
def template_classes() -> dict[str, type[Template]]:
    """Every registered version, by entry-point name.

    :raises RuntimeError: when two distributions register the same name.
    """
    found: dict[str, type[Template]] = {}
    owners: dict[str, str] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist is not None else "?"
        if ep.name in owners and owners[ep.name] != dist:
            raise RuntimeError(
                f"Template version {ep.name} is registered by both "
                f"{owners[ep.name]} and {dist}"
            )
        owners[ep.name] = dist
        found[ep.name] = ep.load()
    # Without an installed distribution (a bare checkout) the core's own
    # classes are still available.
    return {**builtin_versions(), **found}


def get_version(
    t: Mapping[str, Any], version_keys: set[str] | None = None
) -> tuple[str, str]:
    """The ``(key, value)`` naming the template version.

    :raises InvalidTemplateVersion: when none or several are present.
    """
    if version_keys is None:
        version_keys = {name.split(".", 1)[0] for name in template_classes()}
    present = [
        key
        for key, value in t.items()
        if key in version_keys and isinstance(value, str)
    ]
    if len(present) > 1:
        raise exception.InvalidTemplateVersion(
            explanation=f"Ambiguous versions ({', '.join(present)})"
        )
    if not present:
        raise exception.InvalidTemplateVersion(
            explanation="Template version was not provided"
        )
    return present[0], t[present[0]]


def template_class(t: Mapping[str, Any]) -> type[Template]:
    """The template class for a parsed document.

    :raises InvalidTemplateVersion: for a missing, ambiguous or unknown
        version.
    """
    classes = template_classes()
    key, value = get_version(t)
    cls = classes.get(f"{key}.{value}")
    if cls is not None:
        return cls
    valid = sorted(
        name.split(".", 1)[1]
        for name in classes
        if name.split(".", 1)[0] == key
    )
    if len(valid) == 1:
        hint = f'"{key}" should be: {valid[0]}'
    else:
        hint = f'"{key}" should be one of: {", ".join(valid)}'
    raise exception.InvalidTemplateVersion(
        explanation=f'"{key}: {value}". {hint}'
    )


def load(
    t: Mapping[str, Any],
    files: Mapping[str, Any] | None = None,
    env: Any = None,
) -> Template:
    """A template object of the right version for a parsed document."""
    return template_class(t)(t, files=files, env=env)


def list_versions() -> list[dict[str, Any]]:
    """The body of ``GET /template_versions`` (``version``, ``type``,
    ``aliases``), ordered as Heat lists them."""
    classes = template_classes()
    out = []
    for name, cls in classes.items():
        key, value = name.split(".", 1)
        if value != cls.VERSION_DATE or key != cls.VERSION_KEY:
            continue
        aliases = sorted(
            other
            for other, other_cls in classes.items()
            if other_cls is cls and other != name
        )
        out.append({"version": name, "type": cls.family, "aliases": aliases})
    return sorted(out, key=lambda item: (item["type"], item["version"]))
