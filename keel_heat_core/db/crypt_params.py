"""Encrypting or decrypting what ``encrypt_parameters_and_properties`` covers.

``keel-heat-manage update-params encrypt|decrypt [KEY]`` (Heat's
``heat-manage update_params``) rewrites, in batches by id:

- each raw template's hidden parameters: *encrypt* stores every parameter
  that the template declares ``hidden`` and that is still clear as
  ``[method, ciphertext]`` and lists it in ``encrypted_param_names``;
  *decrypt* turns every listed parameter back into text and empties the
  list;
- each ``resource_properties_data`` row, and the legacy
  ``resource.properties_data`` column, whose ``encrypted`` flag differs
  from the operation: every value becomes ``[method, ciphertext of its
  JSON text]`` or the reverse.

Rows already in the wanted state are left alone, so running a command
twice changes nothing the second time. A row that cannot be handled (a
wrong key, a template that does not parse) is skipped, the others go on;
the exceptions are returned for the command to report. Rotating the key is
``decrypt OLD_KEY``, changing ``auth_encryption_key``, then ``encrypt``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from keel_heat_core import crypt
from keel_heat_core.db import models
from keel_heat_core.db.database import Database

LOG = logging.getLogger(__name__)

PARAMETERS = "parameters"
ENCRYPTED_PARAM_NAMES = "encrypted_param_names"

#: ``hidden_of(template)``: the names of the hidden parameters a stored
#: template declares (the command gives one built on the template layer).
HiddenOf = Callable[[Any], Collection[str]]

_Row = TypeVar(
    "_Row", models.RawTemplate, models.ResourcePropertiesData, models.Resource
)


@dataclass
class CryptResult:
    """What one run changed.

    :ivar templates: raw templates rewritten.
    :ivar properties: rpd rows and legacy resource columns rewritten.
    :ivar errors: ``(what, exception)`` of each row skipped.
    """

    templates: int = 0
    properties: int = 0
    errors: list[tuple[str, Exception]] = field(default_factory=list)


def _batches(
    db: Database, model: type[_Row], batch_size: int, *where: Any
) -> Iterator[tuple[Session, list[_Row]]]:
    marker: int | None = None
    while True:
        with db.transaction() as session:
            query = select(model).where(*where).order_by(model.id)
            if marker is not None:
                query = query.where(model.id > marker)
            rows = list(session.scalars(query.limit(batch_size)))
            if not rows:
                return
            yield session, rows
            marker = rows[-1].id


def _encrypt_environment(
    env: dict[str, Any], hidden: Collection[str], key: str
) -> bool:
    params = env.setdefault(PARAMETERS, {})
    names = env.setdefault(ENCRYPTED_PARAM_NAMES, [])
    changed = False
    for name, value in list(params.items()):
        if name in names or name not in hidden:
            continue
        text = value if isinstance(value, str) else str(value)
        params[name] = list(crypt.encrypt(text, key))
        names.append(name)
        changed = True
    return changed


def _decrypt_environment(env: dict[str, Any], key: str) -> bool:
    names = env.get(ENCRYPTED_PARAM_NAMES) or []
    if not names:
        return False
    params = env.setdefault(PARAMETERS, {})
    for name in names:
        value = params.get(name)
        if isinstance(value, list | tuple) and len(value) == 2:
            params[name] = crypt.decrypt(value[0], value[1], key)
    env[ENCRYPTED_PARAM_NAMES] = []
    return True


def _templates(
    db: Database,
    key: str,
    encrypt: bool,
    hidden_of: HiddenOf,
    batch_size: int,
    result: CryptResult,
) -> None:
    for _session, rows in _batches(db, models.RawTemplate, batch_size):
        for row in rows:
            if not isinstance(row.environment, dict):
                continue
            env = copy.deepcopy(row.environment)
            try:
                if encrypt:
                    hidden = hidden_of(row.template)
                    changed = bool(hidden) and _encrypt_environment(
                        env, hidden, key
                    )
                else:
                    changed = _decrypt_environment(env, key)
            except Exception as exc:
                result.errors.append((f"raw_template {row.id}", exc))
                continue
            if changed:
                row.environment = env
                result.templates += 1


def _crypt_dict(data: Any, key: str, encrypt: bool) -> dict[str, Any]:
    if encrypt:
        return crypt.encrypted_dict(data, key)
    return crypt.decrypted_dict(data, key)


def _properties(
    db: Database, key: str, encrypt: bool, batch_size: int, result: CryptResult
) -> None:
    rpd = models.ResourcePropertiesData
    for _session, rows in _batches(
        db, rpd, batch_size, rpd.encrypted.isnot(encrypt)
    ):
        for row in rows:
            if not row.data:
                continue
            try:
                row.data = _crypt_dict(row.data, key, encrypt)
            except Exception as exc:
                result.errors.append(
                    (f"resource_properties_data {row.id}", exc)
                )
                continue
            row.encrypted = encrypt
            result.properties += 1
    res = models.Resource
    for _session, legacy in _batches(
        db,
        res,
        batch_size,
        res.properties_data.isnot(None),
        res.properties_data_encrypted.isnot(encrypt),
    ):
        for item in legacy:
            if not item.properties_data:
                continue
            try:
                item.properties_data = _crypt_dict(
                    item.properties_data, key, encrypt
                )
            except Exception as exc:
                result.errors.append((f"resource {item.id}", exc))
                continue
            item.properties_data_encrypted = encrypt
            result.properties += 1


def crypt_parameters_and_properties(
    db: Database,
    encrypt: bool,
    hidden_of: HiddenOf,
    key: str | None = None,
    batch_size: int = 50,
) -> CryptResult:
    """Encrypt (or decrypt) hidden parameters and properties data.

    :param encrypt: ``True`` for ``encrypt``, ``False`` for ``decrypt``.
    :param hidden_of: the hidden parameter names of a stored template.
    :param key: the key to use; ``None`` uses the database's
        ``auth_encryption_key``.
    :param batch_size: rows read and written per transaction.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be a positive integer")
    use = key if key is not None else db.encryption_key
    result = CryptResult()
    _templates(db, use, encrypt, hidden_of, batch_size, result)
    _properties(db, use, encrypt, batch_size, result)
    for what, exc in result.errors:
        LOG.error(
            "Could not %s %s: %s",
            "encrypt" if encrypt else "decrypt",
            what,
            type(exc).__name__,
        )
    return result
