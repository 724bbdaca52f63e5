"""XML and JSON bodies of the CFN API, as Heat writes them.

XML (the default): no declaration and no namespace; the root element is
the result's single top key; a mapping gives one child element per key,
in order; a list gives one ``<member>`` per item; any other value is
written as Python's ``str()`` of it (so ``None``, ``True``, ``False``).
An empty mapping or list is a self-closing element, an empty string an
empty pair of tags. ``TemplateBody`` and ``Metadata`` values are written
as JSON text.

JSON (``ContentType=JSON``): ``json.dumps`` of the result, anything that
is not JSON written as its ``str()``.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any
from xml.sax.saxutils import escape

import webob

from keel_heat_api.cfn.aws_errors import AwsError

XML_TYPE = "application/xml"
JSON_TYPE = "application/json"

#: Values of these keys are JSON inside the XML (the AWS API says so).
JSON_ONLY_KEYS = ("TemplateBody", "Metadata")

# Element names an XML writer accepts (ASCII subset of the XML rule).
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def wants_json(params: Any) -> bool:
    """Return whether the request asked for JSON (``ContentType=JSON``)."""
    return bool(params.get("ContentType") == "JSON")


def _json_default(obj: Any) -> str:
    if isinstance(obj, datetime.datetime):
        return obj.isoformat()
    return str(obj)


def to_json(data: Any) -> str:
    """Return the JSON text of a result."""
    return json.dumps(data, default=_json_default)


def _open(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"Invalid tag name {name!r}")
    return f"<{name}>"


def _element(name: str, value: Any, out: list[str]) -> None:
    if isinstance(value, (dict, list)) and not value:
        _open(name)
        out.append(f"<{name}/>")
        return
    out.append(_open(name))
    if isinstance(value, list):
        for item in value:
            _element("member", item, out)
    elif isinstance(value, dict):
        for key, child in value.items():
            key = str(key)
            if key in JSON_ONLY_KEYS:
                if not child:
                    out.append(f"{_open(key)[:-1]}/>")
                    continue
                out.append(_open(key))
                out.append(escape(to_json(child)))
                out.append(f"</{key}>")
            else:
                _element(key, child, out)
    else:
        out.append(escape(str(value)))
    out.append(f"</{name}>")


def to_xml(data: dict[str, Any]) -> str:
    """Return the XML text of a result whose root is its first key."""
    root = next(iter(data))
    out: list[str] = []
    _element(str(root), data[root], out)
    return "".join(out)


def response(
    data: Any, as_json: bool, status: int | str = 200
) -> webob.Response:
    """Return the response carrying ``data`` in the requested format.

    :param data: the result tree (``{"<Action>Response": …}``).
    :param as_json: JSON instead of XML.
    :param status: the HTTP status, or a whole status line.
    """
    resp = webob.Response(status=status)
    if as_json:
        resp.content_type = JSON_TYPE
        resp.body = to_json(data).encode("utf-8")
    else:
        resp.content_type = XML_TYPE
        resp.charset = "UTF-8"
        resp.text = to_xml(data)
    return resp


def error_response(err: AwsError, as_json: bool) -> webob.Response:
    """Return the answer to an AWS error.

    The status line's reason phrase is the AWS error code, as in Heat
    (``403 AccessDenied``). Unlike Heat, a JSON request gets the error as
    JSON with its real status (Heat answers 200 and a bare string).
    """
    return response(err.body(), as_json, f"{err.status} {err.code}")


def format_result(action: str, result: Any) -> dict[str, Any]:
    """Wrap an action's result as ``<Action>Response/<Action>Result``."""
    return {f"{action}Response": {f"{action}Result": result}}
