"""Heat's initial schema (the tables of the 2023 baseline).

Revision ID: c6214ca60943
Revises:
Create Date: 2023-03-22

The revision id is Heat's, so a Heat database is recognised as is.
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

from keel_heat_core.db import types

revision = "c6214ca60943"
down_revision = None
branch_labels = None
depends_on = None

_INNODB: dict[str, Any] = {"mysql_engine": "InnoDB"}


def _stamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
    ]


def _str(name: str, length: int, nullable: bool = True) -> sa.Column[str]:
    return sa.Column(name, sa.String(length=length), nullable=nullable)


def _int_pk() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), nullable=False)


def _independent_tables() -> None:
    op.create_table(
        "raw_template_files",
        _int_pk(),
        sa.Column("files", types.Json(), nullable=True),
        *_stamps(),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_table(
        "resource_properties_data",
        _int_pk(),
        sa.Column("data", types.Json(), nullable=True),
        sa.Column("encrypted", sa.Boolean(), nullable=True),
        *_stamps(),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_table(
        "service",
        _str("id", 36, False),
        _str("engine_id", 36, False),
        _str("host", 255, False),
        _str("hostname", 255, False),
        _str("binary", 255, False),
        _str("topic", 255, False),
        sa.Column("report_interval", sa.Integer(), nullable=False),
        *_stamps(),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_table(
        "software_config",
        _str("id", 36, False),
        *_stamps(),
        _str("name", 255),
        _str("group", 255),
        sa.Column("config", types.Json(), nullable=True),
        _str("tenant", 64, False),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_index("ix_software_config_tenant", "software_config", ["tenant"])
    op.create_table(
        "user_creds",
        _int_pk(),
        *_stamps(),
        _str("username", 255),
        _str("password", 255),
        _str("region_name", 255),
        _str("decrypt_method", 64),
        _str("tenant", 1024),
        sa.Column("auth_url", sa.Text(), nullable=True),
        _str("tenant_id", 256),
        _str("trust_id", 255),
        _str("trustor_user_id", 64),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_table(
        "raw_template",
        _int_pk(),
        *_stamps(),
        sa.Column("template", types.Json(), nullable=True),
        sa.Column("files", types.Json(), nullable=True),
        sa.Column("environment", types.Json(), nullable=True),
        sa.Column("files_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["files_id"],
            ["raw_template_files.id"],
            name="raw_tmpl_files_fkey_ref",
        ),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )


def _deployments() -> None:
    op.create_table(
        "software_deployment",
        _str("id", 36, False),
        *_stamps(),
        _str("server_id", 36, False),
        _str("config_id", 36, False),
        sa.Column("input_values", types.Json(), nullable=True),
        sa.Column("output_values", types.Json(), nullable=True),
        _str("action", 255),
        _str("status", 255),
        sa.Column("status_reason", sa.Text(), nullable=True),
        _str("tenant", 64, False),
        _str("stack_user_project_id", 64),
        sa.ForeignKeyConstraint(["config_id"], ["software_config.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_software_deployment_created_at",
        "software_deployment",
        ["created_at"],
    )
    op.create_index(
        "ix_software_deployment_server_id",
        "software_deployment",
        ["server_id"],
    )
    op.create_index(
        "ix_software_deployment_tenant", "software_deployment", ["tenant"]
    )


def _stack() -> None:
    op.create_table(
        "stack",
        _str("id", 36, False),
        *_stamps(),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        _str("name", 255),
        sa.Column("raw_template_id", sa.Integer(), nullable=False),
        sa.Column("prev_raw_template_id", sa.Integer(), nullable=True),
        sa.Column("user_creds_id", sa.Integer(), nullable=True),
        _str("username", 256),
        _str("owner_id", 36),
        _str("action", 255),
        _str("status", 255),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("timeout", sa.Integer(), nullable=True),
        _str("tenant", 256),
        sa.Column("disable_rollback", sa.Boolean(), nullable=False),
        _str("stack_user_project_id", 64),
        sa.Column("backup", sa.Boolean(), nullable=True),
        sa.Column("nested_depth", sa.Integer(), nullable=True),
        sa.Column("convergence", sa.Boolean(), nullable=True),
        _str("current_traversal", 36),
        sa.Column("current_deps", types.Json(), nullable=True),
        _str("parent_resource_name", 255),
        sa.ForeignKeyConstraint(["prev_raw_template_id"], ["raw_template.id"]),
        sa.ForeignKeyConstraint(["raw_template_id"], ["raw_template.id"]),
        sa.ForeignKeyConstraint(["user_creds_id"], ["user_creds.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_stack_name", "stack", ["name"], mysql_length=255)
    op.create_index("ix_stack_tenant", "stack", ["tenant"], mysql_length=255)
    op.create_index("ix_stack_owner_id", "stack", ["owner_id"])


def _event() -> None:
    op.create_table(
        "event",
        _int_pk(),
        _str("uuid", 36),
        _str("stack_id", 36, False),
        *_stamps(),
        _str("resource_action", 255),
        _str("resource_status", 255),
        _str("resource_name", 255),
        _str("physical_resource_id", 255),
        _str("resource_status_reason", 255),
        _str("resource_type", 255),
        sa.Column("resource_properties", sa.LargeBinary(), nullable=True),
        sa.Column("rsrc_prop_data_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="ev_rsrc_prop_data_ref",
        ),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("uuid"),
        **_INNODB,
    )


def _resource() -> None:
    op.create_table(
        "resource",
        _int_pk(),
        _str("uuid", 36),
        _str("nova_instance", 255),
        _str("name", 255),
        *_stamps(),
        _str("action", 255),
        _str("status", 255),
        sa.Column("status_reason", sa.Text(), nullable=True),
        _str("stack_id", 36, False),
        sa.Column("rsrc_metadata", types.Json(), nullable=True),
        sa.Column("properties_data", types.Json(), nullable=True),
        _str("engine_id", 36),
        sa.Column("atomic_key", sa.Integer(), nullable=True),
        sa.Column("needed_by", types.List(), nullable=True),
        sa.Column("requires", types.List(), nullable=True),
        sa.Column("replaces", sa.Integer(), nullable=True),
        sa.Column("replaced_by", sa.Integer(), nullable=True),
        sa.Column("current_template_id", sa.Integer(), nullable=True),
        sa.Column("properties_data_encrypted", sa.Boolean(), nullable=True),
        _str("root_stack_id", 36),
        sa.Column("rsrc_prop_data_id", sa.Integer(), nullable=True),
        sa.Column("attr_data_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["attr_data_id"],
            ["resource_properties_data.id"],
            name="rsrc_attr_data_ref",
        ),
        sa.ForeignKeyConstraint(["current_template_id"], ["raw_template.id"]),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="rsrc_rsrc_prop_data_ref",
        ),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("uuid"),
        **_INNODB,
    )
    op.create_index("ix_resource_root_stack_id", "resource", ["root_stack_id"])


def _stack_children() -> None:
    op.create_table(
        "snapshot",
        _str("id", 36, False),
        _str("stack_id", 36, False),
        _str("name", 255),
        *_stamps(),
        _str("status", 255),
        _str("status_reason", 255),
        sa.Column("data", types.Json(), nullable=True),
        _str("tenant", 64, False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_index("ix_snapshot_tenant", "snapshot", ["tenant"])
    op.create_table(
        "stack_lock",
        _str("stack_id", 36, False),
        *_stamps(),
        _str("engine_id", 36),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("stack_id"),
        **_INNODB,
    )
    op.create_table(
        "stack_tag",
        _int_pk(),
        *_stamps(),
        sa.Column("tag", sa.Unicode(length=80), nullable=True),
        _str("stack_id", 36, False),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )
    op.create_table(
        "sync_point",
        _str("entity_id", 36, False),
        _str("traversal_id", 36, False),
        sa.Column("is_update", sa.Boolean(), nullable=False),
        sa.Column("atomic_key", sa.Integer(), nullable=False),
        _str("stack_id", 36, False),
        sa.Column("input_data", types.Json(), nullable=True),
        *_stamps(),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"]),
        sa.PrimaryKeyConstraint("entity_id", "traversal_id", "is_update"),
    )
    op.create_table(
        "resource_data",
        _int_pk(),
        *_stamps(),
        _str("key", 255),
        sa.Column("value", sa.Text(), nullable=True),
        sa.Column("redact", sa.Boolean(), nullable=True),
        _str("decrypt_method", 64),
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["resource.id"],
            name="fk_resource_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id"),
        **_INNODB,
    )


def upgrade() -> None:
    _independent_tables()
    _deployments()
    _stack()
    _event()
    _resource()
    _stack_children()


def downgrade() -> None:
    raise NotImplementedError("Heat's schema cannot be downgraded")
