"""Stack repository: the ``stack`` table (and its tags on read).

Functions take the :class:`~keel_heat_core.db.database.Database` first and
return :class:`~keel_heat_core.db.records.StackRecord` objects.

- :func:`create` inserts a row and enforces name uniqueness per project
  the way Heat does (the existing live stack of that name wins, the new
  row is rolled back and :class:`~keel_heat_core.db.exceptions.StackExists`
  is raised). ``backup`` is written 0 when not given.
- :func:`get`, :func:`get_by_name`, :func:`get_by_name_and_owner_id`,
  :func:`get_all_by_owner_id`, :func:`get_root_id`.
- :func:`list_stacks` / :func:`count` with Heat's filters, sorting,
  paging, tag filters, ``show_deleted``, ``show_nested``, ``show_hidden``.
- :func:`update` writes values, optionally only while
  ``current_traversal`` equals ``exp_trvsl`` (the traversal CAS); returns
  whether a row matched.
- :func:`soft_delete` removes the stack's remaining resources (and their
  data and attribute rows) and sets ``deleted_at``.

Visibility: a non-admin :class:`~keel_heat_core.db.scope.Scope` sees a
stack whose ``tenant`` or ``stack_user_project_id`` is its project; lists
show only ``tenant`` matches, as Heat does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict, Unpack

from sqlalchemy import Text, bindparam, delete, func, or_, select, type_coerce
from sqlalchemy import update as sa_update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Query, Session

from keel_heat_core.db import _query, exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import ADMIN, Scope

_COLUMNS = frozenset(models.Stack.__table__.columns.keys())

#: API sort keys (Heat's rpc names) and the columns they sort.
SORT_KEYS = {
    "stack_name": "name",
    "stack_status": "status",
    "creation_time": "created_at",
    "updated_time": "updated_at",
}


_TABLE = models.table_of(models.Stack)
#: every column but ``current_deps``
#: every column but ``current_deps`` (what :func:`record_without_deps`
#: takes; also for a statement reading a stack along with another table)
NO_DEPS_COLUMNS = tuple(c for c in _TABLE.c if c.name != "current_deps")
#: the columns a listing shows: :class:`records.StackSummaryRecord`'s
#: fields but the tags, in their order
SUMMARY_COLUMNS = tuple(
    _TABLE.c[field.name]
    for field in dataclasses.fields(records.StackSummaryRecord)
    if field.name != "tags"
)
#: a live stack without its graph
_NO_DEPS_SELECT = select(*NO_DEPS_COLUMNS).where(
    _TABLE.c.id == bindparam("id"), _TABLE.c.deleted_at.is_(None)
)
_TAG = models.table_of(models.StackTag)
#: :data:`_NO_DEPS_SELECT` with the stack's tags joined: one row per tag
#: in the tags' order, or one row with a NULL tag for a stack without any
_ANY_NO_DEPS_WITH_TAGS_SELECT = (
    select(*NO_DEPS_COLUMNS, _TAG.c.tag.label("keel_stack_tag"))
    .select_from(_TABLE.outerjoin(_TAG, _TAG.c.stack_id == _TABLE.c.id))
    .where(_TABLE.c.id == bindparam("id"))
    .order_by(_TAG.c.id)
)
_NO_DEPS_WITH_TAGS_SELECT = _ANY_NO_DEPS_WITH_TAGS_SELECT.where(
    _TABLE.c.deleted_at.is_(None)
)
#: ``current_deps`` of one stack, as stored text
_DEPS_TEXT_SELECT = select(type_coerce(_TABLE.c.current_deps, Text)).where(
    _TABLE.c.id == bindparam("id")
)


def _check_columns(values: Mapping[str, Any]) -> None:
    unknown = set(values) - _COLUMNS
    if unknown:
        raise ValueError(f"Unknown stack columns: {sorted(unknown)}")


def _tags_by_stack(
    session: Session | Connection, stack_ids: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    tags: dict[str, list[str]] = {}
    if not stack_ids:
        return {}
    rows = session.execute(
        select(models.StackTag.stack_id, models.StackTag.tag)
        .where(models.StackTag.stack_id.in_(list(stack_ids)))
        .order_by(models.StackTag.id)
    )
    for stack_id, tag in rows:
        if tag is None:
            continue
        tags.setdefault(stack_id, []).append(tag)
    return {k: tuple(v) for k, v in tags.items()}


def _records(
    session: Session, rows: Sequence[models.Stack], with_tags: bool = True
) -> list[records.StackRecord]:
    tags = _tags_by_stack(session, [r.id for r in rows]) if with_tags else {}
    return [
        records.from_row(records.StackRecord, r, tags=tags.get(r.id, ()))
        for r in rows
    ]


def _visible(row: models.Stack | None, scope: Scope) -> bool:
    if row is None:
        return False
    return _visible_to(scope, row.tenant, row.stack_user_project_id)


def _visible_to(
    scope: Scope, tenant: str | None, stack_user_project_id: str | None
) -> bool:
    return scope.is_admin or scope.project_id in (
        tenant,
        stack_user_project_id,
    )


def record_without_deps(
    values: Any, tags: tuple[str, ...] = ()
) -> records.StackRecord:
    """A record of the :data:`NO_DEPS_COLUMNS` values, by column name."""
    return records.from_mapping(
        records.StackRecord, values, tags=tags, current_deps=None
    )


def _by_name_query(session: Session, name: str, project: str | None) -> Any:
    return (
        select(models.Stack)
        .where(
            models.Stack.deleted_at.is_(None),
            models.Stack.name == name,
            or_(
                models.Stack.tenant == project,
                models.Stack.stack_user_project_id == project,
            ),
        )
        .order_by(models.Stack.created_at, models.Stack.id)
    )


@retry_on_db_error
def create(
    db: Database, values: Mapping[str, Any], tags: Iterable[str] = ()
) -> records.StackRecord:
    """Insert a stack (and its tags); ``values`` are column values."""
    _check_columns(values)
    row = models.Stack(**{"backup": False, **values})
    with db.transaction() as session:
        session.add(row)
        session.flush()
        if row.name is not None:
            # Heat keeps the earliest stack of a name; the rows it can see
            # are committed, hence older than this one. (Comparing
            # created_at instead would tie within MySQL's one-second
            # precision.)
            other = session.scalars(
                _by_name_query(session, row.name, row.tenant)
                .where(models.Stack.id != row.id)
                .limit(1)
            ).first()
            if other is not None:
                # Raising rolls the insert back: the earlier stack wins.
                raise exceptions.StackExists(row.name)
        for tag in tags:
            session.add(models.StackTag(stack_id=row.id, tag=tag))
        session.flush()
        return _records(session, [row])[0]


@retry_on_db_error
def get(
    db: Database,
    stack_id: str,
    scope: Scope = ADMIN,
    show_deleted: bool = False,
    with_tags: bool = True,
) -> records.StackRecord | None:
    """The stack with this id, or ``None`` when absent or not visible.

    :param with_tags: also read its tags (a second query); the engine's
        workers do without (``tags`` is then empty).
    """
    with db.transaction() as session:
        row = session.get(models.Stack, stack_id)
        if not _visible(row, scope):
            return None
        assert row is not None
        if row.deleted_at is not None and not show_deleted:
            return None
        return _records(session, [row], with_tags)[0]


def get_without_deps_in(
    conn: Connection, stack_id: str
) -> records.StackRecord | None:
    """A live stack without its tags and ``current_deps`` (``None``).

    For a reader that keeps the parsed graph of each traversal: a
    traversal's graph is stored once and never changes (a new graph comes
    with a new ``current_traversal``), so :func:`deps_text_in` is needed
    only for a traversal not seen before.
    """
    found = conn.execute(_NO_DEPS_SELECT, {"id": stack_id}).first()
    if found is None:
        return None
    return record_without_deps(found._mapping)


def deps_text_in(conn: Connection, stack_id: str) -> str | None:
    """A stack's ``current_deps`` as stored JSON text."""
    text = conn.execute(_DEPS_TEXT_SELECT, {"id": stack_id}).scalar()
    return None if text is None else str(text)


