"""EC2 signature middleware: AWS-signed requests become Keystone tokens.

For every request (the signal URLs included) the signature and access
key are found as Heat finds them (:mod:`keel_heat_core.identity.ec2tokens`)
and handed to Keystone's ``/v3/ec2tokens``, which knows the key's secret.
A request carrying ``X-Auth-User`` and no signature passes on to the
token middleware. On success the request continues with Keystone's token
in ``X-Auth-Token`` (validated next by keystonemiddleware) and the
project and roles in Heat's headers.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any
from urllib.parse import unquote

import webob
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_config import cfg

from keel_heat_api.cfn import aws_errors, serializers
from keel_heat_api.fault import StartResponse, WSGIApp
from keel_heat_core.conf import library_option
from keel_heat_core.identity import ec2tokens
from keel_heat_core.identity.errors import Ec2AuthError

LOG = logging.getLogger(__name__)

GROUP = "ec2authtoken"


def auth_uri(
    conf: cfg.ConfigOpts, sess: ks_session.Session | None
) -> str | None:
    """Return the identity endpoint signatures are checked against.

    ``[ec2authtoken] auth_uri``, else ``[clients_keystone] auth_uri``,
    else ``[keystone_authtoken] www_authenticate_uri``, else the
    ``auth_url`` of the ``[ec2authtoken]`` credentials.
    """
    for value in (
        conf[GROUP].auth_uri,
        conf.clients_keystone.auth_uri,
        library_option(conf, "keystone_authtoken", "www_authenticate_uri"),
    ):
        if value:
            return str(value)
    url = getattr(getattr(sess, "auth", None), "auth_url", None)
    return str(url) if url else None


class Ec2TokenMiddleware:
    """Check EC2 signatures (v2 and v4) through Keystone.

    :param app: the wrapped application (keystonemiddleware next).
    :param conf: the configuration (``[ec2authtoken]`` registered).
    :param session: the session of the ``ec2tokens`` calls (Keystone 30
        lets only services and admins make them); the ``[ec2authtoken]``
        credentials by default. Without one every signed request is an
        internal failure ("Service misconfigured"), as in Heat.
    """

    def __init__(
        self,
        app: WSGIApp,
        conf: cfg.ConfigOpts,
        session: ks_session.Session | None = None,
    ) -> None:
        self.app = app
        self.conf = conf
        self.session = session or ec2tokens.session_from_conf(conf)

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        req = webob.Request(environ)
        try:
            self.authorize(req)
        except aws_errors.AwsError as err:
            as_json = serializers.wants_json(req.params)
            resp = serializers.error_response(err, as_json)
            return resp(environ, start_response)
        return self.app(environ, start_response)

    def _uris(self) -> list[str]:
        if self.session is None:
            LOG.error("EC2 authentication is not configured: no credentials")
            raise aws_errors.InternalFailure("Service misconfigured")
        if self.conf[GROUP].multi_cloud:
            return list(self.conf[GROUP].allowed_auth_uris)
        uri = auth_uri(self.conf, self.session)
        if not uri:
            LOG.error("EC2 authentication is not configured: no auth_uri")
            raise aws_errors.InternalFailure("Service misconfigured")
        return [uri]

    def authorize(self, req: webob.Request) -> None:
        """Check the request's signature; set the identity headers.

        :raises aws_errors.AwsError: Heat's answer to each failure.
        """
        params = {key: req.params[key] for key in req.params}
        headers = dict(req.headers)
        signature = ec2tokens.find_signature(params, headers)
        if not signature:
            if "X-Auth-User" in req.headers:
                return
            LOG.info("No AWS Signature found.")
            raise aws_errors.IncompleteSignature()
        access = ec2tokens.find_access(params, headers)
        if not access:
            if "X-Auth-User" in req.headers:
                return
            LOG.info("No AWSAccessKeyId/Authorization Credential")
            raise aws_errors.MissingAuthenticationToken()
        params.pop("Signature", None)
        request = ec2tokens.Ec2Request(
            access=access,
            signature=signature,
            host=req.host,
            verb=req.method,
            path=unquote(req.path),
            params=params,
            headers=headers,
            body_hash=hashlib.sha256(req.body).hexdigest(),
        )
        last: aws_errors.AwsError = aws_errors.AccessDenied()
        for uri in self._uris():
            try:
                token = self._check(request, uri)
            except aws_errors.AwsError as err:
                last = err
                continue
            self._set_headers(req, access, signature, token, uri)
            return
        raise last

    def _check(self, request: ec2tokens.Ec2Request, uri: str) -> Any:
        assert self.session is not None  # noqa: S101 - checked in _uris
        try:
            return ec2tokens.check_signature(request, uri, self.session)
        except Ec2AuthError as exc:
            raise aws_errors.BY_AUTH_CODE.get(
                exc.code, aws_errors.AccessDenied
            )() from None
        except ks_exc.ClientException as exc:
            LOG.error("EC2 token check at %s failed: %s", uri, exc)
            raise aws_errors.InternalFailure() from None

    @staticmethod
    def _set_headers(
        req: webob.Request,
        access: str,
        signature: str,
        token: ec2tokens.Ec2Token,
        uri: str,
    ) -> None:
        creds = {"ec2Credentials": {"access": access, "signature": signature}}
        req.headers["X-Auth-EC2-Creds"] = json.dumps(creds)
        req.headers["X-Auth-Token"] = token.token
        req.headers["X-Tenant-Name"] = token.project_name
        req.headers["X-Tenant-Id"] = token.project_id
        req.headers["X-Auth-URL"] = uri
        req.headers["X-Roles"] = ",".join(token.roles)
