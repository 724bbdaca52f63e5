"""Service repository: one heartbeat row per engine process.

- :func:`heartbeat` inserts the row the first time and afterwards sets
  ``updated_at`` to now and ``deleted_at`` to NULL;
- :func:`list_services` (live rows), :func:`get_all_by_args`;
- :func:`soft_delete`, :func:`clean_stale` (soft-delete rows of a host and
  binary not updated for a while), :func:`purge_deleted`.
"""

from __future__ import annotations

import datetime

from sqlalchemy import delete, select, update

from keel_heat_core.db import exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error


def _record(row: models.Service) -> records.ServiceRecord:
    return records.from_row(records.ServiceRecord, row)


@retry_on_db_error
def heartbeat(
    db: Database,
    service_id: str,
    *,
    engine_id: str,
    host: str,
    hostname: str,
    binary: str = "heat-engine",
    topic: str = "engine",
    report_interval: int = 60,
) -> records.ServiceRecord:
    """Insert or refresh the row of this engine process."""
    with db.transaction() as session:
        row = session.get(models.Service, service_id)
        if row is None:
            row = models.Service(
                id=service_id,
                engine_id=engine_id,
                host=host,
                hostname=hostname,
                binary=binary,
                topic=topic,
                report_interval=report_interval,
            )
            session.add(row)
        else:
            row.deleted_at = None
            row.updated_at = models.utcnow()
        session.flush()
        return _record(row)


@retry_on_db_error
def get(db: Database, service_id: str) -> records.ServiceRecord:
    """A service row.

    :raises exceptions.EntityNotFound: no such row.
    """
    with db.transaction() as session:
        row = session.get(models.Service, service_id)
        if row is None:
            raise exceptions.EntityNotFound("Service", service_id)
        return _record(row)


def list_services(db: Database) -> list[records.ServiceRecord]:
    """Rows not soft-deleted."""
    with db.transaction() as session:
        rows = session.scalars(
            select(models.Service)
            .where(models.Service.deleted_at.is_(None))
            .order_by(models.Service.created_at, models.Service.id)
        )
        return [_record(r) for r in rows]


def get_all_by_args(
    db: Database, host: str, binary: str, hostname: str
) -> list[records.ServiceRecord]:
    """Rows (deleted or not) of one host, binary and hostname."""
    svc = models.Service
    with db.transaction() as session:
        rows = session.scalars(
            select(svc).where(
                svc.host == host,
                svc.binary == binary,
                svc.hostname == hostname,
            )
        )
        return [_record(r) for r in rows]


@retry_on_db_error
def soft_delete(db: Database, service_id: str) -> None:
    """Mark a row deleted (shutdown, or ``service clean``)."""
    with db.transaction() as session:
        session.execute(
            update(models.Service)
            .where(models.Service.id == service_id)
            .values(deleted_at=models.utcnow())
        )


def is_stale(row: records.ServiceRecord, now: datetime.datetime) -> bool:
    """Down: not refreshed for three report intervals."""
    seen = row.updated_at or row.created_at
    if seen is None:
        return True
    limit = datetime.timedelta(seconds=3 * row.report_interval)
    return now - seen > limit


def clean_stale(db: Database) -> list[str]:
    """Soft-delete every live row that :func:`is_stale`; returns ids."""
    now = models.utcnow()
    gone = [r.id for r in list_services(db) if is_stale(r, now)]
    for service_id in gone:
        soft_delete(db, service_id)
    return gone


@retry_on_db_error
def purge_deleted(db: Database, older_than: datetime.datetime) -> int:
    """Hard-delete rows soft-deleted before ``older_than``."""
    with db.transaction() as session:
        result = session.execute(
            delete(models.Service).where(
                models.Service.deleted_at < older_than
            )
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
