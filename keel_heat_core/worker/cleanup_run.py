"""Cleanup nodes with nothing to clean, run inside one transaction.

An update's cleanup nodes follow its update nodes in reverse dependency
order. For a resource that is still of the new template (updated in
place, or untouched) a cleanup node has nothing to do: it only reports
to its successor, a read and swap of that successor's sync point. In a
chain of N resources that is N such nodes one after the other, each a
transaction of its own.

:class:`CleanupRun` is the :class:`~keel_heat_core.convergence.store.Follow`
of a node's read and swap: once the swap has fired the next node and
read its row, it goes on in the same transaction while the node read is
such a cleanup with one resource successor. It reads the rows and sync
points the run may reach (up to :data:`LIMIT` nodes) with two
statements, then swaps each node's successor's sync point in turn. The
nodes it covered are done when the transaction
commits, and not before: a transaction that is rolled back or retried
takes all of them with it, and they are pending again as any fired node
whose engine died (``docs/design/resume.md``, "Runs of cleanups").

The run stops short, leaving the node to the worker as usual, at the
first node that is not a plain cleanup with nothing to clean (see
:meth:`CheckResource.nothing_to_clean`), at a successor that is the
stack or one of several, and at a swap that misses (another writer
came first) or finds no row (a newer traversal).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.store import InTransaction, ReadAhead
from keel_heat_core.convergence.sync_point import (
    Delivery,
    Ready,
    entity_id_of,
    plan_batch,
)
from keel_heat_core.graph import Graph
from keel_heat_core.worker.handoff import node_values

#: the most nodes one transaction covers (its row locks are held until
#: it commits: about a millisecond per node)
LIMIT = 50

#: ``(node, its row, its stack, how it was fired)`` -> whether the node
#: would do nothing but report to its successors
NothingToClean = Callable[[Node, Any, Any, Ready], bool]


class CleanupRun:
    """The follow of one read and swap (see the module's docstring).

    After the transaction: :attr:`done` lists the nodes it covered;
    :attr:`ready` is the node to run next (how the last swap fired it)
    and :attr:`found` its row and stack as read there, or None when the
    last swap fired nothing.
    """

    def __init__(
        self,
        graph: Graph[Node],
        traversal_id: str,
        first: Node,
        nothing_to_clean: NothingToClean,
        limit: int = LIMIT,
    ) -> None:
        self.graph = graph
        self.traversal_id = traversal_id
        self.first = first
        self.nothing_to_clean = nothing_to_clean
        self.limit = limit
        self.done: list[Node] = []
        self.ready: Ready | None = None
        self.found: tuple[Any, Any] | None = None

    def __call__(self, ahead: ReadAhead, txn: InTransaction) -> None:
        # a retried transaction starts over
        self.done, self.ready, self.found = [], None, None
        outcome = ahead.outcome() if ahead.outcome is not None else None
        if outcome is None or ahead.found is None or ahead.found[0] is None:
            return
        stack = ahead.found[1]  # one stack row for the whole run
        if stack is None or stack.current_traversal != self.traversal_id:
            return
        path = self._path()
        if not path:
            return
        rows: dict[int, Any] | None = None
        points: dict[tuple[str, bool], Any] = {}
        ready: Ready | None = dataclasses.replace(outcome, node=self.first)
        found: tuple[Any, Any] | None = ahead.found
        for node, succ in path:
            assert ready is not None and found is not None
            row = found[0]
            if row is None or not self.nothing_to_clean(
                node, row, stack, ready
            ):
                break
            if rows is None:
                # the rows the run may reach, and the sync points it may
                # write: two statements instead of two per node
                succs = [later for _, later in path]
                rows = txn.resources([int(n.entity_id) for n in succs])
                points = txn.sync_points(
                    self.traversal_id, [entity_id_of(n) for n in succs]
                )
            point = points.get((entity_id_of(succ), succ.is_update))
            if point is None:
                break  # a newer traversal: the node finds out as usual
            delivery = Delivery(
                frozenset(self.graph.requires(succ)),
                node,
                node_values(node, row, None)(succ),
            )
            write = plan_batch(point, [delivery])
            if not txn.swap(point, write.input_data, write.extra_data):
                break  # another writer came first: the node reports as usual
            self.done.append(node)
            fired = write.outcomes([delivery])[0]
            if fired is None:  # its other predecessors are still to come
                ready, found = None, None
                break
            ready = dataclasses.replace(fired, node=succ)
            found = (rows.get(int(succ.entity_id)), stack)
        self.ready, self.found = ready, found

    def _path(self) -> list[tuple[Node, Node]]:
        """``(node, its one successor)`` from the first node on, as far
        as a run could go: through cleanup nodes with one resource
        successor each, at most :attr:`limit` of them."""
        path: list[tuple[Node, Node]] = []
        node = self.first
        while len(path) < self.limit and not node.is_update:
            succs = self.graph.required_by(node)
            if len(succs) != 1 or succs[0].node_type != "resource":
                break
            path.append((node, succs[0]))
            node = succs[0]
        return path

    def substitute(
        self, fired: list[Ready], ahead: ReadAhead | None
    ) -> tuple[list[Ready], ReadAhead | None]:
        """What the worker runs next after a run that covered nodes:
        the node the run stopped at instead of the first one, with its
        read."""
        if not self.done:
            return fired, ahead
        rest = [r for r in fired if r.node != self.first]
        if self.ready is None or self.ready.node is None:
            return rest, None
        next_ahead = ReadAhead(
            int(self.ready.node.entity_id), found=self.found
        )
        return [*rest, self.ready], next_ahead
