"""In-memory stores, templates and plugins that drive the real worker."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import itertools
import random
import threading
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from keel_heat_core.convergence.memory_store import MemorySyncPointStore
from keel_heat_core.convergence.store import FirstWrite, InRelease
from keel_heat_core.model import rows as r
from keel_heat_core.worker.check_resource import CheckResource
from keel_heat_core.worker.converge import converge_stack
from keel_heat_core.worker.deps import WorkerDeps
from keel_heat_core.worker.lock import LockState

NOW = datetime.datetime(2026, 11, 29, 12, 0, 0)


@dataclasses.dataclass
class LockWrite:
    """One lock write tried on :class:`Stores` (``cas_update``)."""

    resource_id: int
    name: str | None
    expected_engine_id: str | None
    values: dict[str, Any]
    then: list[InRelease]
    data: list[r.DataWrite]
    matched: bool


class Stores:
    """Stack rows, resource rows and events, with the database's CAS."""

    def __init__(self) -> None:
        self.stacks: dict[str, r.StackRow] = {}
        self.resources: dict[int, r.ResourceRow] = {}
        self.events: list[r.EventRecord] = []
        #: ``(resource id, DataWrite)`` written with a lock write
        self.data_writes: list[tuple[int, r.DataWrite]] = []
        #: every lock write tried, in order
        self.lock_writes: list[LockWrite] = []
        self.ids = itertools.count(1)
        self.lock = threading.RLock()
        #: where the sync point writes made with a lock write go
        self.sync_points: MemorySyncPointStore | None = None

    # StackStore
    def get_stack(self, stack_id: str) -> r.StackRow | None:
        with self.lock:
            row = self.stacks.get(stack_id)
            if row is None or row.deleted_at is not None:
                return None
            return copy.deepcopy(row)

    def get_resource_and_stack(
        self, resource_id: int
    ) -> tuple[r.ResourceRow | None, r.StackRow | None]:
        with self.lock:
            row = self.get_resource(resource_id)
            if row is None:
                return None, None
            # as the database's read: whether the row has data (written
            # with lock writes, the only data these stores keep)
            keys: set[str] = set()
            for rid, write in self.data_writes:
                if rid == resource_id and write.value is None:
                    keys.discard(write.key)
                elif rid == resource_id:
                    keys.add(write.key)
            row.has_data = bool(keys) if row.action == r.INIT else None
            return row, self.get_stack(row.stack_id)

    def list_in_progress(self) -> list[r.StackRow]:
        with self.lock:
            return [
                copy.deepcopy(x)
                for x in self.stacks.values()
                if x.status == r.IN_PROGRESS and x.deleted_at is None
            ]

    def update_stack(
        self, stack_id: str, expected: str, values: Mapping[str, Any]
    ) -> bool:
        with self.lock:
            row = self.stacks.get(stack_id)
            if row is None or row.current_traversal != expected:
                return False
            for key, value in values.items():
                setattr(row, key, copy.deepcopy(value))
            return True

    # ResourceStore
    def get_resource(self, resource_id: int) -> r.ResourceRow | None:
        with self.lock:
            return copy.deepcopy(self.resources.get(resource_id))

    def get_resources(
        self, stack_id: str, names: Collection[str] | None = None
    ) -> list[r.ResourceRow]:
        with self.lock:
            return [
                copy.deepcopy(x)
                for x in self.resources.values()
                if x.stack_id == stack_id
                and (names is None or x.name in names)
            ]

    def insert_resource(self, row: r.ResourceRow) -> int:
        with self.lock:
            row = dataclasses.replace(row, id=next(self.ids))
            self.resources[row.id] = row
            return row.id

    def insert_resources(self, rows: Iterable[r.ResourceRow]) -> list[int]:
        return [self.insert_resource(row) for row in rows]

    def insert_replacement(
        self, old_id: int, atomic_key: int | None, row: r.ResourceRow
    ) -> int | None:
        with self.lock:
            old = self.resources.get(old_id)
            if old is None or (old.engine_id, old.atomic_key) != (
                None,
                atomic_key,
            ):
                return None
            new_id = self.insert_resource(
                dataclasses.replace(row, replaces=old_id)
            )
            old.replaced_by = new_id
            old.atomic_key = (old.atomic_key or 0) + 1
            return new_id

    def update_resource(
        self, resource_id: int, values: Mapping[str, Any]
    ) -> None:
        with self.lock:
            row = self.resources.get(resource_id)
            if row is not None:
                for key, value in values.items():
                    setattr(row, key, copy.deepcopy(value))

    def get_summaries(self, stack_id: str) -> list[r.RowSummary]:
        with self.lock:
            rows = sorted(
                (x for x in self.resources.values() if x.stack_id == stack_id),
                key=lambda x: x.id,
            )
            return [r.RowSummary.of(x) for x in rows]

    def delete_resource(self, resource_id: int) -> None:
        with self.lock:
            self.resources.pop(resource_id, None)

    def delete_finished(self, stack_id: str) -> int:
        with self.lock:
            gone = [
                row.id
                for row in self.resources.values()
                if row.stack_id == stack_id
                and (row.action, row.status) == (r.DELETE, r.COMPLETE)
            ]
            for resource_id in gone:
                del self.resources[resource_id]
        return len(gone)

    def add_event(self, event: r.EventRecord) -> None:
        with self.lock:
            self.events.append(event)

    def cas_update(
        self,
        resource_id: int,
        expected_engine_id: str | None,
        expected_atomic_key: int | None,
        values: Mapping[str, Any],
        events: Sequence[r.EventRecord] = (),
        then: Sequence[InRelease] = (),
        data: Sequence[r.DataWrite] = (),
        defer: bool = False,  # one transaction per call here
    ) -> bool:
        with self.lock:
            row = self.resources.get(resource_id)
            matched = row is not None and (row.engine_id, row.atomic_key) == (
                expected_engine_id,
                expected_atomic_key,
            )
            self.lock_writes.append(
                LockWrite(
                    resource_id,
                    row.name if row is not None else None,
                    expected_engine_id,
                    dict(values),
                    list(then),
                    list(data),
                    matched,
                )
            )
            if row is None or not matched:
                return False
            for key, value in values.items():
                setattr(row, key, copy.deepcopy(value))
            row.atomic_key = (row.atomic_key or 0) + 1
            self.events.extend(events)
            self.data_writes.extend((resource_id, w) for w in data)
            for item in then:
                if not isinstance(item, FirstWrite):  # a ReadAhead
                    if item.after.matched:  # (not a node's own read)
                        item.found = Stores.get_resource_and_stack(
                            self, item.resource_id
                        )
                    continue
                assert self.sync_points is not None
                item.matched = self.sync_points.first_write(
                    item.entity_id,
                    item.traversal_id,
                    item.is_update,
                    item.input_data,
                )
            return True

    def read_lock(self, resource_id: int) -> LockState | None:
        with self.lock:
            row = self.resources.get(resource_id)
            if row is None:
                return None
            return LockState(
                row.engine_id, row.atomic_key, row.current_template_id
            )


