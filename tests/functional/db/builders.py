"""Small helpers that create rows through the repositories."""

from __future__ import annotations

import uuid
from typing import Any

from keel_heat_core.db import raw_template, records, stack
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db.database import Database

TEMPLATE = {"heat_template_version": "2021-04-16", "resources": {}}
ENV = {
    "parameters": {},
    "parameter_defaults": {},
    "resource_registry": {},
    "event_sinks": [],
    "encrypted_param_names": [],
}


def new_stack(
    db: Database, project: str = "proj", **values: Any
) -> records.StackRecord:
    tmpl = raw_template.create(db, TEMPLATE, ENV)
    base: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "name": f"s-{uuid.uuid4().hex[:8]}",
        "raw_template_id": tmpl.id,
        "tenant": project,
        "disable_rollback": True,
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "convergence": True,
        "current_traversal": str(uuid.uuid4()),
    }
    base.update(values)
    return stack.create(db, base)


def new_resource(
    db: Database, stack_rec: records.StackRecord, **values: Any
) -> records.ResourceRecord:
    base: dict[str, Any] = {
        "uuid": str(uuid.uuid4()),
        "name": f"r-{uuid.uuid4().hex[:6]}",
        "stack_id": stack_rec.id,
        "action": "INIT",
        "status": "COMPLETE",
        "current_template_id": stack_rec.raw_template_id,
        "root_stack_id": stack_rec.id,
        "needed_by": [],
        "requires": [],
    }
    base.update(values)
    return resource_repo.create(db, base)
