"""EC2 signature checks through Keystone's ``/v3/ec2tokens``.

The CFN API never verifies an AWS signature itself: it hands the signed
request's parts to Keystone, which knows the secret of the access key and
answers with a token for the key's user and project. Signature versions 2
(query ``Signature``) and 4 (``Authorization: AWS4-HMAC-SHA256 …`` header
or ``X-Amz-*`` query parameters) are both Keystone's business.

Keystone 30 lets only services and admins call ``ec2tokens``: the call is
made with the ``[ec2authtoken]`` credentials (Heat's service user), loaded
by :func:`session_from_conf`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_log import log as logging

from keel_heat_core.identity import errors

LOG = logging.getLogger(__name__)

# Keystone's error messages that name a more precise AWS error code.
_REASON_CODES = {
    "EC2 access key not found.": "InvalidClientTokenId",
    "EC2 signature not supplied.": "SignatureDoesNotMatch",
}


@dataclass(frozen=True)
class Ec2Request:
    """The parts of a signed request Keystone needs to check it.

    :ivar access: the access key id.
    :ivar signature: the signature sent.
    :ivar host: the request's ``Host`` (with the port if one was sent).
    :ivar verb: the HTTP method.
    :ivar path: the URL path, decoded.
    :ivar params: query and form parameters, ``Signature`` removed.
    :ivar headers: the request headers.
    :ivar body_hash: the SHA-256 hex digest of the raw body.
    """

    access: str
    signature: str
    host: str
    verb: str
    path: str
    params: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    body_hash: str = hashlib.sha256(b"").hexdigest()

    def body(self) -> dict[str, Any]:
        """Return the JSON body of the ``ec2tokens`` call."""
        return {
            "ec2Credentials": {
                "access": self.access,
                "signature": self.signature,
                "host": self.host,
                "verb": self.verb,
                "path": self.path,
                "params": dict(self.params),
                "headers": dict(self.headers),
                "body_hash": self.body_hash,
            }
        }


@dataclass(frozen=True)
class Ec2Token:
    """What Keystone answered for an accepted signature."""

    token: str
    project_name: str
    project_id: str
    roles: tuple[str, ...]
    user_id: str


def find_signature(
    params: Mapping[str, str], headers: Mapping[str, str]
) -> str | None:
    """Return the signature of a request, as Heat looks for it.

    ``Signature`` (v2), else ``X-Amz-Signature`` (v4 query), else the
    ``Signature=`` part of the ``Authorization`` header (v4).
    """
    sig = params.get("Signature") or params.get("X-Amz-Signature")
    if sig is None and "Authorization" in headers:
        auth = headers["Authorization"]
        sig = auth.partition("Signature=")[2].split(",")[0]
    return sig


def find_access(
    params: Mapping[str, str], headers: Mapping[str, str]
) -> str | None:
    """Return the access key id of a request, as Heat looks for it.

    ``AWSAccessKeyId`` (v2), else ``X-Amz-Credential`` up to its first
    ``/``, else ``Credential=`` of the ``Authorization`` header.
    """
    access = params.get("AWSAccessKeyId")
    if access is None:
        cred = params.get("X-Amz-Credential")
        if cred:
            access = cred.split("/")[0]
    if access is None and "Authorization" in headers:
        auth = headers["Authorization"]
        access = auth.partition("Credential=")[2].split(",")[0].split("/")[0]
    return access


def ec2tokens_url(auth_uri: str) -> str:
    """Return the ``ec2tokens`` URL for an identity endpoint.

    :param auth_uri: unversioned (``http://k:5000``), ``/v3``, ``/v2.0``
        (moved to v3, as Heat does) or already the ``ec2tokens`` URL.
    """
    uri = auth_uri.replace("v2.0", "v3").rstrip("/")
    if uri.endswith("ec2tokens"):
        return uri
    if not uri.endswith("/v3"):
        uri += "/v3"
    return f"{uri}/ec2tokens"


def session_from_conf(conf: Any) -> ks_session.Session | None:
    """Return the session of the ``[ec2authtoken]`` credentials.

    :param conf: a ``ConfigOpts`` with
        :func:`keel_heat_core.conf.identity.register_opts` applied.
    :returns: ``None`` when no auth plugin is configured there (the CFN
        API then answers "Service misconfigured").
    """
    from keystoneauth1 import loading as ks_loading

    auth = ks_loading.load_auth_from_conf_options(conf, "ec2authtoken")
    if auth is None:
        return None
    sess: ks_session.Session = ks_loading.load_session_from_conf_options(
        conf, "ec2authtoken", auth=auth
    )
    return sess


def check_signature(
    request: Ec2Request,
    auth_uri: str,
    session: ks_session.Session,
) -> Ec2Token:
    """Ask Keystone whether ``request`` is signed by its key's secret.

    :param request: the signed request's parts.
    :param auth_uri: the identity endpoint (see :func:`ec2tokens_url`).
    :param session: a session of a service user or admin (see
        :func:`session_from_conf`); its token authorises the check.
    :returns: the token Keystone issued for the key's user and project.
    :raises Ec2AuthError: with code ``AccessDenied`` when Keystone says
        401, ``InvalidClientTokenId`` for an unknown access key, or the
        code Keystone's error message names.
    :raises keystoneauth1.exceptions.HttpError: on other Keystone errors.
    """
    url = ec2tokens_url(auth_uri)
    LOG.info("Authenticating with %s", url)
    try:
        resp = session.post(url, json=request.body())
    except ks_exc.Unauthorized:
        LOG.info("AWS authentication failure.")
        raise errors.Ec2AuthError(code="AccessDenied") from None
    except ks_exc.NotFound as exc:
        # Keystone 30 answers 404 "EC2 access key not found." for an
        # unknown key; the message names the AWS error.
        LOG.info("AWS authentication failure.")
        code = _REASON_CODES.get(_message(exc), "AccessDenied")
        raise errors.Ec2AuthError(code=code) from None
    result = resp.json() if resp.content else {}
    try:
        token = result["token"]
        found = Ec2Token(
            token=resp.headers["X-Subject-Token"],
            project_name=token["project"]["name"],
            project_id=token["project"]["id"],
            roles=tuple(r["name"] for r in token.get("roles", [])),
            user_id=token.get("user", {}).get("id", ""),
        )
    except (AttributeError, KeyError, TypeError):
        LOG.info("AWS authentication failure.")
        reason = (result.get("error") or {}).get("message")
        code = _REASON_CODES.get(str(reason), "AccessDenied")
        raise errors.Ec2AuthError(code=code) from None
    LOG.info("AWS authentication successful.")
    return found


def _message(exc: ks_exc.HttpError) -> str:
    if exc.response is None:
        return ""
    try:
        return str(exc.response.json()["error"]["message"])
    except (KeyError, TypeError, ValueError):
        return ""
