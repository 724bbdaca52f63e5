"""What a node hands over in the transaction that releases its resource
(``docs/design/resume.md``, "Handing over with the release")."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from keel_heat_core.convergence import sync_point
from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.store import FirstWrite, InRelease, ReadAhead
from keel_heat_core.graph import Graph
from keel_heat_core.model import rows as r
from keel_heat_core.model.node_data import NodeData
from keel_heat_core.worker import hooks
from keel_heat_core.worker.resource import ConvergenceResource


def node_values(
    node: Node, row: r.ResourceRow, data: dict[str, Any] | None
) -> Callable[[Node], Any]:
    """What ``node`` sends each successor: its node data to an update
    node, its row id to another resource's cleanup node."""

    def value_for(succ: Node) -> Any:
        if succ.is_update:
            return data
        if succ.entity_id != node.entity_id:
            return row.replaced_by or row.id
        return None

    return value_for


#: how many rows a read ahead reads at most: the successor's and those
#: of the line after it (``ReadAhead.line``)
LINE = 8

#: hooks after which a node pauses before it reports to its successors
POST_HOOKS = (hooks.POST_CREATE, hooks.POST_UPDATE, hooks.POST_DELETE)


class Handoff:
    """A node's deliveries that can go in the transaction releasing its
    resource (``ConvergenceResource.handoff``).

    Those are the first writes (:func:`sync_point.handoff_writes`): to
    the successors whose only predecessor is this node, and an update
    node's to its own resource's cleanup node; released and handed over
    in one commit. Not made when the node pauses at a post hook
    before reporting, sends attribute values (read after the release),
    nor for a row of a replacement pair, whose node has more to do
    after the release (``docs/design/resume.md``).
    """

    def __init__(
        self,
        stack: r.StackRow,
        graph: Graph[Node],
        node: Node,
        row: r.ResourceRow,
        node_data: Callable[[r.ResourceRow, ConvergenceResource], NodeData],
        may_keep: Callable[[], bool],
    ) -> None:
        self._stack = stack
        self._graph = graph
        self._node = node
        self._row = row
        #: the node's data as it reports it (``CheckResource._node_data``)
        self._node_data = node_data
        #: whether a successor fired now would run next in this thread
        self._may_keep = may_keep
        #: the writes given to the release (their ``matched`` set by it)
        self.writes: list[FirstWrite] = []
        #: the node data they carry (an update node's), for the report
        self.data: dict[str, Any] | None = None
        #: the first read of the successor this thread runs next
        self.ahead: ReadAhead | None = None

    def __call__(
        self, rsrc: ConvergenceResource, action: str
    ) -> list[InRelease]:
        self.writes = []
        self.data = None
        self.ahead = None
        if any(
            hooks.hook_set(rsrc.definition, rsrc.name, h) for h in POST_HOOKS
        ):
            return []
        data = None
        if self._node.is_update:
            wanted = getattr(rsrc.definition, "referenced_attributes", None)
            if wanted is not None and wanted():
                # attribute values are read once the resource is released
                # (as Heat does): a read may take long or hang
                return []
            now = self._node_data(self._row, rsrc)
            final = dataclasses.replace(now, action=action, status=r.COMPLETE)
            data = self.data = final.as_dict()
        self.writes = sync_point.handoff_writes(
            self._graph,
            self._stack.id,
            self._stack.current_traversal,
            self._node,
            node_values(self._node, self._row, data),
        )
        self.ahead = self._read_ahead()
        if self.ahead is None:
            return list(self.writes)
        return [*self.writes, self.ahead]

    def _read_ahead(self) -> ReadAhead | None:
        """The read of the successor this thread will run next, if it
        will: the first that this node's write fires, as
        :meth:`CheckResource._keep` picks it."""
        if not self._may_keep():
            return None
        firing = {
            (w.entity_id, w.is_update): w for w in self.writes if w.fires
        }
        for succ in sync_point.successors_in_order(self._graph, self._node):
            if succ.node_type != "resource":
                continue
            write = firing.get((sync_point.entity_id_of(succ), succ.is_update))
            if write is not None:
                return ReadAhead(
                    int(succ.entity_id), write, line=self._line(succ)
                )
        return None

    def _line(self, first: Node) -> tuple[int, ...]:
        """The resource rows that likely follow ``first`` in this thread:
        each the first successor (in :meth:`CheckResource._keep`'s order)
        whose only predecessor is the one before, up to :data:`LINE`
        rows with ``first``'s. A guess: a row that is not run next is
        read for nothing, and one whose node does not come in time is
        read again."""
        graph = self._graph
        ids: list[int] = []
        node = first
        while len(ids) < LINE - 1:
            after = next(
                (
                    succ
                    for succ in sync_point.successors_in_order(graph, node)
                    if succ.node_type == "resource"
                    and graph.requires(succ) == [node]
                ),
                None,
            )
            if after is None:
                break
            ids.append(int(after.entity_id))
            node = after
        return tuple(ids)