@dataclasses.dataclass
class Definition:
    name: str
    resource_type: str
    properties: dict[str, Any]
    depends_on: list[str] = dataclasses.field(default_factory=list)
    deletion_policy: str = "Delete"
    #: this resource's attributes other resources read (``get_attr``)
    referenced: set[Any] = dataclasses.field(default_factory=set)

    def referenced_attributes(self) -> set[Any]:
        return set(self.referenced)

    def dependency_names(self) -> list[str]:
        deps = list(self.depends_on)
        for value in self.properties.values():
            if isinstance(value, dict) and "get_resource" in value:
                deps.append(value["get_resource"])
            if isinstance(value, dict) and "get_attr" in value:
                deps.append(value["get_attr"][0])
        return deps

    def resolve_properties(self, view: Any) -> dict[str, Any]:
        out = {}
        for key, value in self.properties.items():
            if isinstance(value, dict) and "get_resource" in value:
                value = view.get_resource(value["get_resource"])
            elif isinstance(value, dict) and "get_attr" in value:
                value = view.get_attr(*value["get_attr"])
            out[key] = value
        return out


class Templates:
    def __init__(self) -> None:
        self.templates: dict[int, dict[str, Definition]] = {}
        self.ids = itertools.count(100)

    def store(self, resources: Mapping[str, Mapping[str, Any]]) -> int:
        tid = next(self.ids)
        defs = {
            name: Definition(
                name,
                spec.get("type", "OS::Heat::TestResource"),
                dict(spec.get("properties", {})),
                list(spec.get("depends_on", [])),
                spec.get("deletion_policy", "Delete"),
            )
            for name, spec in resources.items()
        }
        for d in defs.values():
            for value in d.properties.values():
                if isinstance(value, dict) and "get_attr" in value:
                    target, attr = value["get_attr"][:2]
                    defs[target].referenced.add(attr)
        self.templates[tid] = defs
        return tid

    def definitions(
        self, template_id: int, stack: r.StackRow
    ) -> Mapping[str, Definition]:
        return self.templates[template_id]

    def store_empty_like(self, template_id: int) -> int:
        return self.store({})


class Cloud:
    """The 'real' objects the fake plugins manage."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.calls: list[tuple[str, str]] = []


class TestResource:
    """A plugin with Heat's method names, backed by :class:`Cloud`."""

    update_allowed_properties = ("value", "wait_secs")

    def __init__(self, cloud: Cloud, row: r.ResourceRow, props: dict) -> None:
        self.cloud = cloud
        self.name = row.name
        self.resource_id = row.physical_id
        self.properties = props
        self.polls = 0

    def handle_create(self) -> str:
        if self.properties.get("fail"):
            raise ValueError("Test Resource failed")
        with self.cloud.lock:
            self.resource_id = f"{self.name}-{uuid.uuid4().hex[:8]}"
            self.cloud.objects[self.resource_id] = dict(self.properties)
            self.cloud.calls.append(("create", self.name))
        return self.resource_id

    def check_create_complete(self, cookie: str) -> bool:
        self.polls += 1
        return self.polls > int(self.properties.get("polls", 0))

    def handle_update(
        self, defn: Any, tmpl_diff: Any, prop_diff: dict
    ) -> None:
        if self.properties.get("fail"):
            raise ValueError("Test Resource failed")
        with self.cloud.lock:
            assert self.resource_id is not None
            self.cloud.objects[self.resource_id].update(prop_diff)
            self.cloud.calls.append(("update", self.name))

    def handle_delete(self) -> None:
        with self.cloud.lock:
            if self.resource_id is not None:
                self.cloud.objects.pop(self.resource_id, None)
            self.cloud.calls.append(("delete", self.name))


