"""SQLAlchemy models of Heat 27's schema (Alembic head ``97b2a986f922``).

Table, column, index and constraint names, types and nullability are
Heat's, so that keel-heat opens a Heat database as it is and a database
keel-heat creates can be handed back to Heat. The models are private to
:mod:`keel_heat_core.db`: other layers use the repository modules, which
return plain records.

Every table has ``created_at`` (naive UTC, set on insert) and
``updated_at``. ``updated_at`` is refreshed on every ORM update except on
``stack``, ``resource`` and ``software_deployment``, where the engine
writes it explicitly (for stacks it drives timeouts).
"""

from __future__ import annotations

import datetime
from typing import Any, cast

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    Unicode,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from keel_heat_core.db import types


def utcnow() -> datetime.datetime:
    """Naive UTC now, whole seconds: what a MySQL ``DATETIME`` keeps.

    Dropping the fraction up front makes a record returned by a write
    equal to the same row read back, on every backend.
    """
    now = datetime.datetime.now(datetime.UTC)
    return now.replace(tzinfo=None, microsecond=0)


class Base(DeclarativeBase):
    """Declarative base of Heat's tables."""


def table_of(model: type[Base]) -> Table:
    """The Core table of a model (for statements that skip the ORM)."""
    return cast(Table, model.__table__)


_INNODB = {"mysql_engine": "InnoDB"}


class _Timestamps:
    created_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, default=utcnow
    )
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, onupdate=utcnow
    )


class _ExplicitTimestamps:
    created_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, default=utcnow
    )
    updated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)


class RawTemplateFiles(_Timestamps, Base):
    __tablename__ = "raw_template_files"
    __table_args__ = _INNODB

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    files: Mapped[Any] = mapped_column(types.Json, nullable=True)


class ResourcePropertiesData(_Timestamps, Base):
    __tablename__ = "resource_properties_data"
    __table_args__ = _INNODB

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[Any] = mapped_column(types.Json, nullable=True)
    encrypted: Mapped[bool | None] = mapped_column(Boolean)


class Service(_Timestamps, Base):
    __tablename__ = "service"
    __table_args__ = _INNODB

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    engine_id: Mapped[str] = mapped_column(String(36), nullable=False)
    host: Mapped[str] = mapped_column(String(255), nullable=False)
    hostname: Mapped[str] = mapped_column(String(255), nullable=False)
    binary: Mapped[str] = mapped_column(String(255), nullable=False)
    topic: Mapped[str] = mapped_column(String(255), nullable=False)
    report_interval: Mapped[int] = mapped_column(Integer, nullable=False)
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)


class SoftwareConfig(_Timestamps, Base):
    __tablename__ = "software_config"
    __table_args__ = _INNODB

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(255))
    group: Mapped[str | None] = mapped_column(String(255))
    config: Mapped[Any] = mapped_column(types.Json, nullable=True)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)


class UserCreds(_Timestamps, Base):
    __tablename__ = "user_creds"
    __table_args__ = _INNODB

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str | None] = mapped_column(String(255))
    password: Mapped[str | None] = mapped_column(String(255))
    region_name: Mapped[str | None] = mapped_column(String(255))
    decrypt_method: Mapped[str | None] = mapped_column(String(64))
    tenant: Mapped[str | None] = mapped_column(String(1024))
    auth_url: Mapped[str | None] = mapped_column(Text)
    tenant_id: Mapped[str | None] = mapped_column(String(256))
    trust_id: Mapped[str | None] = mapped_column(String(255))
    trustor_user_id: Mapped[str | None] = mapped_column(String(64))


class RawTemplate(_Timestamps, Base):
    __tablename__ = "raw_template"
    __table_args__ = (
        ForeignKeyConstraint(
            ["files_id"],
            ["raw_template_files.id"],
            name="raw_tmpl_files_fkey_ref",
        ),
        _INNODB,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    template: Mapped[Any] = mapped_column(types.Json, nullable=True)
    files: Mapped[Any] = mapped_column(types.Json, nullable=True)
    environment: Mapped[Any] = mapped_column(types.Json, nullable=True)
    files_id: Mapped[int | None] = mapped_column(Integer)


class SoftwareDeployment(_ExplicitTimestamps, Base):
    __tablename__ = "software_deployment"
    __table_args__ = (
        Index("ix_software_deployment_created_at", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    server_id: Mapped[str] = mapped_column(
        String(36), nullable=False, index=True
    )
    config_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("software_config.id"), nullable=False
    )
    input_values: Mapped[Any] = mapped_column(types.Json, nullable=True)
    output_values: Mapped[Any] = mapped_column(types.Json, nullable=True)
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(Text)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    stack_user_project_id: Mapped[str | None] = mapped_column(String(64))


class Stack(_ExplicitTimestamps, Base):
    __tablename__ = "stack"
    __table_args__ = (
        Index("ix_stack_name", "name", mysql_length=255),
        Index("ix_stack_tenant", "tenant", mysql_length=255),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    name: Mapped[str | None] = mapped_column(String(255))
    raw_template_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("raw_template.id"), nullable=False
    )
    prev_raw_template_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("raw_template.id")
    )
    user_creds_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("user_creds.id")
    )
    username: Mapped[str | None] = mapped_column(String(256))
    owner_id: Mapped[str | None] = mapped_column(String(36), index=True)
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(Text)
    timeout: Mapped[int | None] = mapped_column(Integer)
    tenant: Mapped[str | None] = mapped_column(String(256))
    disable_rollback: Mapped[bool] = mapped_column(Boolean, nullable=False)
    stack_user_project_id: Mapped[str | None] = mapped_column(String(64))
    backup: Mapped[bool | None] = mapped_column(Boolean)
    nested_depth: Mapped[int | None] = mapped_column(Integer)
    convergence: Mapped[bool | None] = mapped_column(Boolean)
    current_traversal: Mapped[str | None] = mapped_column(String(36))
    current_deps: Mapped[Any] = mapped_column(types.Json, nullable=True)
    parent_resource_name: Mapped[str | None] = mapped_column(String(255))


