"""User credentials repository (``user_creds``).

With a trust (``deferred_auth_method = trusts``) a row holds the encrypted
``trust_id``, ``trustor_user_id``, the project name (``tenant``) and id
(``tenant_id``), ``auth_url`` and ``region_name``; ``username`` and
``password`` stay NULL. Without one it holds the user name and the
encrypted password. ``password`` and ``trust_id`` share one
``decrypt_method``. Records come back decrypted.
"""

from __future__ import annotations

from keel_heat_core.db import exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error


class PasswordTooLong(exceptions.DBError):
    """The encrypted password does not fit the 255-character column."""

    def __init__(self) -> None:
        super().__init__(
            "Length of OS_PASSWORD after encryption exceeds Heat limit "
            "(255 chars)"
        )


@retry_on_db_error
def create(
    db: Database,
    *,
    trust_id: str | None = None,
    trustor_user_id: str | None = None,
    username: str | None = None,
    password: str | None = None,
    tenant: str | None = None,
    tenant_id: str | None = None,
    auth_url: str | None = None,
    region_name: str | None = None,
) -> records.UserCredsRecord:
    """Store credentials: a trust when ``trust_id`` is given, else the
    user name and password.

    With a password, ``trustor_user_id`` may name the user the password
    belongs to: Heat's schema has no user domain, and a login by user id
    needs none (Heat leaves the column empty for passwords).

    :raises PasswordTooLong: the encrypted password exceeds 255 chars.
    """
    row = models.UserCreds(
        tenant=tenant,
        tenant_id=tenant_id,
        auth_url=auth_url,
        region_name=region_name,
    )
    if trust_id:
        row.decrypt_method, row.trust_id = db.encrypt(trust_id)
        row.trustor_user_id = trustor_user_id
    else:
        method, secret = db.encrypt(password)
        if secret is not None and len(secret) > 255:
            raise PasswordTooLong()
        row.username = username
        row.trustor_user_id = trustor_user_id
        row.password = secret
        row.decrypt_method = method
    with db.transaction() as session:
        session.add(row)
        session.flush()
        new_id = row.id
    found = get(db, new_id)
    assert found is not None
    return found


def get(db: Database, creds_id: int) -> records.UserCredsRecord | None:
    """Decrypted credentials, or ``None``.

    :raises keel_heat_core.crypt.InvalidEncryptionKey: the key changed
        since the row was written.
    """
    with db.transaction() as session:
        row = session.get(models.UserCreds, creds_id)
        if row is None:
            return None
        return records.from_row(
            records.UserCredsRecord,
            row,
            password=db.decrypt(row.decrypt_method, row.password),
            trust_id=db.decrypt(row.decrypt_method, row.trust_id),
        )


@retry_on_db_error
def delete(db: Database, creds_id: int) -> None:
    """Delete a row.

    :raises exceptions.NotFound: no such row.
    """
    with db.transaction() as session:
        row = session.get(models.UserCreds, creds_id)
        if row is None:
            raise exceptions.NotFound(
                f"Attempt to delete user creds with id {creds_id} that "
                "does not exist"
            )
        session.delete(row)
