"""Stack identities as Heat writes them (``{tenant, stack_name,
stack_id, path}`` and ARNs)."""

from __future__ import annotations

import dataclasses
import urllib.parse


@dataclasses.dataclass
class StackIdentifier:
    """A stack identity."""

    tenant: str
    stack_name: str
    stack_id: str
    path: str = ""

    def arn(self) -> str:
        """``arn:openstack:heat::<tenant>:stacks/<name>/<id><path>``."""
        name = urllib.parse.quote(self.stack_name, "")
        return (
            f"arn:openstack:heat::{urllib.parse.quote(self.tenant, '')}:"
            f"stacks/{name}/{self.stack_id}{self.path}"
        )

    def url_path(self) -> str:
        """``<tenant>/stacks/<name>/<id><path>``."""
        return f"{self.tenant}/stacks/{self.stack_name}/{self.stack_id}"

    def as_dict(self) -> dict[str, str]:
        """The RPC form."""
        return {
            "tenant": self.tenant,
            "stack_name": self.stack_name,
            "stack_id": self.stack_id,
            "path": self.path,
        }
