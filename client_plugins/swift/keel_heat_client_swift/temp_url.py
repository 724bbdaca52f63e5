"""Swift temporary URLs and Swift's HTTP dates, without any I/O.

A temporary URL lets whoever holds it do one kind of request (``PUT``,
``GET`` …) on one object until it expires, without a token: Swift's
``tempurl`` middleware checks an HMAC of the method, the expiry time and
the object's path, keyed with the account's ``Temp-URL-Key``. SHA-256 is
used: Swift's default set of allowed digests no longer has SHA-1.
"""

from __future__ import annotations

import datetime
import email.utils
import hashlib
import hmac
import secrets
import time
from urllib import parse

#: The latest expiry a temporary URL can carry (a signed 32-bit time).
MAX_EPOCH = 2147483647

#: The account header that holds the key of temporary URLs.
TEMP_URL_KEY_HEADER = "x-account-meta-temp-url-key"


def new_temp_url_key() -> str:
    """A random key for an account's temporary URLs (32 hex digits)."""
    return secrets.token_hex(16)


def default_lifetime(now: float | None = None) -> int:
    """Seconds from ``now`` to just before :data:`MAX_EPOCH`.

    A temporary URL made for a signal has no useful end: it lasts as
    long as a temporary URL can.
    """
    current = time.time() if now is None else now
    return int(MAX_EPOCH - 60 - current)


def sign_path(path: str, expires: int, key: str, method: str = "PUT") -> str:
    """``path`` with the ``temp_url_sig`` and ``temp_url_expires``
    query of a temporary URL.

    :param path: ``/v1/<account>/<container>/<object>``.
    :param expires: the expiry as seconds since the epoch.
    :param key: the account's temporary URL key.
    :param method: the HTTP method the URL allows.
    """
    body = f"{method.upper()}\n{expires}\n{path}"
    signature = hmac.new(
        key.encode(), body.encode(), hashlib.sha256
    ).hexdigest()
    query = parse.urlencode(
        {"temp_url_sig": signature, "temp_url_expires": str(expires)}
    )
    return f"{path}?{query}"


def object_path(storage_url: str, container: str, obj: str) -> str:
    """The path of an object below the storage URL of its account."""
    account_path = parse.urlparse(storage_url).path.rstrip("/")
    return "/".join([account_path, parse.quote(container), parse.quote(obj)])


def is_valid_temp_url_path(path: str, project_id: str) -> bool:
    """Whether ``path`` has the shape of a temporary URL's object path of
    ``project_id``'s account: ``/v1/<…project_id>/<container>/<object>``
    with an object name that is more than slashes."""
    parts = path.split("/", 4)
    return (
        len(parts) == 5
        and not parts[0]
        and parts[1] == "v1"
        and parts[2].endswith(project_id)
        and bool(parts[3])
        and bool(parts[4].strip("/"))
    )


def parse_last_modified(value: str | None) -> datetime.datetime | None:
    """A ``Last-Modified`` header as a naive UTC datetime (``None`` for
    none): HTTP dates are always in GMT."""
    if not value:
        return None
    parsed = email.utils.parsedate(value)
    if parsed is None:
        return None
    return datetime.datetime(*parsed[:6])  # noqa: DTZ001
