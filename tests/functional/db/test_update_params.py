"""keel-heat-manage update-params: encrypt and decrypt in place."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.cmd import manage, manage_crypt
from keel_heat_core.db import models, raw_template, resource_properties_data
from keel_heat_core.db.crypt_params import crypt_parameters_and_properties
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from tests.functional.db import builders, databases

KEY = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {
        "secret": {"type": "string", "hidden": True},
        "count": {"type": "number", "hidden": True},
        "plain": {"type": "string"},
    },
    "resources": {},
}
ENV = {
    "parameters": {"secret": "s3cr3t", "count": 3, "plain": "visible"},
    "parameter_defaults": {},
    "resource_registry": {},
    "event_sinks": [],
    "encrypted_param_names": [],
}


def _stored(db: Database, model: Any, row_id: int) -> Any:
    with db.transaction() as session:
        row = session.get(model, row_id)
        assert row is not None
        if model is models.RawTemplate:
            return row.environment
        return (row.data, row.encrypted)


def test_encrypt_then_decrypt_round_trip(fresh_db: Database) -> None:
    db = fresh_db
    tmpl = raw_template.create(db, TEMPLATE, ENV)
    rpd = resource_properties_data.create(db, {"value": [1, "two"]})
    hidden = manage_crypt.hidden_parameters

    result = crypt_parameters_and_properties(db, True, hidden)
    assert (result.templates, result.properties, result.errors) == (1, 1, [])
    env = _stored(db, models.RawTemplate, tmpl.id)
    assert sorted(env["encrypted_param_names"]) == ["count", "secret"]
    assert env["parameters"]["plain"] == "visible"
    assert env["parameters"]["secret"][0] == "cryptography_decrypt_v1"
    assert "s3cr3t" not in repr(env)
    data, encrypted = _stored(db, models.ResourcePropertiesData, rpd.id)
    assert encrypted and "two" not in repr(data)
    # Readers see clear values; a second run has nothing left to do.
    assert raw_template.get(db, tmpl.id).environment["parameters"] == {
        "secret": "s3cr3t",
        "count": "3",
        "plain": "visible",
    }
    assert resource_properties_data.get(db, rpd.id).data == {
        "value": [1, "two"]
    }
    again = crypt_parameters_and_properties(db, True, hidden)
    assert (again.templates, again.properties) == (0, 0)

    result = crypt_parameters_and_properties(db, False, hidden)
    assert (result.templates, result.properties, result.errors) == (1, 1, [])
    env = _stored(db, models.RawTemplate, tmpl.id)
    assert env["encrypted_param_names"] == []
    assert env["parameters"]["secret"] == "s3cr3t"
    assert _stored(db, models.ResourcePropertiesData, rpd.id) == (
        {"value": [1, "two"]},
        False,
    )


def test_a_wrong_key_skips_the_row_and_keeps_it(fresh_db: Database) -> None:
    db = fresh_db
    tmpl = raw_template.create(db, TEMPLATE, ENV)
    crypt_parameters_and_properties(db, True, manage_crypt.hidden_parameters)
    before = _stored(db, models.RawTemplate, tmpl.id)
    result = crypt_parameters_and_properties(
        db, False, manage_crypt.hidden_parameters, key=OTHER
    )
    assert [what for what, _ in result.errors] == [f"raw_template {tmpl.id}"]
    assert _stored(db, models.RawTemplate, tmpl.id) == before


def test_legacy_resource_column_is_rewritten(fresh_db: Database) -> None:
    db = fresh_db
    res = builders.new_resource(db, builders.new_stack(db))
    with db.engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE resource SET properties_data = :d, "
                "properties_data_encrypted = :e WHERE id = :i"
            ),
            {"d": '{"k": "v"}', "e": False, "i": res.id},
        )
    result = crypt_parameters_and_properties(
        db, True, manage_crypt.hidden_parameters, batch_size=1
    )
    assert result.properties == 1
    with db.transaction() as session:
        row = session.get(models.Resource, res.id)
        assert row is not None
        assert row.properties_data_encrypted is True
        assert row.properties_data["k"][0] == "cryptography_decrypt_v1"


def test_rotating_the_key_through_the_command(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from oslo_config import cfg

    with databases.scratch_url("sqlite", tmp_path) as url:
        old = Database(url, encryption_key=KEY)
        runner.upgrade(old.engine)
        tmpl = raw_template.create(old, TEMPLATE, ENV)
        crypt_parameters_and_properties(
            old, True, manage_crypt.hidden_parameters
        )
        old.dispose()

        def run(key: str, *args: str) -> int:
            conf_file = tmp_path / "keel-heat.conf"
            conf_file.write_text(
                f"[DEFAULT]\nauth_encryption_key = {key}\n"
                f"[database]\nconnection = {url}\n"
            )
            argv = ["--config-file", str(conf_file), *args]
            return manage.main(argv, conf=cfg.ConfigOpts())

        # Decrypt with the old key, then encrypt under the new one.
        assert run(OTHER, "update_params", "decrypt", KEY) == 0
        assert run(OTHER, "update-params", "encrypt") == 0
        out = capsys.readouterr().out
        assert "Decrypted the parameters of 1 templates" in out
        assert "Encrypted the parameters of 1 templates" in out
        new = Database(url, encryption_key=OTHER)
        try:
            env = raw_template.get(new, tmpl.id).environment
            assert env["parameters"]["secret"] == "s3cr3t"
        finally:
            new.dispose()