@retry_on_db_error
def get_for_reading(
    db: Database,
    stack_id: str,
    scope: Scope = ADMIN,
    show_deleted: bool = False,
) -> records.StackRecord | None:
    """A live stack with its tags but not its ``current_deps`` (``None``).

    What a read of the API needs (show, resources, events, outputs): one
    Core statement, the tags joined, and not the traversal's graph, whose
    JSON grows with the stack.

    :param show_deleted: a soft-deleted stack too (a read by id shows a
        deleted stack as DELETE_COMPLETE, as Heat does).
    """
    statement = (
        _ANY_NO_DEPS_WITH_TAGS_SELECT
        if show_deleted
        else _NO_DEPS_WITH_TAGS_SELECT
    )
    with db.connection() as conn:
        rows = conn.execute(statement, {"id": stack_id}).all()
    if not rows:
        return None
    values = rows[0]._mapping
    if not _visible_to(
        scope, values["tenant"], values["stack_user_project_id"]
    ):
        return None
    tags = tuple(
        row.keel_stack_tag for row in rows if row.keel_stack_tag is not None
    )
    return record_without_deps(values, tags)


def get_by_name(
    db: Database, name: str, scope: Scope
) -> records.StackRecord | None:
    """The earliest live stack of the scope's project with this name."""
    with db.transaction() as session:
        row = session.scalars(
            _by_name_query(session, name, scope.project_id).limit(1)
        ).first()
        return _records(session, [row])[0] if row is not None else None