class Event(_Timestamps, Base):
    __tablename__ = "event"
    __table_args__ = (
        ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="ev_rsrc_prop_data_ref",
        ),
        _INNODB,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str | None] = mapped_column(String(36), unique=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), nullable=False
    )
    resource_action: Mapped[str | None] = mapped_column(String(255))
    resource_status: Mapped[str | None] = mapped_column(String(255))
    resource_name: Mapped[str | None] = mapped_column(String(255))
    physical_resource_id: Mapped[str | None] = mapped_column(String(255))
    resource_status_reason: Mapped[str | None] = mapped_column(String(255))
    resource_type: Mapped[str | None] = mapped_column(String(255))
    resource_properties: Mapped[bytes | None] = mapped_column(LargeBinary)
    rsrc_prop_data_id: Mapped[int | None] = mapped_column(Integer)


class Resource(_ExplicitTimestamps, Base):
    __tablename__ = "resource"
    __table_args__ = (
        ForeignKeyConstraint(
            ["attr_data_id"],
            ["resource_properties_data.id"],
            name="rsrc_attr_data_ref",
        ),
        ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="rsrc_rsrc_prop_data_ref",
        ),
        _INNODB,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str | None] = mapped_column(String(36), unique=True)
    nova_instance: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(255))
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(Text)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), nullable=False
    )
    rsrc_metadata: Mapped[Any] = mapped_column(types.Json, nullable=True)
    properties_data: Mapped[Any] = mapped_column(types.Json, nullable=True)
    engine_id: Mapped[str | None] = mapped_column(String(36))
    atomic_key: Mapped[int | None] = mapped_column(Integer)
    needed_by: Mapped[Any] = mapped_column(types.List, nullable=True)
    requires: Mapped[Any] = mapped_column(types.List, nullable=True)
    replaces: Mapped[int | None] = mapped_column(Integer)
    replaced_by: Mapped[int | None] = mapped_column(Integer)
    current_template_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("raw_template.id")
    )
    properties_data_encrypted: Mapped[bool | None] = mapped_column(Boolean)
    root_stack_id: Mapped[str | None] = mapped_column(String(36), index=True)
    rsrc_prop_data_id: Mapped[int | None] = mapped_column(Integer)
    attr_data_id: Mapped[int | None] = mapped_column(Integer)


class ResourceData(_Timestamps, Base):
    __tablename__ = "resource_data"
    __table_args__ = (
        ForeignKeyConstraint(
            ["resource_id"],
            ["resource.id"],
            name="fk_resource_id",
            ondelete="CASCADE",
        ),
        _INNODB,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str | None] = mapped_column(String(255))
    value: Mapped[str | None] = mapped_column(Text)
    redact: Mapped[bool | None] = mapped_column(Boolean)
    decrypt_method: Mapped[str | None] = mapped_column(String(64))
    resource_id: Mapped[int] = mapped_column(Integer, nullable=False)


class Snapshot(_Timestamps, Base):
    __tablename__ = "snapshot"
    __table_args__ = _INNODB

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), nullable=False
    )
    name: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(String(255))
    data: Mapped[Any] = mapped_column(types.Json, nullable=True)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    action: Mapped[str | None] = mapped_column(String(255))


class ResourceSnapshot(_Timestamps, Base):
    __tablename__ = "resource_snapshot"
    __table_args__ = (
        Index("ix_resource_snapshot_snapshot_id", "snapshot_id"),
        _INNODB,
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    snapshot_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("snapshot.id"), nullable=False
    )
    resource_name: Mapped[str] = mapped_column(String(255), nullable=False)
    data: Mapped[Any] = mapped_column(types.Json, nullable=True)


class StackLock(_Timestamps, Base):
    __tablename__ = "stack_lock"
    __table_args__ = _INNODB

    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), primary_key=True
    )
    engine_id: Mapped[str | None] = mapped_column(String(36))


class StackTag(_Timestamps, Base):
    __tablename__ = "stack_tag"
    __table_args__ = _INNODB

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tag: Mapped[str | None] = mapped_column(Unicode(80))
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), nullable=False
    )


class SyncPoint(_Timestamps, Base):
    __tablename__ = "sync_point"

    entity_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    traversal_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    is_update: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    atomic_key: Mapped[int] = mapped_column(Integer, nullable=False)
    stack_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("stack.id"), nullable=False
    )
    input_data: Mapped[Any] = mapped_column(types.Json, nullable=True)
    extra_data: Mapped[Any] = mapped_column(types.Json, nullable=True)
