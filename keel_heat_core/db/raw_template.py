"""Raw template repository: ``raw_template`` and ``raw_template_files``.

- :func:`create` stores a parsed template, its environment and its files;
  files go to a shared, immutable ``raw_template_files`` row (none when
  there are no files) and the template's legacy ``files`` column stays
  NULL. Pass ``files_id`` instead of ``files`` to share an existing row.
- :func:`get` returns a :class:`~keel_heat_core.db.records.RawTemplateRecord`
  whose hidden parameters are decrypted (those listed in the environment's
  ``encrypted_param_names`` and stored as ``[method, ciphertext]``).
- :func:`encrypt_hidden_parameters` prepares an environment for storage
  when ``encrypt_parameters_and_properties`` is on.
- :func:`update` and :func:`delete` (which also deletes the files row when
  no other template references it).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from keel_heat_core.db import exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error

PARAMETERS = "parameters"
ENCRYPTED_PARAM_NAMES = "encrypted_param_names"


def _decrypt_environment(db: Database, env: Any) -> Any:
    if not isinstance(env, dict) or ENCRYPTED_PARAM_NAMES not in env:
        return env
    env = copy.deepcopy(env)
    params = env.get(PARAMETERS) or {}
    for name in env[ENCRYPTED_PARAM_NAMES]:
        value = params.get(name)
        if isinstance(value, list | tuple) and len(value) == 2:
            params[name] = db.decrypt(value[0], value[1])
    env[PARAMETERS] = params
    return env


def encrypt_hidden_parameters(
    db: Database, environment: Mapping[str, Any], hidden: Iterable[str]
) -> dict[str, Any]:
    """A copy of ``environment`` with the ``hidden`` parameters encrypted.

    Each listed parameter present in ``parameters`` becomes
    ``[method, ciphertext]`` and its name is added to
    ``encrypted_param_names``.
    """
    env = copy.deepcopy(dict(environment))
    params = env.setdefault(PARAMETERS, {})
    names = env.setdefault(ENCRYPTED_PARAM_NAMES, [])
    for name in hidden:
        if name not in params:
            continue
        value = params[name]
        text = value if isinstance(value, str) else str(value)
        params[name] = list(db.encrypt(text))
        if name not in names:
            names.append(name)
    return env


def _record(
    db: Database, session: Session, row: models.RawTemplate
) -> records.RawTemplateRecord:
    files: Any = row.files
    if row.files_id is not None:
        files_row = session.get(models.RawTemplateFiles, row.files_id)
        files = files_row.files if files_row is not None else None
    return records.from_row(
        records.RawTemplateRecord,
        row,
        files=dict(files or {}),
        environment=_decrypt_environment(db, row.environment),
    )


@retry_on_db_error
def create(
    db: Database,
    template: Any,
    environment: Any,
    files: Mapping[str, Any] | None = None,
    files_id: int | None = None,
) -> records.RawTemplateRecord:
    """Store a template; see the module docstring for ``files``."""
    with db.transaction() as session:
        if files and files_id is None:
            files_row = models.RawTemplateFiles(files=dict(files))
            session.add(files_row)
            session.flush()
            files_id = files_row.id
        row = models.RawTemplate(
            template=template, environment=environment, files_id=files_id
        )
        session.add(row)
        session.flush()
        return _record(db, session, row)


@retry_on_db_error
def get(db: Database, template_id: int) -> records.RawTemplateRecord:
    """A stored template.

    :raises exceptions.NotFound: no such template.
    """
    with db.transaction() as session:
        row = session.get(models.RawTemplate, template_id)
        if row is None:
            raise exceptions.NotFound(
                f"raw template with id {template_id} not found"
            )
        return _record(db, session, row)


@retry_on_db_error
def get_files(db: Database, files_id: int) -> dict[str, Any]:
    """The content of a ``raw_template_files`` row."""
    with db.transaction() as session:
        row = session.get(models.RawTemplateFiles, files_id)
        if row is None:
            raise exceptions.NotFound(
                f"raw_template_files with id {files_id} not found"
            )
        return dict(row.files or {})


@retry_on_db_error
def update(
    db: Database, template_id: int, values: Mapping[str, Any]
) -> records.RawTemplateRecord:
    """Update ``template``, ``environment`` or ``files_id``.

    Setting ``files_id`` clears the legacy inline ``files``.
    """
    allowed = {"template", "environment", "files_id"}
    if set(values) - allowed:
        raise ValueError(f"Only {sorted(allowed)} can be updated")
    with db.transaction() as session:
        row = session.get(models.RawTemplate, template_id)
        if row is None:
            raise exceptions.NotFound(
                f"raw template with id {template_id} not found"
            )
        for key, value in values.items():
            setattr(row, key, value)
        if values.get("files_id") is not None:
            row.files = None
        session.flush()
        return _record(db, session, row)


def delete_in_session(session: Session, template_ids: Iterable[int]) -> None:
    """Delete templates and their files rows once unreferenced.

    For use by other repositories inside their own transaction.
    """
    ids = list(dict.fromkeys(template_ids))
    if not ids:
        return
    tmpl = models.RawTemplate
    files_ids = set(
        session.scalars(
            select(tmpl.files_id).where(
                tmpl.id.in_(ids), tmpl.files_id.is_not(None)
            )
        )
    )
    for row in session.scalars(select(tmpl).where(tmpl.id.in_(ids))):
        session.delete(row)
    session.flush()
    if not files_ids:
        return
    still_used = set(
        session.scalars(
            select(tmpl.files_id).where(tmpl.files_id.in_(files_ids))
        )
    )
    for files_id in files_ids - still_used:
        files_row = session.get(models.RawTemplateFiles, files_id)
        if files_row is not None:
            session.delete(files_row)


@retry_on_db_error
def delete(db: Database, template_id: int) -> None:
    """Delete a template (and its files row when no longer shared).

    :raises exceptions.NotFound: no such template.
    """
    with db.transaction() as session:
        if session.get(models.RawTemplate, template_id) is None:
            raise exceptions.NotFound(
                f"raw template with id {template_id} not found"
            )
        delete_in_session(session, [template_id])
