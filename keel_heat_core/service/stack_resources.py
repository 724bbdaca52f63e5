"""The other resources of a stack, as one resource plugin reaches them.

Plugins ask their stack for ``resource_get(name)`` (a wait condition for
its handle, an AWS wait condition by the handle's ARN),
``resource_by_refid(refid)`` (a wait condition for the handle it
references, a deployment for its server) and, for the first stack user
of a stack, ``set_stack_user_project_id(project_id)``.
:class:`StackResources` answers them from the stack's resource rows,
building each plugin on demand with the engine's plugin factory.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database
from keel_heat_core.model import rows as r
from keel_heat_core.service.db_stores import resource_row

LOG = logging.getLogger(__name__)

#: ``(definition, row, resolved properties, stack) -> plugin``
Build = Callable[[Any, r.ResourceRow, dict[str, Any], r.StackRow], Any]


class StackResources:
    """Lookups of a stack's resources (see the module docstring).

    :param db: the database.
    :param build: the plugin factory.
    :param stack: the stack row.
    :param stored: its parsed template (``name in stored``,
        ``stored[name]`` is the definition).
    """

    def __init__(
        self, db: Database, build: Build, stack: r.StackRow, stored: Any
    ) -> None:
        self._db = db
        self._build = build
        self._stack = stack
        self._stored = stored

    def _rows(self) -> dict[str, r.ResourceRow]:
        out: dict[str, r.ResourceRow] = {}
        for rec in resource_repo.get_all_by_stack(self._db, self._stack.id):
            row = resource_row(rec)
            if row.name not in self._stored or row.replaced_by is not None:
                continue
            if row.name not in out or row.id > out[row.name].id:
                out[row.name] = row
        return out

    def _plugin(self, row: r.ResourceRow) -> Any:
        return self._build(
            self._stored[row.name],
            row,
            dict(row.properties or {}),
            self._stack,
        )

    def get(self, name: str) -> Any:
        """The plugin of a stored resource of the template, or None."""
        row = self._rows().get(name)
        return None if row is None else self._plugin(row)

    def by_refid(self, refid: str) -> Any:
        """The resource whose reference (``get_resource``) is ``refid``.

        A reference resolved without the resource's data (a resource being
        deleted sees the names of those it depends on) is its name: as in
        Heat, a name matches when no reference does.
        """
        rows = self._rows()
        for row in rows.values():
            if row.physical_id is not None and row.physical_id == refid:
                return self._plugin(row)
        for row in rows.values():
            plugin = self._plugin(row)
            with contextlib.suppress(Exception):
                if plugin.FnGetRefId() == refid:
                    return plugin
        found = rows.get(refid)
        return None if found is None else self._plugin(found)

    def set_stack_user_project_id(self, project_id: str) -> str:
        """Record the stack-domain project of the stack's users, unless
        another stack user recorded one first; returns the recorded one."""
        stored = stack_repo.claim_stack_user_project(
            self._db, self._stack.id, project_id
        )
        self._stack.stack_user_project_id = stored
        return stored
