"""How deep a document may nest: a template, an environment, a body.

Parsers and the code that walks documents recurse once per level, so a
document nested a few thousand levels deep ends in Python's
``RecursionError``, which Heat answers with a 500. Real templates nest
a few dozen levels at most; :data:`MAX_DEPTH` is far above that and far
below what recursion can take. :func:`check` walks without recursing.
"""

from __future__ import annotations

from typing import Any

#: levels of mappings and lists a document may have
MAX_DEPTH = 128


class TooDeep(ValueError):
    """A document nests deeper than allowed; the text says what."""


def too_deep(what: str, limit: int = MAX_DEPTH) -> TooDeep:
    """The error for ``what`` nested beyond ``limit`` levels."""
    return TooDeep(f"{what} is nested more than {limit} levels deep.")


def check(doc: Any, what: str, limit: int = MAX_DEPTH) -> None:
    """Refuse ``doc`` when its mappings and lists nest beyond ``limit``.

    :param what: how the message names the document (``The template``).
    :raises TooDeep: naming ``what`` and the limit.
    """
    pending: list[tuple[Any, int]] = [(doc, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        if depth > limit:
            raise too_deep(what, limit)
        pending.extend((child, depth + 1) for child in children)
