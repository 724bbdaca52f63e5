"""Fake clients of the ``keystone`` and ``heat`` client plugins.

Resources with stack users and signal endpoints (wait condition handles,
deployments, scaling policies) talk to Keystone's stack domain and ask the
``heat`` plugin for endpoint URLs; these fakes answer in memory.
"""

from __future__ import annotations

import types
import uuid
from typing import Any

from keel_heat_core import exception
from keel_heat_core.testing.fakes import FakeClientPlugin, FakeContext


class FakeKeystoneClient:
    """Heat's stack-domain Keystone operations, in memory."""

    v3_endpoint = "http://keystone.example.com:5000/v3"
    stack_domain_id = "stack_domain_id"

    def __init__(self) -> None:
        self.users: dict[str, dict[str, Any]] = {}
        self.keypairs: dict[str, Any] = {}
        self.projects: list[str] = []

    def server_keystone_endpoint_url(self, fallback_endpoint: str) -> str:
        return fallback_endpoint

    def create_stack_domain_project(self, stack_id: str) -> str:
        project_id = uuid.uuid4().hex
        self.projects.append(project_id)
        return project_id

    def create_stack_domain_user(
        self, username: str, project_id: str, password: str | None = None
    ) -> str:
        user_id = uuid.uuid4().hex
        self.users[user_id] = {
            "name": username,
            "project_id": project_id,
            "password": password,
            "enabled": True,
        }
        return user_id

    def _user(self, user_id: str) -> dict[str, Any]:
        if user_id not in self.users:
            raise exception.EntityNotFound(entity="User", name=user_id)
        return self.users[user_id]

    def delete_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._user(user_id)
        del self.users[user_id]

    def enable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._user(user_id)["enabled"] = True

    def disable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._user(user_id)["enabled"] = False

    def stack_domain_user_token(
        self, user_id: str, project_id: str, password: str
    ) -> str:
        if self._user(user_id)["password"] != password:
            raise exception.AuthorizationFailure()
        return f"token-{user_id}"

    def create_stack_domain_user_keypair(
        self, user_id: str, project_id: str
    ) -> Any:
        self._user(user_id)
        keypair = types.SimpleNamespace(
            id=uuid.uuid4().hex,
            access=uuid.uuid4().hex,
            secret=uuid.uuid4().hex,
            user_id=user_id,
        )
        self.keypairs[keypair.id] = keypair
        return keypair

    def delete_stack_domain_user_keypair(
        self, user_id: str, project_id: str, credential_id: str
    ) -> None:
        if credential_id not in self.keypairs:
            raise exception.EntityNotFound(
                entity="Credential", name=credential_id
            )
        del self.keypairs[credential_id]


class FakeHeatPlugin(FakeClientPlugin):
    """The ``heat`` client plugin: a fake heatclient and endpoint URLs."""

    def __init__(self, context: Any) -> None:
        super().__init__(
            context, FakeHeatClient(), not_found=(exception.EntityNotFound,)
        )
        self.heat_url = f"http://heat.example.com:8004/v1/{context.project_id}"
        self.cfn_url = "http://heat.example.com:8000/v1"

    def get_heat_url(self) -> str:
        return self.heat_url

    def get_heat_cfn_url(self) -> str:
        return self.cfn_url

    def get_cfn_metadata_server_url(self) -> str:
        return self.cfn_url + "/"

    def get_insecure_option(self) -> bool:
        return False


class _FakeHeatStacks:
    """python-heatclient's ``stacks`` manager, in memory."""

    def __init__(self) -> None:
        self.stacks: dict[str, types.SimpleNamespace] = {}
        self.validated: list[dict[str, Any]] = []

    def _set(self, stack: Any, action: str, status: str = "COMPLETE") -> None:
        stack.action, stack.status = action, status
        stack.stack_status = f"{action}_{status}"
        stack.stack_status_reason = f"Stack {action} completed successfully"

    def validate(self, **args: Any) -> dict[str, Any]:
        self.validated.append(args)
        return {"Parameters": {}}

    def create(self, **args: Any) -> dict[str, Any]:
        stack = types.SimpleNamespace(
            id=uuid.uuid4().hex,
            stack_name=args["stack_name"],
            args=args,
            outputs=[],
        )
        self._set(stack, "CREATE")
        self.stacks[stack.id] = stack
        return {"stack": {"id": stack.id}}

    def get(self, stack_id: str) -> Any:
        if stack_id not in self.stacks:
            raise exception.EntityNotFound(entity="Stack", name=stack_id)
        return self.stacks[stack_id]

    def update(self, stack_id: str, **args: Any) -> None:
        stack = self.get(stack_id)
        stack.args = args
        self._set(stack, "UPDATE")

    def delete(self, stack_id: str) -> None:
        self._set(self.get(stack_id), "DELETE")


class FakeHeatClient:
    """The parts of python-heatclient resources use."""

    def __init__(self) -> None:
        self.stacks = _FakeHeatStacks()
        self.actions = types.SimpleNamespace(
            suspend=lambda stack_id: self.stacks._set(
                self.stacks.get(stack_id), "SUSPEND"
            ),
            resume=lambda stack_id: self.stacks._set(
                self.stacks.get(stack_id), "RESUME"
            ),
            check=lambda stack_id: self.stacks._set(
                self.stacks.get(stack_id), "CHECK"
            ),
        )


class FakeNovaPlugin(FakeClientPlugin):
    """The ``nova`` plugin's server lookup: servers are ids in a set."""

    def __init__(self, context: Any) -> None:
        super().__init__(context, not_found=(exception.EntityNotFound,))
        self.servers: set[str] = set()

    def get_server(self, server: str) -> dict[str, str]:
        if server not in self.servers:
            raise exception.EntityNotFound(entity="Server", name=server)
        return {"id": server}


def install_fake_clients(context: FakeContext) -> FakeKeystoneClient:
    """Register fake ``keystone``, ``heat`` and ``nova`` plugins."""
    keystone = FakeKeystoneClient()
    context.clients.register(
        "keystone",
        FakeClientPlugin(
            context, keystone, not_found=(exception.EntityNotFound,)
        ),
    )
    context.clients.register("heat", FakeHeatPlugin(context))
    context.clients.register("nova", FakeNovaPlugin(context))
    return keystone
