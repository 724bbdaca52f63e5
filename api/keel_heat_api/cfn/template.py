"""``TemplateBody`` / ``TemplateUrl`` of CreateStack, UpdateStack and
ValidateTemplate, with Heat's CFN error texts.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from oslo_config import cfg

from keel_heat_api.cfn import aws_errors

VERSION_KEYS = (
    "HeatTemplateFormatVersion",
    "heat_template_version",
    "AWSTemplateFormatVersion",
)

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc]
    """Safe YAML loader keeping timestamps (dates) as strings, as Heat."""


_Loader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),
)


def parse(conf: cfg.ConfigOpts, text: str) -> dict[str, Any]:
    """Parse a template as Heat's ``template_format.parse`` does.

    :raises aws_errors.RequestLimitExceeded: over ``max_template_size``
        (Heat lets this escape as a bare 500).
    :raises ValueError: for anything but a JSON or YAML mapping with a
        template version key.
    """
    text = text.strip()
    limit = conf.max_template_size
    if len(text) > limit:
        raise aws_errors.RequestLimitExceeded(
            f"Template size ({len(text)} bytes) exceeds maximum allowed "
            f"size ({limit} bytes)."
        )
    if text.startswith("{"):
        parsed = json.loads(text)
    else:
        try:
            parsed = yaml.load(text, Loader=_Loader)  # noqa: S506 - safe
        except yaml.YAMLError as err:
            raise ValueError(str(err)) from None
        if parsed is None:
            parsed = {}
    if not isinstance(parsed, dict):
        raise ValueError("The template is not a JSON object or YAML mapping.")
    if not any(key in parsed for key in VERSION_KEYS):
        raise ValueError("Template format version not found.")
    return parsed


def source(params: Any, fetch: Any) -> str:
    """Return the template text a request gives.

    ``TemplateBody`` wins over ``TemplateUrl``.

    :param params: the request parameters.
    :param fetch: ``fetch(url) -> bytes``, raising ``IOError`` (with the
        reason as text) when the template cannot be fetched.
    :raises aws_errors.MissingParameter: neither is given.
    :raises aws_errors.InvalidParameterValue: the fetch failed.
    """
    if "TemplateBody" in params:
        return str(params["TemplateBody"])
    if "TemplateUrl" in params:
        try:
            body = fetch(params["TemplateUrl"])
        except OSError as exc:
            raise aws_errors.InvalidParameterValue(
                f"Failed to fetch template: {exc}"
            ) from None
        return body.decode("utf-8") if isinstance(body, bytes) else str(body)
    raise aws_errors.MissingParameter(
        "TemplateBody or TemplateUrl were not given."
    )


def load(conf: cfg.ConfigOpts, params: Any, fetch: Any) -> dict[str, Any]:
    """Return the parsed template of a request.

    :raises aws_errors.AwsError: with Heat's texts.
    """
    text = source(params, fetch)
    try:
        return parse(conf, text)
    except ValueError:
        raise aws_errors.InvalidParameterValue(
            "The Template must be a JSON or YAML document."
        ) from None
