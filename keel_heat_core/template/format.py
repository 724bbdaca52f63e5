"""Turning template and environment text into documents, as Heat does.

JSON is tried first; when that fails the text is read as YAML 1.1 with a
safe loader that keeps timestamps (``2016-10-14``) as strings.  Everything
else follows PyYAML's safe rules (``yes``/``no``/``on``/``off`` are
booleans, ``017`` is octal, merge keys work, duplicate keys: last wins,
``!!python/...`` tags are refused).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from keel_heat_core import exception, nesting

#: Heat's ``max_template_size`` default (characters, despite the message).
MAX_TEMPLATE_SIZE = 524288

VERSION_KEYS = (
    "heat_template_version",
    "AWSTemplateFormatVersion",
    "HeatTemplateFormatVersion",
)

_FastBase: type[yaml.SafeLoader] = getattr(
    yaml, "CSafeLoader", yaml.SafeLoader
)


def _construct_str(loader: Any, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


class _FastLoader(_FastBase):  # type: ignore[misc,valid-type]
    """The loader used for parsing (libyaml when it is installed)."""


class _ExplainingLoader(yaml.SafeLoader):
    """The pure-Python loader, used again to explain a failure."""


for _loader in (_FastLoader, _ExplainingLoader):
    _loader.add_constructor("tag:yaml.org,2002:str", _construct_str)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_str)


def yaml_load(text: str) -> Any:
    """Load YAML text with Heat's loader.

    :raises yaml.YAMLError: with the pure-Python loader's message (line,
        column and a snippet) when the text is not valid YAML.
    """
    try:
        return yaml.load(text, Loader=_FastLoader)  # noqa: S506 - safe base
    except yaml.YAMLError:
        # libyaml's messages have no snippet: ask the Python loader again.
        return yaml.load(text, Loader=_ExplainingLoader)  # noqa: S506


def check_template_size(text: str, limit: int = MAX_TEMPLATE_SIZE) -> None:
    """Refuse a template longer than ``limit`` characters.

    :raises RequestLimitExceeded: when the text is too long.
    """
    if len(text) > limit:
        raise exception.RequestLimitExceeded(
            message=(
                f"Template size ({len(text)} bytes) exceeds maximum "
                f"allowed size ({limit} bytes)."
            )
        )


def simple_parse(text: str | bytes, url: str | None = None) -> dict[str, Any]:
    """Parse template text into a mapping, without requiring a version.

    :param text: the template as JSON or YAML.
    :param url: the template's name for error messages (``[root stack]``
        by default).
    :raises ValueError: for text that is not a JSON object or YAML mapping.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        doc = json.loads(text)
    except RecursionError:
        raise nesting.too_deep("The template") from None
    except ValueError:
        try:
            doc = yaml_load(text)
        except RecursionError:
            raise nesting.too_deep("The template") from None
        except yaml.YAMLError as err:
            where = "[root stack]" if url is None else url
            raise ValueError(f"Error parsing template {where} {err}") from err
        if doc is None:
            doc = {}
    nesting.check(doc, "The template")
    if not isinstance(doc, dict):
        raise ValueError("The template is not a JSON object or YAML mapping.")
    return doc


def parse(
    text: str | bytes,
    url: str | None = None,
    max_size: int = MAX_TEMPLATE_SIZE,
) -> dict[str, Any]:
    """Parse template text and require one of the version keys.

    :raises RequestLimitExceeded: when the text is too long.
    :raises ValueError: when it is not a mapping or has no version key.
    """
    check_template_size(str(text), max_size)
    doc = simple_parse(text, url)
    if not any(key in doc for key in VERSION_KEYS):
        raise ValueError("Template format version not found.")
    return doc
