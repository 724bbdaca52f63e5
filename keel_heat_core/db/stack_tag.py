"""Stack tag repository: ``stack_tag`` rows of one stack.

Setting tags replaces every row of the stack. Tags come back in insertion
order. (Stack records already carry their tags; this module is for
writing them and for reading them alone.)
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete as sa_delete
from sqlalchemy import select

from keel_heat_core.db import models
from keel_heat_core.db.database import Database, retry_on_db_error


@retry_on_db_error
def set_tags(db: Database, stack_id: str, tags: Iterable[str]) -> list[str]:
    """Replace the stack's tags; returns them."""
    tags = list(tags)
    with db.transaction() as session:
        session.execute(
            sa_delete(models.StackTag).where(
                models.StackTag.stack_id == stack_id
            )
        )
        session.add_all(
            models.StackTag(stack_id=stack_id, tag=tag) for tag in tags
        )
    return tags


def get(db: Database, stack_id: str) -> list[str]:
    """The stack's tags."""
    with db.transaction() as session:
        return [
            t
            for t in session.scalars(
                select(models.StackTag.tag)
                .where(models.StackTag.stack_id == stack_id)
                .order_by(models.StackTag.id)
            )
            if t is not None
        ]


@retry_on_db_error
def delete(db: Database, stack_id: str) -> None:
    """Remove all tags of the stack."""
    with db.transaction() as session:
        session.execute(
            sa_delete(models.StackTag).where(
                models.StackTag.stack_id == stack_id
            )
        )
