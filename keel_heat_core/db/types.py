"""Column types that store JSON the way Heat does.

Heat keeps JSON documents in text columns: ``LONGTEXT`` on MySQL and
MariaDB, ``TEXT`` elsewhere. Binding always goes through ``json.dumps``,
so a Python ``None`` written through these types is stored as the string
``null``; a column that was never written stays SQL ``NULL``. Reading
gives ``None`` for both.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import types
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Dialect


class LongText(types.TypeDecorator[str]):
    """Text that becomes ``LONGTEXT`` on MySQL."""

    impl = types.Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> types.TypeEngine[Any]:
        if dialect.name == "mysql":
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(types.Text())


class Json(types.TypeDecorator[Any]):
    """A JSON document in a (long) text column, encoded as Heat does."""

    impl = types.Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> types.TypeEngine[Any]:
        if dialect.name == "mysql":
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(types.Text())

    def process_bind_param(self, value: Any, dialect: Dialect) -> str:
        return json.dumps(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return json.loads(value)


class List(Json):
    """A JSON list; the same encoding as :class:`Json`."""

    cache_ok = True
