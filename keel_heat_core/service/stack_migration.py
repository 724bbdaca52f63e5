"""``migrate_convergence_1``: a legacy stack tree becomes a convergence one.

A database taken over from Python Heat may hold stacks its legacy engine
wrote (``convergence = 0``: resources without ``current_template_id``
or ``requires``). keel-heat only runs convergence traversals, so the
operator migrates such a stack first (``keel-heat-manage
migrate-convergence-1 STACK_ID``, which calls this over RPC, as Heat's
``heat-manage migrate_convergence_1`` does).

The dependencies written to ``requires`` are the ones the engine's own
traversals use (:meth:`TemplateResource.dependency_names`, explicit and
implicit, over the stack's parameters and conditions), so the first
traversal after the migration builds its graph from the same edges.
The row work is :func:`keel_heat_core.db.admin.migrate_convergence`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import admin
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.scope import ADMIN
from keel_heat_core.service import db_stores

LOG = logging.getLogger(__name__)


class StackMigration:
    """The engine's ``migrate_convergence_1``.

    :param api: the stack lifecycle implementation
        (:class:`keel_heat_core.service.stack_api.StackAPI`).
    """

    def __init__(self, api: Any) -> None:
        self._api = api

    def _dependencies(
        self, stack_id: str, template: Any
    ) -> Mapping[str, Iterable[str]]:
        rec = stack_repo.get(self._api.db, stack_id, ADMIN)
        if rec is None:
            raise exception.EntityNotFound(entity="Stack", name=stack_id)
        definitions = self._api.stored(db_stores.stack_row(rec))
        return {
            name: [d for d in defn.dependency_names() if d in definitions]
            for name, defn in definitions.items()
        }

    def migrate_convergence_1(self, ctxt: Any, stack_id: str) -> None:
        """Migrate the stack tree rooted at ``stack_id``.

        :raises EntityNotFound: no such stack visible to ``ctxt``.
        :raises NotSupported: ``stack_id`` is a nested stack.
        :raises ActionNotComplete: a stack of the tree is not COMPLETE.
        :raises ActionInProgress: a live engine holds a stack's lock.
        """
        api = self._api
        stack = api.load(ctxt, stack_id)
        try:
            done = admin.migrate_convergence(
                api.db,
                stack.id,
                self._dependencies,
                engine_id=api.deps.engine_id,
                is_alive=api.deps.liveness.is_alive,
            )
        except admin.NestedMigration:
            raise exception.NotSupported(
                feature=f"Migration of nested stack {stack_id}"
            ) from None
        except admin.NotComplete as exc:
            raise exception.ActionNotComplete(
                stack_name=exc.stack_name, action=exc.action
            ) from None
        except admin.StackLocked as exc:
            raise exception.ActionInProgress(
                stack_name=exc.stack_name, action=exc.action
            ) from None
        if not done:
            LOG.info("Convergence was already enabled for stack %s", stack_id)