class Bus:
    """Queued casts, delivered in random order to any of the engines."""

    def __init__(self, seed: int = 0) -> None:
        self.queue: list[tuple[Any, ...]] = []
        self.random = random.Random(seed)

    def check_resource(self, ctxt: Any, *args: Any, **kwargs: Any) -> None:
        self.queue.append((ctxt, args, kwargs))

    def pop(self) -> tuple[Any, ...]:
        return self.queue.pop(self.random.randrange(len(self.queue)))


class Alive:
    def __init__(self) -> None:
        self.dead: set[str] = set()

    def is_alive(self, engine_id: str) -> bool:
        return engine_id not in self.dead


class Harness:
    """A stack, a bus and N engines, all in memory.

    :param successor_here: a node runs a successor it fires itself
        (``WorkerDeps.run_successor_here``); off by default, so that every
        node travels through the bus, where a test can lose or reorder it.
    """

    def __init__(
        self, engines: int = 2, seed: int = 0, successor_here: bool = False
    ) -> None:
        self.successor_here = successor_here
        self.stores = Stores()
        self.sync_points = MemorySyncPointStore()
        self.stores.sync_points = self.sync_points
        # a matched read and swap reads ahead as the database does (not
        # through the instance, where a test may count a node's own reads)
        self.sync_points.read_ahead = lambda resource_id: (
            Stores.get_resource_and_stack(self.stores, resource_id)
        )
        self.templates = Templates()
        self.cloud = Cloud()
        self.bus = Bus(seed)
        self.alive = Alive()
        self.workers = [
            CheckResource(self.deps(f"engine-{i}")) for i in range(engines)
        ]

    def deps(self, engine_id: str) -> WorkerDeps:
        return WorkerDeps(
            engine_id=engine_id,
            stacks=self.stores,
            resources=self.stores,
            sync_points=self.sync_points,
            templates=self.templates,
            plugins=lambda d, row, props, s: TestResource(
                self.cloud, row, props
            ),
            caster=self.bus,
            liveness=self.alive,
            run_successor_here=self.successor_here,
            poll_interval=0.0,
            now=lambda: NOW,
            sleep=lambda s: None,
        )

    def new_stack(self, resources: Mapping[str, Any], **kw: Any) -> str:
        tid = self.templates.store(resources)
        stack = r.StackRow(
            id=str(uuid.uuid4()),
            name="teststack",
            action=r.CREATE,
            status=r.IN_PROGRESS,
            status_reason="",
            raw_template_id=tid,
            current_traversal=str(uuid.uuid4()),
            created_at=NOW,
            **kw,
        )
        self.stores.stacks[stack.id] = stack
        self.converge(stack.id, tid, r.CREATE)
        return stack.id

    def converge(self, stack_id: str, template_id: int, action: str) -> None:
        stack = self.stores.get_stack(stack_id)
        assert stack is not None
        converge_stack(self.workers[0].deps, None, stack, template_id, action)

    def update(self, stack_id: str, resources: Mapping[str, Any]) -> None:
        self.converge(stack_id, self.templates.store(resources), r.UPDATE)

    def delete(self, stack_id: str) -> None:
        self.converge(stack_id, self.templates.store({}), r.DELETE)

    def run(self, limit: int = 10_000) -> int:
        steps = 0
        while self.bus.queue:
            ctxt, args, kwargs = self.bus.pop()
            worker = self.workers[self.bus.random.randrange(len(self.workers))]
            worker(ctxt, *args, **kwargs)
            steps += 1
            assert steps < limit, "traversal does not terminate"
        return steps

    def stack(self, stack_id: str) -> r.StackRow:
        return self.stores.stacks[stack_id]

    def state(self, stack_id: str) -> str:
        stack = self.stack(stack_id)
        return f"{stack.action}_{stack.status}"

    def rows(self, stack_id: str) -> dict[str, r.ResourceRow]:
        rows = self.stores.get_resources(stack_id)
        assert len({x.name for x in rows}) == len(rows), rows
        return {x.name: x for x in rows}

    def stack_events(self, stack_id: str) -> list[str]:
        return [
            f"{e.resource_action}_{e.resource_status}"
            for e in self.stores.events
            if e.stack_id == stack_id and e.resource_type == "OS::Heat::Stack"
        ]

    def resource_events(self, name: str) -> list[str]:
        return [
            f"{e.resource_action}_{e.resource_status}"
            for e in self.stores.events
            if e.resource_name == name and e.resource_type != "OS::Heat::Stack"
        ]
