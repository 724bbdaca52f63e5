"""Software config repository (immutable configs of a project).

``config`` is ``{"config": ..., "inputs": [...], "outputs": [...],
"options": {...}}``. A non-admin scope sees only its project's configs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from keel_heat_core.db import _query, exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import Scope


def _record(row: models.SoftwareConfig) -> records.SoftwareConfigRecord:
    return records.from_row(records.SoftwareConfigRecord, row)


@retry_on_db_error
def create(
    db: Database, values: Mapping[str, Any]
) -> records.SoftwareConfigRecord:
    """Insert a config (``id``, ``name``, ``group``, ``config``,
    ``tenant``)."""
    with db.transaction() as session:
        row = models.SoftwareConfig(**values)
        session.add(row)
        session.flush()
        return _record(row)


def _get(session: Any, config_id: str, scope: Scope) -> models.SoftwareConfig:
    row = session.get(models.SoftwareConfig, config_id)
    if (
        row is not None
        and not scope.is_admin
        and row.tenant != scope.project_id
    ):
        row = None
    if row is None:
        raise exceptions.NotFound(
            f"Software config with id {config_id} not found"
        )
    return row  # type: ignore[no-any-return]


def get(
    db: Database, config_id: str, scope: Scope
) -> records.SoftwareConfigRecord:
    """A config.

    :raises exceptions.NotFound: absent or of another project.
    """
    with db.transaction() as session:
        return _record(_get(session, config_id, scope))


def list_configs(
    db: Database,
    scope: Scope,
    limit: int | None = None,
    marker: str | None = None,
) -> list[records.SoftwareConfigRecord]:
    """Configs of the project, newest first."""
    with db.transaction() as session:
        query = session.query(models.SoftwareConfig)
        if not scope.is_admin:
            query = query.filter(
                models.SoftwareConfig.tenant == scope.project_id
            )
        marker_row = (
            session.get(models.SoftwareConfig, marker) if marker else None
        )
        query = _query.paginate(
            query,
            models.SoftwareConfig,
            limit=limit,
            sort_keys=[],
            marker_row=marker_row,
            sort_dir=None,
        )
        return [_record(r) for r in query.all()]


def count(db: Database, scope: Scope) -> int:
    """Number of configs visible to the scope."""
    stmt = select(func.count(models.SoftwareConfig.id))
    if not scope.is_admin:
        stmt = stmt.where(models.SoftwareConfig.tenant == scope.project_id)
    with db.transaction() as session:
        return int(session.scalar(stmt) or 0)


@retry_on_db_error
def delete(db: Database, config_id: str, scope: Scope) -> None:
    """Delete a config no deployment uses.

    :raises exceptions.InvalidRestrictedAction: a deployment references it.
    """
    with db.transaction() as session:
        row = _get(session, config_id, scope)
        used = session.scalars(
            select(models.SoftwareDeployment.id)
            .where(models.SoftwareDeployment.config_id == config_id)
            .limit(1)
        ).first()
        if used is not None:
            raise exceptions.InvalidRestrictedAction(
                f"Software config with id {config_id} can not be deleted "
                "as it is referenced."
            )
        session.delete(row)