def get_by_name_and_owner_id(
    db: Database, name: str, owner_id: str, scope: Scope
) -> records.StackRecord | None:
    """The live child of ``owner_id`` with this name."""
    with db.transaction() as session:
        query = _by_name_query(session, name, scope.project_id).where(
            models.Stack.owner_id == owner_id
        )
        row = session.scalars(query.limit(1)).first()
        return _records(session, [row])[0] if row is not None else None


@retry_on_db_error
def get_all_by_owner_id(
    db: Database, owner_id: str
) -> list[records.StackRecord]:
    """Live, non-backup direct children of a stack."""
    with db.transaction() as session:
        rows = session.scalars(
            select(models.Stack)
            .where(
                models.Stack.owner_id == owner_id,
                models.Stack.deleted_at.is_(None),
                or_(models.Stack.backup.is_(None), ~models.Stack.backup),
            )
            .order_by(models.Stack.created_at, models.Stack.id)
        ).all()
        return _records(session, rows)


@retry_on_db_error
def get_all_by_root(
    db: Database, root_id: str, max_depth: int | None = None
) -> list[records.StackRecord]:
    """Every live stack below ``root_id`` (one query per nesting level),
    or only the first ``max_depth`` levels."""
    found: list[records.StackRecord] = []
    level = [root_id]
    depth = 0
    with db.transaction() as session:
        while level and (max_depth is None or depth < max_depth):
            depth += 1
            rows = session.scalars(
                select(models.Stack).where(
                    models.Stack.owner_id.in_(level),
                    models.Stack.deleted_at.is_(None),
                )
            ).all()
            found.extend(_records(session, rows))
            level = [r.id for r in rows]
    return found


@retry_on_db_error
def get_root_id(db: Database, stack_id: str) -> str | None:
    """The id of the top-level stack above ``stack_id``."""
    with db.transaction() as session:
        row = session.get(models.Stack, stack_id)
        if row is None:
            return None
        while row.owner_id:
            parent = session.get(models.Stack, row.owner_id)
            if parent is None:
                break
            row = parent
        return row.id


def count_total_resources(db: Database, root_stack_id: str) -> int:
    """Resources of a whole tree (``resource.root_stack_id``)."""
    with db.transaction() as session:
        return int(
            session.scalar(
                select(func.count(models.Resource.id)).where(
                    models.Resource.root_stack_id == root_stack_id
                )
            )
            or 0
        )


def _list_query(
    session: Session,
    scope: Scope,
    *,
    show_deleted: bool,
    show_nested: bool,
    show_hidden: bool,
    hidden_tags: Sequence[str],
    tags: Sequence[str] | None,
    tags_any: Sequence[str] | None,
    not_tags: Sequence[str] | None,
    not_tags_any: Sequence[str] | None,
) -> Query[models.Stack]:
    stack, tag = models.Stack, models.StackTag
    query = session.query(stack)
    if not show_deleted:
        query = query.filter(stack.deleted_at.is_(None))
    if show_nested:
        query = query.filter(or_(stack.backup.is_(None), ~stack.backup))
    else:
        query = query.filter(stack.owner_id.is_(None))
    if not scope.is_admin:
        query = query.filter(stack.tenant == scope.project_id)

    def having(names: Sequence[str]) -> Any:
        return select(tag.stack_id).where(tag.tag.in_(list(names))).distinct()

    def having_all(names: Sequence[str]) -> Any:
        wanted = list(dict.fromkeys(names))
        return (
            select(tag.stack_id)
            .where(tag.tag.in_(wanted))
            .group_by(tag.stack_id)
            .having(func.count(func.distinct(tag.tag)) == len(wanted))
        )

    if tags:
        query = query.filter(stack.id.in_(having_all(tags)))
    if tags_any:
        query = query.filter(stack.id.in_(having(tags_any)))
    if not_tags:
        query = query.filter(stack.id.not_in(having_all(not_tags)))
    if not_tags_any:
        query = query.filter(stack.id.not_in(having(not_tags_any)))
    if not show_hidden and hidden_tags:
        query = query.filter(stack.id.not_in(having(hidden_tags)))
    return query


