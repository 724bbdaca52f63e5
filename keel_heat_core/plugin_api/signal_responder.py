"""SignalResponder: a resource that can be signalled from outside.

Wait condition handles, deployments and scaling policies hand out a way to
signal them, chosen by the ``signal_transport`` property:

* ``CFN_SIGNAL`` - a URL to heat-api-cfn pre-signed (EC2 signature v2,
  HmacSHA256) with the stack user's EC2 keypair;
* ``HEAT_SIGNAL`` - stack-user credentials and the heat-api signal URL;
* ``TOKEN_SIGNAL`` - a stack-user token and the heat-api endpoint;
* ``NO_SIGNAL`` - nothing (the resource does not wait).

``TEMP_URL_SIGNAL`` (Swift) and ``ZAQAR_SIGNAL`` come with the Swift and
Zaqar packs.  URLs come from the ``heat`` client plugin
(``get_heat_url()``, ``get_heat_cfn_url()``) and credentials from the
``keystone`` one (``server_keystone_endpoint_url``, ``stack_domain_id``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import string
from typing import Any
from urllib.parse import quote, unquote, urlencode, urljoin, urlparse

from keel_heat_core import exception
from keel_heat_core.plugin_api import identifier
from keel_heat_core.plugin_api.stack_user import StackUser

SIGNAL_TYPES = (WAITCONDITION, SIGNAL) = ("/waitcondition", "/signal")
SIGNAL_VERB = {WAITCONDITION: "PUT", SIGNAL: "POST"}
SIGNAL_TRANSPORTS = (
    CFN_SIGNAL,
    TEMP_URL_SIGNAL,
    HEAT_SIGNAL,
    NO_SIGNAL,
    ZAQAR_SIGNAL,
    TOKEN_SIGNAL,
) = (
    "CFN_SIGNAL",
    "TEMP_URL_SIGNAL",
    "HEAT_SIGNAL",
    "NO_SIGNAL",
    "ZAQAR_SIGNAL",
    "TOKEN_SIGNAL",
)


def generate_password(length: int = 32) -> str:
    """A random password with letters, digits and punctuation."""
    alphabet = string.ascii_letters + string.digits + "!@#%^&*()-_=+"
    return "".join(secrets.choice(alphabet) for _ in range(length))


def ec2_signature_v2(
    secret_key: str, verb: str, host: str, path: str, params: dict[str, str]
) -> str:
    """The EC2 v2 signature (HmacSHA256, base64) of a request."""
    pairs = [
        quote(k, safe="") + "=" + quote(str(params[k]), safe="-_~")
        for k in sorted(params)
    ]
    to_sign = f"{verb}\n{host}\n{path}\n" + "&".join(pairs)
    digest = hmac.new(
        secret_key.encode(), to_sign.encode(), hashlib.sha256
    ).digest()
    return base64.b64encode(digest).decode()


class SignalResponder(StackUser):
    """Base of resources with a signal endpoint (see module doc)."""

    requires_deferred_auth = True

    @property
    def password(self) -> str | None:
        return self.data().get("password")

    @password.setter
    def password(self, value: str | None) -> None:
        if value is None:
            self.data_delete("password")
        else:
            self.data_set("password", value, True)

    def identifier(self) -> identifier.HeatIdentifier:
        """This resource's identifier."""
        return identifier.resource_identifier(self.stack, self.name)

    def signal_transport(self) -> str | None:
        """The chosen transport (the ``signal_transport`` property)."""
        if "signal_transport" in self.properties:
            value = self.properties["signal_transport"]
            return str(value) if value is not None else None
        return None

    def handle_delete(self) -> Any:
        for key in ("ec2_signed_url", "heat_signal_url"):
            self.data_delete(key)
        return super().handle_delete()

    def _get_ec2_signed_url(
        self, signal_type: str = SIGNAL, never_expire: bool = False
    ) -> str | None:
        stored = self.data().get("ec2_signed_url")
        if stored is not None:
            return stored
        if self.id is None:
            return None
        access_key = self.data().get("access_key")
        secret_key = self.data().get("secret_key")
        if not access_key or not secret_key:
            if self._get_user_id() is None:
                self._create_user()
            self._create_keypair()
            access_key = self.data().get("access_key")
            secret_key = self.data().get("secret_key")
        endpoint = self.client_plugin("heat").get_heat_cfn_url()
        signal_url = "".join([endpoint, signal_type])
        host_url = urlparse(signal_url)
        path = self.identifier().arn_url_path()
        created = self.created_time
        params = {
            "SignatureMethod": "HmacSHA256",
            "SignatureVersion": "2",
            "AWSAccessKeyId": str(access_key),
            "Timestamp": created.strftime("%Y-%m-%dT%H:%M:%SZ")
            if created is not None
            else "",
        }
        params["Signature"] = ec2_signature_v2(
            str(secret_key),
            SIGNAL_VERB[signal_type],
            host_url.netloc.lower(),
            unquote(host_url.path + path),
            params,
        )
        url = f"{signal_url.lower()}{path}?{urlencode(params)}"
        self.data_set("ec2_signed_url", url)
        return url

    def _get_heat_signal_url(self, project_id: str | None = None) -> Any:
        stored = self.data().get("heat_signal_url")
        if stored is not None:
            return stored
        if self.id is None:
            return None
        base = self.client_plugin("heat").get_heat_url()
        path = self.identifier().url_path()
        if project_id is not None:
            path = project_id + path[path.find("/") :]
        url = urljoin(base, f"{path}/signal")
        self.data_set("heat_signal_url", url)
        return url

    def _get_heat_signal_credentials(self) -> dict[str, Any]:
        if self._get_user_id() is None:
            if self.password is None:
                self.password = generate_password()
            self._create_user()
        keystone = self.keystone()
        return {
            "auth_url": keystone.server_keystone_endpoint_url(
                fallback_endpoint=keystone.v3_endpoint
            ),
            "username": self.physical_resource_name(),
            "user_id": self._get_user_id(),
            "password": self.password,
            "project_id": self.stack.stack_user_project_id,
            "domain_id": keystone.stack_domain_id,
            "region_name": getattr(self.context, "region_name", None),
        }

    def _get_signal(
        self, signal_type: str = SIGNAL, multiple_signals: bool = False
    ) -> dict[str, Any]:
        """The details a client needs to signal this resource."""
        transport = self.signal_transport()
        if transport == CFN_SIGNAL:
            return {"alarm_url": self._get_ec2_signed_url(signal_type)}
        if transport == HEAT_SIGNAL:
            signal = self._get_heat_signal_credentials()
            signal["alarm_url"] = self._get_heat_signal_url(
                project_id=self.stack.stack_user_project_id
            )
            return signal
        if transport in (NO_SIGNAL, TOKEN_SIGNAL, None):
            return {}
        raise exception.NotSupported(
            feature=f"Signal transport {transport} in this deployment"
        )
