"""The database check that /healthcheck runs."""

import pathlib
import types

from keel_heat_core.db.health import database_check


def _conf(url: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        database=types.SimpleNamespace(connection=url),
        auth_encryption_key="k" * 32,
    )


def test_healthy_database_answers_none(tmp_path: pathlib.Path) -> None:
    check = database_check(_conf(f"sqlite:///{tmp_path}/ok.sqlite"))
    assert check() is None
    assert check() is None  # the pool is reused


def test_unreachable_database_gives_a_reason(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path}/no/such/dir/db.sqlite"
    reason = database_check(_conf(url))()
    assert reason is not None
    assert reason.startswith("database unreachable: ")