class Selection(TypedDict, total=False):
    """Which stacks a listing shows, and in what order (Heat's
    ``stack_get_all`` arguments).

    ``filters`` are exact matches on stack columns; ``hidden_tags`` is
    ``[DEFAULT] hidden_stack_tags``, shown only with ``show_hidden``.
    """

    limit: int | None
    sort_keys: str | Sequence[str] | None
    marker: str | None
    sort_dir: str | None
    filters: Mapping[str, Any] | None
    show_deleted: bool
    show_nested: bool
    show_hidden: bool
    hidden_tags: Sequence[str]
    tags: Sequence[str] | None
    tags_any: Sequence[str] | None
    not_tags: Sequence[str] | None
    not_tags_any: Sequence[str] | None


_SELECTION_KEYS = frozenset(Selection.__annotations__)


def list_stacks(
    db: Database, scope: Scope, **selection: Unpack[Selection]
) -> list[records.StackRecord]:
    """Heat's ``stack_get_all``: root stacks unless ``show_nested``.

    :raises exceptions.Invalid: on an unknown filter column.
    """
    with db.transaction() as session:
        return _records(session, _page_query(session, scope, selection).all())


def list_summaries(
    db: Database, scope: Scope, **selection: Unpack[Selection]
) -> list[records.StackSummaryRecord]:
    """:func:`list_stacks`'s page, with only the columns a listing shows
    (``GET /stacks``).

    Core rows of :data:`SUMMARY_COLUMNS` and their tags, read in one
    transaction: no ORM entities, no graph, and a third of the columns
    for the driver to parse.

    :raises exceptions.Invalid: on an unknown filter column.
    """
    with db.transaction() as session:
        stmt = (
            _page_query(session, scope, selection)
            .with_entities(*SUMMARY_COLUMNS)
            .statement
        )
        conn = session.connection()
        found = conn.execute(stmt).all()
        tagged = _tags_by_stack(conn, [row[0] for row in found])
        # the row's columns, then its tags: the record's fields in order
        return [
            records.StackSummaryRecord(*(*row, tagged.get(row[0], ())))
            for row in found
        ]


def _page_query(
    session: Session, scope: Scope, selection: Selection
) -> Query[models.Stack]:
    """The filtered, sorted page of stacks a listing reads.

    :raises TypeError: on an argument :class:`Selection` does not have.
    """
    unknown = set(selection) - _SELECTION_KEYS
    if unknown:
        raise TypeError(f"unknown listing arguments {sorted(unknown)}")
    query = _list_query(
        session,
        scope,
        show_deleted=selection.get("show_deleted", False),
        show_nested=selection.get("show_nested", False),
        show_hidden=selection.get("show_hidden", False),
        hidden_tags=selection.get("hidden_tags", ()),
        tags=selection.get("tags"),
        tags_any=selection.get("tags_any"),
        not_tags=selection.get("not_tags"),
        not_tags_any=selection.get("not_tags_any"),
    )
    query = _query.exact_filter(query, models.Stack, selection.get("filters"))
    marker = selection.get("marker")
    return _query.paginate(
        query,
        models.Stack,
        limit=selection.get("limit"),
        sort_keys=_query.sort_columns(selection.get("sort_keys"), SORT_KEYS),
        marker_row=session.get(models.Stack, marker) if marker else None,
        sort_dir=selection.get("sort_dir"),
    )


