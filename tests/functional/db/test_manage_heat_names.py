"""keel-heat-manage takes heat-manage's command names (issue 30, 19).

Each test runs the installed ``keel-heat-manage`` console script, as a
script written for Heat's ``heat-manage`` would, against a fresh migrated
database of each backend.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import uuid

import pytest

from keel_heat_core.db import resource_data, stack
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from keel_heat_core.migrations import runner
from tests.functional.db import builders

KEY = "0123456789abcdef0123456789abcdef"
MANAGE = pathlib.Path(sys.executable).parent / "keel-heat-manage"


@pytest.fixture
def conf_file(fresh_db: Database, tmp_path: pathlib.Path) -> pathlib.Path:
    url = fresh_db.engine.url.render_as_string(hide_password=False)
    path = tmp_path / "keel-heat.conf"
    path.write_text(
        f"[DEFAULT]\nauth_encryption_key = {KEY}\n"
        f"[database]\nconnection = {url}\n"
    )
    return path


def _manage(
    conf_file: pathlib.Path, *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MANAGE), "--config-file", str(conf_file), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_db_version_and_db_sync(conf_file: pathlib.Path) -> None:
    done = _manage(conf_file, "db_version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == runner.heads()
    done = _manage(conf_file, "db_sync")
    assert done.returncode == 0, done.stderr
    done = _manage(conf_file, "db_sync", runner.heads()[0])
    assert done.returncode == 0, done.stderr


def test_purge_deleted(fresh_db: Database, conf_file: pathlib.Path) -> None:
    # heat_integrationtests' test_purge runs "heat-manage purge_deleted 0"
    project = uuid.uuid4().hex
    gone = builders.new_stack(fresh_db, project, status="COMPLETE")
    kept = builders.new_stack(fresh_db, project, status="COMPLETE")
    stack.soft_delete(fresh_db, gone.id)
    done = _manage(conf_file, "purge_deleted", "0")
    assert done.returncode == 0, done.stderr
    assert stack.get(fresh_db, gone.id, show_deleted=True) is None
    assert stack.get(fresh_db, kept.id) is not None
    # heat-manage's options, its --batch_size spelling included
    other = builders.new_stack(fresh_db, project, status="COMPLETE")
    stack.soft_delete(fresh_db, other.id)
    done = _manage(
        conf_file,
        "purge_deleted",
        "-g",
        "seconds",
        "-p",
        project,
        "--batch_size",
        "5",
        "0",
    )
    assert done.returncode == 0, done.stderr
    assert stack.get(fresh_db, other.id, show_deleted=True) is None
    assert stack.count(fresh_db, Scope(project)) == 1


def test_reset_stack_status_asks_first(
    fresh_db: Database, conf_file: pathlib.Path
) -> None:
    stuck = builders.new_stack(fresh_db, status="IN_PROGRESS")
    done = _manage(conf_file, "reset_stack_status", stuck.id, stdin="n\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "Continue ? [y/N]"
    got = stack.get(fresh_db, stuck.id)
    assert got is not None and got.status == "IN_PROGRESS"

    done = _manage(conf_file, "reset_stack_status", stuck.id, stdin="y\n")
    assert done.returncode == 0, done.stderr
    got = stack.get(fresh_db, stuck.id)
    assert got is not None
    assert (got.status, got.status_reason) == (
        "FAILED",
        "Stack status manually reset",
    )


def test_resource_data_list(
    fresh_db: Database, conf_file: pathlib.Path
) -> None:
    res = builders.new_resource(fresh_db, builders.new_stack(fresh_db))
    resource_data.set_value(fresh_db, res.id, "user_id", "u-1")
    resource_data.set_value(fresh_db, res.id, "secret", "s3cr3t", redact=True)
    done = _manage(conf_file, "resource_data_list", str(res.id))
    assert done.returncode == 0, done.stderr
    assert sorted(line.split() for line in done.stdout.splitlines()) == [
        ["secret", "s3cr3t"],
        ["user_id", "u-1"],
    ]
    empty = builders.new_resource(fresh_db, builders.new_stack(fresh_db))
    done = _manage(conf_file, "resource_data_list", str(empty.id))
    assert done.returncode == 1
    assert "no resource data found" in done.stderr


def test_the_other_heat_manage_commands(conf_file: pathlib.Path) -> None:
    done = _manage(conf_file, "migrate_properties_data")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "This command has been deprecated and is now a no-op. "
        "It will be removed in a future release."
    ]
    done = _manage(
        conf_file, "update_params", "encrypt", "--verbose-update-params"
    )
    assert done.returncode == 0, done.stderr
    for action in ("list", "clean"):
        done = _manage(conf_file, "service", action)
        assert done.returncode == 0, done.stderr
