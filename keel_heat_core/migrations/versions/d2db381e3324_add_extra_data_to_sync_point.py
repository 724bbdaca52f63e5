"""Add sync_point.extra_data (failures and the skip flag of a traversal).

Revision ID: d2db381e3324
Revises: c6214ca60943
"""

import sqlalchemy as sa
from alembic import op

from keel_heat_core.db import types

revision = "d2db381e3324"
down_revision = "c6214ca60943"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "sync_point", sa.Column("extra_data", types.Json(), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("sync_point", "extra_data")