def count(
    db: Database,
    scope: Scope,
    *,
    filters: Mapping[str, Any] | None = None,
    show_deleted: bool = False,
    show_nested: bool = False,
    show_hidden: bool = False,
    hidden_tags: Sequence[str] = (),
    tags: Sequence[str] | None = None,
    tags_any: Sequence[str] | None = None,
    not_tags: Sequence[str] | None = None,
    not_tags_any: Sequence[str] | None = None,
) -> int:
    """Heat's ``stack_count_all`` (same filters as :func:`list_stacks`)."""
    with db.transaction() as session:
        query = _list_query(
            session,
            scope,
            show_deleted=show_deleted,
            show_nested=show_nested,
            show_hidden=show_hidden,
            hidden_tags=hidden_tags,
            tags=tags,
            tags_any=tags_any,
            not_tags=not_tags,
            not_tags_any=not_tags_any,
        )
        return _query.exact_filter(query, models.Stack, filters).count()


@retry_on_db_error
def update(
    db: Database,
    stack_id: str,
    values: Mapping[str, Any],
    scope: Scope = ADMIN,
    exp_trvsl: str | None = None,
) -> bool:
    """Write ``values`` to a live stack.

    :param exp_trvsl: when given, only while ``current_traversal`` still
        has this value (``UPDATE ... WHERE current_traversal = :old``).
    :returns: whether a row matched.
    :raises exceptions.NotFound: nothing matched and the stack is gone.
    """
    _check_columns(values)
    stmt = sa_update(models.Stack).where(
        models.Stack.id == stack_id, models.Stack.deleted_at.is_(None)
    )
    if not scope.is_admin:
        stmt = stmt.where(
            or_(
                models.Stack.tenant == scope.project_id,
                models.Stack.stack_user_project_id == scope.project_id,
            )
        )
    if exp_trvsl is not None:
        stmt = stmt.where(models.Stack.current_traversal == exp_trvsl)
    with db.transaction() as session:
        result = session.execute(
            stmt.values(**values).execution_options(synchronize_session=False)
        )
        matched = int(result.rowcount or 0)  # type: ignore[attr-defined]
        if not matched and session.get(models.Stack, stack_id) is None:
            raise exceptions.NotFound(
                f"Attempt to update a stack with id: {stack_id} "
                "that does not exist"
            )
    return matched > 0


@retry_on_db_error
def claim_stack_user_project(
    db: Database, stack_id: str, project_id: str
) -> str:
    """Record the stack-domain project of a stack unless one is recorded.

    A compare-and-swap (``UPDATE ... WHERE stack_user_project_id IS
    NULL``): of stack users that start together, the first one's project
    is kept.

    :returns: the project recorded for the stack now.
    :raises exceptions.NotFound: the stack is gone.
    """
    stmt = (
        sa_update(models.Stack)
        .where(
            models.Stack.id == stack_id,
            models.Stack.stack_user_project_id.is_(None),
        )
        .values(stack_user_project_id=project_id)
        .execution_options(synchronize_session=False)
    )
    with db.transaction() as session:
        session.execute(stmt)
        stored = session.execute(
            select(models.Stack.stack_user_project_id).where(
                models.Stack.id == stack_id
            )
        ).scalar_one_or_none()
    if stored is None:
        raise exceptions.NotFound(f"Stack {stack_id} not found")
    return str(stored)


@retry_on_db_error
def soft_delete(db: Database, stack_id: str) -> None:
    """Hard-delete the stack's resources, then set ``deleted_at``."""
    with db.transaction() as session:
        row = session.get(models.Stack, stack_id)
        if row is None:
            raise exceptions.NotFound(
                f"Attempt to delete a stack with id: {stack_id} "
                "that does not exist"
            )
        resources = session.execute(
            select(models.Resource.id, models.Resource.attr_data_id).where(
                models.Resource.stack_id == stack_id
            )
        ).all()
        ids = [r.id for r in resources]
        attr_ids = [r.attr_data_id for r in resources if r.attr_data_id]
        if ids:
            session.execute(
                delete(models.ResourceData).where(
                    models.ResourceData.resource_id.in_(ids)
                )
            )
            session.execute(
                delete(models.Resource).where(models.Resource.id.in_(ids))
            )
        if attr_ids:
            session.execute(
                delete(models.ResourcePropertiesData).where(
                    models.ResourcePropertiesData.id.in_(attr_ids)
                )
            )
        row.deleted_at = models.utcnow()
