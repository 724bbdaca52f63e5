"""``TemplateBody`` / ``TemplateUrl`` of CreateStack, UpdateStack and
ValidateTemplate, with Heat's CFN error texts.

Parsing and fetching are the native API's
(:mod:`keel_heat_api.template_input`, :mod:`keel_heat_api.template_fetch`);
only the errors differ.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from oslo_config import cfg

from keel_heat_api import errors, template_input
from keel_heat_api.cfn import aws_errors

Fetch = Callable[[str], bytes]


def source(params: Mapping[str, str], fetch: Fetch) -> str | bytes:
    """Return the template text a request gives.

    ``TemplateBody`` wins over ``TemplateUrl``.

    :param params: the request parameters.
    :param fetch: ``fetch(url) -> bytes``, raising ``OSError`` (with the
        reason as text) when the template cannot be fetched.
    :raises aws_errors.MissingParameter: neither is given.
    :raises aws_errors.InvalidParameterValue: the fetch failed.
    """
    if "TemplateBody" in params:
        return params["TemplateBody"]
    if "TemplateUrl" in params:
        try:
            return fetch(params["TemplateUrl"])
        except OSError as exc:
            raise aws_errors.InvalidParameterValue(
                f"Failed to fetch template: {exc}"
            ) from None
    raise aws_errors.MissingParameter(
        "TemplateBody or TemplateUrl were not given."
    )


def load(
    conf: cfg.ConfigOpts, params: Mapping[str, str], fetch: Fetch
) -> dict[str, Any]:
    """Return the parsed template of a request.

    :raises aws_errors.RequestLimitExceeded: over ``max_template_size``
        (Heat lets this escape as a bare 500).
    :raises aws_errors.AwsError: with Heat's texts for the rest.
    """
    text = source(params, fetch)
    try:
        return template_input.parse_template(conf, text)
    except errors.RequestLimitExceeded as exc:
        raise aws_errors.RequestLimitExceeded(exc.message) from None
    except ValueError:
        raise aws_errors.InvalidParameterValue(
            "The Template must be a JSON or YAML document."
        ) from None
