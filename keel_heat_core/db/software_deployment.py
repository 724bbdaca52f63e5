"""Software deployment repository.

Records include their config. A non-admin scope sees deployments whose
``tenant`` or ``stack_user_project_id`` is its project. ``updated_at`` is
written explicitly by the caller (the engine compares it with signal
times).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oslo_db import exception as db_exc
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from keel_heat_core.db import exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import Scope

_COLUMNS = frozenset(models.SoftwareDeployment.__table__.columns.keys())


def _select(scope: Scope) -> Any:
    sd, sc = models.SoftwareDeployment, models.SoftwareConfig
    stmt = select(sd, sc).outerjoin(sc, sc.id == sd.config_id)
    if not scope.is_admin:
        stmt = stmt.where(
            or_(
                sd.tenant == scope.project_id,
                sd.stack_user_project_id == scope.project_id,
            )
        )
    return stmt


def _record(row: Any) -> records.SoftwareDeploymentRecord:
    deployment, config = row
    cfg = (
        records.from_row(records.SoftwareConfigRecord, config)
        if config is not None
        else None
    )
    return records.from_row(
        records.SoftwareDeploymentRecord, deployment, config=cfg
    )


def _get(session: Session, deployment_id: str, scope: Scope) -> Any:
    row = session.execute(
        _select(scope).where(models.SoftwareDeployment.id == deployment_id)
    ).first()
    if row is None:
        raise exceptions.NotFound(
            f"Deployment with id {deployment_id} not found"
        )
    return row


def _check(values: Mapping[str, Any]) -> None:
    unknown = set(values) - _COLUMNS
    if unknown:
        raise ValueError(f"Unknown deployment columns: {sorted(unknown)}")


@retry_on_db_error
def create(
    db: Database, values: Mapping[str, Any]
) -> records.SoftwareDeploymentRecord:
    """Insert a deployment.

    :raises exceptions.Invalid: ``config_id`` names no config.
    """
    _check(values)
    with db.transaction() as session:
        if session.get(models.SoftwareConfig, values.get("config_id")) is None:
            raise exceptions.Invalid(
                f"Config with id {values.get('config_id')} not found"
            )
        row = models.SoftwareDeployment(**values)
        session.add(row)
        try:
            session.flush()
        except db_exc.DBReferenceError as exc:
            raise exceptions.Invalid(
                f"Config with id {values.get('config_id')} not found"
            ) from exc
        config = session.get(models.SoftwareConfig, row.config_id)
        return _record((row, config))


def get(
    db: Database, deployment_id: str, scope: Scope
) -> records.SoftwareDeploymentRecord:
    """A deployment.

    :raises exceptions.NotFound: absent or not visible.
    """
    with db.transaction() as session:
        return _record(_get(session, deployment_id, scope))


def list_deployments(
    db: Database, scope: Scope, server_id: str | None = None
) -> list[records.SoftwareDeploymentRecord]:
    """Deployments (of one server if given), oldest first."""
    sd = models.SoftwareDeployment
    stmt = _select(scope).order_by(sd.created_at, sd.id)
    if server_id:
        stmt = stmt.where(sd.server_id == server_id)
    with db.transaction() as session:
        return [_record(r) for r in session.execute(stmt)]


def count(db: Database, scope: Scope) -> int:
    """Number of deployments visible to the scope."""
    sd = models.SoftwareDeployment
    stmt = select(func.count(sd.id))
    if not scope.is_admin:
        stmt = stmt.where(
            or_(
                sd.tenant == scope.project_id,
                sd.stack_user_project_id == scope.project_id,
            )
        )
    with db.transaction() as session:
        return int(session.scalar(stmt) or 0)


@retry_on_db_error
def update(
    db: Database,
    deployment_id: str,
    values: Mapping[str, Any],
    scope: Scope,
) -> records.SoftwareDeploymentRecord:
    """Write values to a visible deployment and return it."""
    _check(values)
    with db.transaction() as session:
        deployment, _config = _get(session, deployment_id, scope)
        for key, value in values.items():
            setattr(deployment, key, value)
        session.flush()
        config = session.get(models.SoftwareConfig, deployment.config_id)
        return _record((deployment, config))


@retry_on_db_error
def delete(db: Database, deployment_id: str, scope: Scope) -> None:
    """Delete a visible deployment."""
    with db.transaction() as session:
        deployment, _config = _get(session, deployment_id, scope)
        session.delete(deployment)
