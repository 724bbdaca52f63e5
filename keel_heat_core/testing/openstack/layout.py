"""Where each part of one test cloud lives: folders, ports, databases.

A :class:`Layout` is pure data: the configuration renderers
(:mod:`.config`) read it, and it is saved in the state folder's
``cloud.json`` so that another process (the ``down`` command, the pytest
fixture of another worker) finds the same cloud.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SERVICES = ("keystone", "placement", "nova", "glance", "neutron", "cinder")
"""The services served by gunicorn, in start order."""

SWIFT_SERVERS = ("proxy", "account", "container", "object")

DATABASES = (
    "keystone",
    "placement",
    "nova_api",
    "nova_cell0",
    "nova",
    "glance",
    "neutron",
    "cinder",
)
"""Each service's MariaDB databases (``<prefix><name>``)."""

SERVICE_USERS = ("placement", "nova", "glance", "neutron", "cinder", "swift")
"""Keystone users of the services (admin and ``service`` on ``service``)."""

REGION = "RegionOne"
DB_SERVER = "mysql+pymysql://root@127.0.0.1:3306/"
BROKER = "rabbit://guest:guest@127.0.0.1:5672/"


def new_prefix() -> str:
    """Return a fresh database and virtual-host prefix (``kc<8 hex>_``)."""
    return f"kc{secrets.token_hex(4)}_"


@dataclass
class Layout:
    """One cloud's names, folders and ports.

    :ivar state_dir: the folder of every file the cloud writes.
    :ivar venv: the cloud's virtualenv.
    :ivar prefix: the start of its database and virtual host names.
    :ivar ports: service name (``keystone``, ``swift-object``, ...) to
        its TCP port on 127.0.0.1.
    :ivar service_password: the password of every service user.
    :ivar host: the compute and agent host name.
    """

    state_dir: Path
    venv: Path
    prefix: str
    ports: dict[str, int] = field(default_factory=dict)
    service_password: str = field(
        default_factory=lambda: secrets.token_hex(12)
    )
    swift_hash: str = field(default_factory=lambda: secrets.token_hex(8))
    host: str = "keel-cloud"
    region: str = REGION

    @property
    def vhost(self) -> str:
        """The RabbitMQ virtual host of every service."""
        return self.prefix.rstrip("_")

    @property
    def transport_url(self) -> str:
        """oslo.messaging's URL of the cloud's virtual host."""
        return f"{BROKER}{self.vhost}"

    def database_url(self, name: str) -> str:
        """The SQLAlchemy URL of database ``name`` (of :data:`DATABASES`)."""
        return f"{DB_SERVER}{self.database(name)}?charset=utf8"

    def database(self, name: str) -> str:
        """The MariaDB name of database ``name``."""
        return f"{self.prefix}{name}"

    def url(self, service: str) -> str:
        """``http://127.0.0.1:<port>`` of ``service``."""
        return f"http://127.0.0.1:{self.ports[service]}"

    @property
    def keystone_url(self) -> str:
        """The unversioned identity endpoint."""
        return self.url("keystone")

    def dir(self, service: str) -> Path:
        """The folder of ``service``'s configuration and data."""
        return self.state_dir / service

    @property
    def log_dir(self) -> Path:
        """The folder of every process's log (``<name>.log``)."""
        return self.state_dir / "logs"

    def endpoints(self) -> dict[str, tuple[str, str, str]]:
        """Catalog entries: service type to (name, URL, user).

        The user is the Keystone user the service logs in as, empty for
        the identity service itself.
        """
        return {
            "placement": ("placement", self.url("placement"), "placement"),
            "compute": (
                "nova",
                f"{self.url('nova')}/v2.1",
                "nova",
            ),
            "image": ("glance", self.url("glance"), "glance"),
            "network": ("neutron", self.url("neutron"), "neutron"),
            "block-storage": (
                "cinder",
                f"{self.url('cinder')}/v3/$(project_id)s",
                "cinder",
            ),
            "volumev3": (
                "cinderv3",
                f"{self.url('cinder')}/v3/$(project_id)s",
                "cinder",
            ),
            "object-store": (
                "swift",
                f"{self.url('swift-proxy')}/v1/AUTH_$(project_id)s",
                "swift",
            ),
        }

    def to_json(self) -> dict[str, Any]:
        """A JSON-able copy (see :meth:`from_json`)."""
        data = asdict(self)
        data["state_dir"] = str(self.state_dir)
        data["venv"] = str(self.venv)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Layout:
        """The layout :meth:`to_json` gave."""
        given = dict(data)
        given["state_dir"] = Path(given["state_dir"])
        given["venv"] = Path(given["venv"])
        return cls(**given)
