"""A ``Content-Type`` charset no codec knows is dropped, not fatal.

WebOb decodes a body with the charset the request names; a charset
Python has no codec for (``charset=é``) raised ``LookupError`` deep in
the routing, a 500. Heat reads such a body as UTF-8 and answers; so do
we: the charset parameter is removed before anything reads the body.
"""

from __future__ import annotations

import codecs
from typing import Any

from keel_heat_api.fault import StartResponse, WSGIApp


def _known(charset: str) -> bool:
    try:
        codecs.lookup(charset)
    except LookupError:
        return False
    return True


def without_unknown_charset(content_type: str) -> str:
    """``content_type`` without a ``charset`` parameter no codec knows."""
    parts = [part.strip() for part in content_type.split(";")]
    kept = [parts[0]]
    for param in parts[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and not _known(
            value.strip().strip('"')
        ):
            continue
        kept.append(param)
    return "; ".join(kept)


class CharsetGuard:
    """WSGI middleware applying :func:`without_unknown_charset`."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        content_type = environ.get("CONTENT_TYPE")
        if content_type and "charset" in content_type.lower():
            environ["CONTENT_TYPE"] = without_unknown_charset(content_type)
        return self.app(environ, start_response)
