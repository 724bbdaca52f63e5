"""Encryption vectors built independently, from Heat's key derivation.

Ciphertexts are assembled here from primitives of the cryptography
library (AES, HMAC, padding), not with :mod:`keel_heat_core.crypt`, so a
mistake in the derivation shows up as a failure.
"""

from __future__ import annotations

import base64
import os
import struct
import time

import pytest
from cryptography.hazmat.primitives import hashes, hmac, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from keel_heat_core import crypt
from keel_heat_core.crypt import CFB

KEY32 = "This is a 32 character key!!1234"
KEY16 = "sixteen char key"


def _fernet_token(key: str, plain: bytes) -> str:
    key_text = (key * 2 if len(key) < 32 else key)[:32]
    raw = key_text.encode("utf-8")
    signing, encryption = raw[:16], raw[16:]
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plain) + padder.finalize()
    enc = Cipher(algorithms.AES(encryption), modes.CBC(iv)).encryptor()
    body = (
        b"\x80"
        + struct.pack(">Q", int(time.time()))
        + iv
        + enc.update(padded)
        + enc.finalize()
    )
    mac = hmac.HMAC(signing, hashes.SHA256())
    mac.update(body)
    return base64.urlsafe_b64encode(body + mac.finalize()).decode()


def _oslo_v1(key: str, plain: bytes) -> str:
    iv = os.urandom(16)
    # The legacy padder wrote one byte more than X.923 accounts for.
    padder = padding.ANSIX923(128).padder()
    padded = padder.update(plain + b"\x00") + padder.finalize()
    enc = Cipher(algorithms.AES(key[:32].encode()), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + enc.update(padded) + enc.finalize()).decode()


def _heat_cfb(key: str, plain: bytes) -> str:
    iv = os.urandom(16)
    enc = Cipher(algorithms.AES(key[:32].encode()), CFB(iv)).encryptor()
    return base64.b64encode(iv + enc.update(plain) + enc.finalize()).decode()


SECRETS = ["trust-0f3c9a", "pässwörd ☃", "", "x" * 100]


@pytest.mark.parametrize("key", [KEY32, KEY16])
@pytest.mark.parametrize("secret", SECRETS)
def test_fernet_vectors_decrypt(key: str, secret: str) -> None:
    token = _fernet_token(key, secret.encode())
    assert crypt.decrypt("cryptography_decrypt_v1", token, key) == secret


@pytest.mark.parametrize("key", [KEY32, KEY16])
@pytest.mark.parametrize("secret", SECRETS)
def test_oslo_v1_vectors_decrypt(key: str, secret: str) -> None:
    value = _oslo_v1(key, secret.encode())
    assert crypt.decrypt("oslo_decrypt_v1", value, key) == secret


@pytest.mark.parametrize("key", [KEY32, KEY16])
@pytest.mark.parametrize("secret", SECRETS)
def test_heat_decrypt_vectors_decrypt(key: str, secret: str) -> None:
    value = _heat_cfb(key, secret.encode())
    assert crypt.decrypt("heat_decrypt", value, key) == secret


def test_default_key_vector() -> None:
    token = _fernet_token(crypt.DEFAULT_KEY, b"s3cret")
    assert crypt.decrypt(
        "cryptography_decrypt_v1", token, crypt.DEFAULT_KEY
    ) == ("s3cret")


@pytest.mark.parametrize("key", [KEY32, KEY16])
def test_ours_round_trip_and_is_a_fernet_token_of_the_derived_key(
    key: str,
) -> None:
    method, value = crypt.encrypt("my trust", key)
    assert method == "cryptography_decrypt_v1"
    assert value is not None
    assert crypt.decrypt(method, value, key) == "my trust"
    # What we write verifies and decrypts under Heat's key derivation.
    raw = base64.urlsafe_b64decode(value)
    key_bytes = (key * 2 if len(key) < 32 else key)[:32].encode()
    mac = hmac.HMAC(key_bytes[:16], hashes.SHA256())
    mac.update(raw[:-32])
    mac.verify(raw[-32:])
    dec = Cipher(
        algorithms.AES(key_bytes[16:]), modes.CBC(raw[9:25])
    ).decryptor()
    padded = dec.update(raw[25:-32]) + dec.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    assert unpadder.update(padded) + unpadder.finalize() == b"my trust"


def test_none_values() -> None:
    assert crypt.encrypt(None, KEY32) == (None, None)
    assert crypt.decrypt(None, "x", KEY32) is None
    assert crypt.decrypt("cryptography_decrypt_v1", None, KEY32) is None


def test_wrong_key_is_invalid_encryption_key() -> None:
    _method, value = crypt.encrypt("secret", KEY32)
    assert value is not None
    with pytest.raises(crypt.InvalidEncryptionKey) as err:
        crypt.decrypt("cryptography_decrypt_v1", value, KEY16)
    assert str(err.value) == (
        "Can not decrypt data with the auth_encryption_key in heat config."
    )


def test_unknown_method() -> None:
    with pytest.raises(ValueError):
        crypt.decrypt("rot13", "abc", KEY32)


def test_encrypted_dict_round_trip_and_format() -> None:
    data = {"password": "pw", "count": 3, "nested": {"a": [1, None]}}
    stored = crypt.encrypted_dict(data, KEY32)
    assert all(v[0] == "cryptography_decrypt_v1" for v in stored.values())
    assert crypt.decrypted_dict(stored, KEY32) == data
    # Each value is the JSON text of the clear value.
    method, value = stored["count"]
    assert crypt.decrypt(method, value, KEY32) == "3"


def test_check_key() -> None:
    with pytest.raises(crypt.UnsafeEncryptionKey):
        crypt.check_key(crypt.DEFAULT_KEY)
    with pytest.raises(crypt.UnsafeEncryptionKey):
        crypt.check_key("too short")
    crypt.check_key(KEY32)
    crypt.check_key(KEY16)
    crypt.check_key(crypt.DEFAULT_KEY, embedded=True)


def test_embedded_key_is_generated_once(tmp_path: os.PathLike[str]) -> None:
    first = crypt.embedded_key(tmp_path)
    assert len(first) == 32
    assert first != crypt.DEFAULT_KEY
    assert crypt.embedded_key(tmp_path) == first
    crypt.check_key(first)
