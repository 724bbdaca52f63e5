"""Heat-compatible encryption of secrets stored in the database.

The stored method name selects the decryption, so the three names below
are part of the schema:

``cryptography_decrypt_v1``
    A Fernet token (what Heat and keel-heat write today). The Fernet key is
    the standard base64 of the first 32 characters of the configured key,
    the key being doubled first when shorter than 32 characters.
``oslo_decrypt_v1``
    Legacy: base64 of a 16-byte IV followed by AES-CBC ciphertext keyed
    with the first 32 characters of the key (no doubling), ANSI X.923
    padded, with one more trailing byte to drop after unpadding.
``heat_decrypt``
    Oldest: base64 of a 16-byte IV followed by AES-CFB ciphertext, keyed
    as for ``oslo_decrypt_v1``.

Values used with ``auth_encryption_key`` K decrypt with K in Heat and in
keel-heat alike. :func:`check_key` is the start-up check: outside the
embedded mode the well-known default key is refused.
"""

from __future__ import annotations

import base64
import json
import os
import pathlib
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from cryptography import fernet
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

try:  # cryptography >= 47 keeps CFB among the "decrepit" primitives
    from cryptography.hazmat.decrepit.ciphers.modes import CFB
except ImportError:  # pragma: no cover - older cryptography
    CFB = modes.CFB  # type: ignore[misc,assignment,unused-ignore]

#: Heat's default ``auth_encryption_key``: public, so never safe to use.
DEFAULT_KEY = "notgood but just long enough i t"

FERNET_METHOD = "cryptography_decrypt_v1"
_BLOCK = 16


class InvalidEncryptionKey(Exception):
    """The stored value does not decrypt with the configured key."""

    def __init__(self) -> None:
        super().__init__(
            "Can not decrypt data with the auth_encryption_key in heat config."
        )


class UnsafeEncryptionKey(Exception):
    """Start-up refusal: the key is Heat's public default or malformed."""


def _key_text(key: str, fix_length: bool) -> str:
    if fix_length and len(key) < 32:
        key = key * 2
    return key[:32]


def _fernet(key: str) -> fernet.Fernet:
    raw = _key_text(key, fix_length=True).encode("utf-8")
    return fernet.Fernet(base64.b64encode(raw))


def encrypt(value: str | None, key: str) -> tuple[str | None, str | None]:
    """Encrypt ``value``; returns ``(method, ciphertext)``.

    :param value: the clear text; ``None`` gives ``(None, None)``.
    :param key: the ``auth_encryption_key``.
    """
    if value is None:
        return None, None
    token = _fernet(key).encrypt(value.encode("utf-8"))
    return FERNET_METHOD, token.decode("ascii")


def cryptography_decrypt_v1(value: str, key: str) -> bytes:
    """Decrypt a Fernet token written by Heat or keel-heat."""
    try:
        return _fernet(key).decrypt(value.encode("utf-8"))
    except fernet.InvalidToken as exc:
        raise InvalidEncryptionKey() from exc


def oslo_decrypt_v1(value: str, key: str) -> bytes:
    """Decrypt the legacy oslo-incubator AES-CBC format."""
    raw = base64.b64decode(value)
    aes = algorithms.AES(_key_text(key, fix_length=False).encode("utf-8"))
    decryptor = Cipher(aes, modes.CBC(raw[:_BLOCK])).decryptor()
    padded = decryptor.update(raw[_BLOCK:]) + decryptor.finalize()
    unpadder = padding.ANSIX923(aes.block_size).unpadder()
    try:
        plain = unpadder.update(padded) + unpadder.finalize()
    except ValueError as exc:
        raise InvalidEncryptionKey() from exc
    # The old padder did not count its length byte: drop one more byte.
    return plain[:-1]


def heat_decrypt(value: str, key: str) -> bytes:
    """Decrypt the oldest Heat format (AES-CFB)."""
    raw = base64.b64decode(value)
    aes = algorithms.AES(_key_text(key, fix_length=False).encode("utf-8"))
    decryptor = Cipher(aes, CFB(raw[:_BLOCK])).decryptor()
    return decryptor.update(raw[_BLOCK:]) + decryptor.finalize()


_DECRYPTORS: Mapping[str, Callable[[str, str], bytes]] = {
    "cryptography_decrypt_v1": cryptography_decrypt_v1,
    "oslo_decrypt_v1": oslo_decrypt_v1,
    "heat_decrypt": heat_decrypt,
}


def decrypt(method: str | None, value: str | None, key: str) -> str | None:
    """Decrypt ``value`` stored with ``method``.

    :returns: the clear text, or ``None`` when method or value is ``None``.
    :raises InvalidEncryptionKey: the key does not fit the value.
    :raises ValueError: the method name is unknown.
    """
    if method is None or value is None:
        return None
    try:
        decryptor = _DECRYPTORS[method]
    except KeyError:
        raise ValueError(f"Unknown decryption method {method!r}") from None
    try:
        return decryptor(value, key).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEncryptionKey() from exc


def encrypted_dict(data: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    """Encrypt each value's JSON text: ``{name: [method, ciphertext]}``."""
    if not data:
        return {}
    return {
        name: list(encrypt(json.dumps(value), key))
        for name, value in data.items()
    }


def decrypted_dict(data: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    """Reverse :func:`encrypted_dict`."""
    if not data:
        return {}
    result = {}
    for name, (method, value) in data.items():
        text = decrypt(method, value, key)
        result[name] = None if text is None else json.loads(text)
    return result


def check_key(key: str, embedded: bool = False) -> None:
    """Start-up check of ``auth_encryption_key``.

    :param embedded: the embedded (single-process) mode may run with any
        key, including a generated one (see :func:`embedded_key`).
    :raises UnsafeEncryptionKey: the default key outside embedded mode, or
        a key whose length is not 16, 24 or 32 characters.
    """
    if embedded:
        return
    if key == DEFAULT_KEY:
        raise UnsafeEncryptionKey(
            "auth_encryption_key is Heat's published default; set a secret "
            "key of 32 characters (the one of the Heat deployment when "
            "taking over its database)"
        )
    if len(key) not in (16, 24, 32):
        raise UnsafeEncryptionKey(
            "auth_encryption_key must be 32 characters long"
        )


def embedded_key(state_dir: os.PathLike[str] | str) -> str:
    """The embedded mode's key, generated once and kept in ``state_dir``."""
    path = pathlib.Path(state_dir) / "auth_encryption_key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(24)[:32]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key)
    return key
