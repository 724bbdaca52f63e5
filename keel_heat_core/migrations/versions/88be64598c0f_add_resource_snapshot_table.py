"""Add the resource_snapshot table (one row per resource of a snapshot).

Revision ID: 88be64598c0f
Revises: d2db381e3324
"""

import sqlalchemy as sa
from alembic import op

from keel_heat_core.db import types

revision = "88be64598c0f"
down_revision = "d2db381e3324"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resource_snapshot",
        sa.Column("id", sa.String(36), primary_key=True, nullable=False),
        sa.Column(
            "snapshot_id",
            sa.String(36),
            sa.ForeignKey("snapshot.id"),
            nullable=False,
        ),
        sa.Column("resource_name", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime()),
        sa.Column("updated_at", sa.DateTime()),
        sa.Column("data", types.Json()),
        sa.Index("ix_resource_snapshot_snapshot_id", "snapshot_id"),
        mysql_engine="InnoDB",
    )


def downgrade() -> None:
    op.drop_table("resource_snapshot")
