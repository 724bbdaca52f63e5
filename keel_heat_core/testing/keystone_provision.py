"""Create in a fresh Keystone what Heat and its tests need.

Done over the REST API with the bootstrap admin's session:

* roles ``heat_stack_owner``, ``heat_stack_user``, ``member``, ``reader``;
* project ``service`` and the ``heat`` service user, admin on it;
* the stack-user domain ``heat`` and its admin ``heat_domain_admin``
  (admin on the domain);
* projects ``demo`` and ``alt_demo``, each with a same-named user holding
  ``member`` and ``heat_stack_owner`` on it.

The catalog entries for Heat's own APIs are added later with
:func:`register_service`, once the test knows the API's port.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from keystoneauth1 import session as ks_session

ROLES = ("heat_stack_owner", "heat_stack_user", "member", "reader")
STACK_DOMAIN = "heat"
DOMAIN_ADMIN = "heat_domain_admin"
MEMBER_PROJECTS = ("demo", "alt_demo")
INTERFACES = ("public", "internal", "admin")


@dataclass(frozen=True)
class User:
    """A user created by the provisioning, with its password."""

    id: str
    password: str
    domain_id: str


@dataclass
class Provisioned:
    """Ids of what :func:`provision_heat` created."""

    stack_domain_id: str = ""
    roles: dict[str, str] = field(default_factory=dict)
    projects: dict[str, str] = field(default_factory=dict)
    users: dict[str, User] = field(default_factory=dict)


class _Api:
    """Thin JSON helper over a keystoneauth1 session."""

    def __init__(self, sess: ks_session.Session, v3_url: str) -> None:
        self._sess = sess
        self._url = v3_url

    def get(self, path: str, **params: str) -> Any:
        resp = self._sess.get(f"{self._url}{path}", params=params)
        return resp.json()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._sess.post(f"{self._url}{path}", json=body).json()

    def patch(self, path: str, body: dict[str, Any]) -> Any:
        return self._sess.patch(f"{self._url}{path}", json=body).json()

    def put(self, path: str) -> None:
        self._sess.put(f"{self._url}{path}")


def _ensure_role(api: _Api, name: str) -> str:
    found = api.get("/roles", name=name)["roles"]
    if found:
        return str(found[0]["id"])
    return str(api.post("/roles", {"role": {"name": name}})["role"]["id"])


def _create_project(api: _Api, name: str, domain_id: str) -> str:
    body = {"project": {"name": name, "domain_id": domain_id}}
    return str(api.post("/projects", body)["project"]["id"])


def _create_user(
    api: _Api, name: str, domain_id: str, project_id: str | None
) -> User:
    password = secrets.token_hex(12)
    body: dict[str, Any] = {
        "name": name,
        "password": password,
        "domain_id": domain_id,
    }
    if project_id:
        body["default_project_id"] = project_id
    user = api.post("/users", {"user": body})["user"]
    return User(id=user["id"], password=password, domain_id=domain_id)


def provision_heat(sess: ks_session.Session, v3_url: str) -> Provisioned:
    """Create Heat's roles, users, projects and stack-user domain.

    :param sess: a session of a cloud admin.
    :param v3_url: the ``/v3`` identity endpoint.
    :returns: the ids and passwords of what was created.
    """
    api = _Api(sess, v3_url)
    made = Provisioned()
    made.roles["admin"] = _ensure_role(api, "admin")
    for role in ROLES:
        made.roles[role] = _ensure_role(api, role)

    service = _create_project(api, "service", "default")
    made.projects["service"] = service
    made.users["heat"] = _create_user(api, "heat", "default", service)
    api.put(
        f"/projects/{service}/users/{made.users['heat'].id}"
        f"/roles/{made.roles['admin']}"
    )

    domain = api.post(
        "/domains",
        {
            "domain": {
                "name": STACK_DOMAIN,
                "description": "Owns users and projects created by heat",
            }
        },
    )["domain"]["id"]
    made.stack_domain_id = domain
    admin = _create_user(api, DOMAIN_ADMIN, domain, None)
    made.users[DOMAIN_ADMIN] = admin
    api.put(f"/domains/{domain}/users/{admin.id}/roles/{made.roles['admin']}")

    for name in MEMBER_PROJECTS:
        project = _create_project(api, name, "default")
        made.projects[name] = project
        user = _create_user(api, name, "default", project)
        made.users[name] = user
        for role in ("member", "heat_stack_owner"):
            api.put(
                f"/projects/{project}/users/{user.id}/roles/{made.roles[role]}"
            )
    return made


def register_service(
    sess: ks_session.Session,
    v3_url: str,
    service_type: str,
    name: str,
    url: str,
    region: str,
) -> str:
    """Create or move a catalog service's endpoints to ``url``.

    :param sess: a session of a cloud admin.
    :param v3_url: the ``/v3`` identity endpoint.
    :param service_type: e.g. ``orchestration``.
    :param name: the service name, e.g. ``heat``.
    :param url: the endpoint URL for all three interfaces.
    :param region: the region id.
    :returns: the service id.
    """
    api = _Api(sess, v3_url)
    services = api.get("/services", type=service_type)["services"]
    if services:
        service_id = str(services[0]["id"])
    else:
        service_id = str(
            api.post(
                "/services",
                {"service": {"type": service_type, "name": name}},
            )["service"]["id"]
        )
    existing = {
        ep["interface"]: ep["id"]
        for ep in api.get("/endpoints", service_id=service_id)["endpoints"]
    }
    for interface in INTERFACES:
        if interface in existing:
            api.patch(
                f"/endpoints/{existing[interface]}",
                {"endpoint": {"url": url}},
            )
        else:
            api.post(
                "/endpoints",
                {
                    "endpoint": {
                        "service_id": service_id,
                        "interface": interface,
                        "url": url,
                        "region_id": region,
                    }
                },
            )
    return service_id


def provision_service_users(
    sess: ks_session.Session,
    v3_url: str,
    names: tuple[str, ...],
    password: str,
) -> dict[str, str]:
    """Create the users services log in as, in project ``service``.

    Each holds ``admin`` and ``service`` there (the ``service`` role is
    what keystonemiddleware asks of a service token). The ``service``
    project must exist (:func:`provision_heat` makes it).

    :param names: the user names (``nova``, ``glance``, ...).
    :param password: the password of all of them.
    :returns: user name to user id.
    """
    api = _Api(sess, v3_url)
    roles = [_ensure_role(api, "admin"), _ensure_role(api, "service")]
    project = api.get("/projects", name="service")["projects"][0]["id"]
    made: dict[str, str] = {}
    for name in names:
        body = {
            "name": name,
            "password": password,
            "domain_id": "default",
            "default_project_id": project,
        }
        user = api.post("/users", {"user": body})["user"]["id"]
        for role in roles:
            api.put(f"/projects/{project}/users/{user}/roles/{role}")
        made[name] = str(user)
    return made
