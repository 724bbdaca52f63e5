"""The deployment's own MariaDB database and RabbitMQ virtual host.

Both are named ``keel_conf_<random>`` so that parallel runs and other
tests sharing the machine's MariaDB and RabbitMQ never meet, and both are
removed at the end of the run.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess

import pymysql

PREFIX = "keel_conf_"

MARIADB = {"host": "127.0.0.1", "port": 3306, "user": "root"}
RABBIT = "guest:guest@127.0.0.1:5672"


def unique_name() -> str:
    """Return a fresh ``keel_conf_<hex>`` name."""
    return f"{PREFIX}{secrets.token_hex(4)}"


def create_database(name: str) -> str:
    """Create the MariaDB database ``name``; return its SQLAlchemy URL.

    :param name: a ``keel_conf_`` name (letters, digits, underscores).
    """
    _check(name)
    conn = pymysql.connect(**MARIADB)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    finally:
        conn.close()
    host, port = MARIADB["host"], MARIADB["port"]
    return f"mysql+pymysql://root@{host}:{port}/{name}?charset=utf8mb4"


def drop_database(name: str) -> None:
    """Drop the database ``name`` if it exists."""
    _check(name)
    conn = pymysql.connect(**MARIADB)
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
    finally:
        conn.close()


def _check(name: str) -> None:
    if not (name.startswith(PREFIX) and name.replace("_", "").isalnum()):
        raise ValueError(f"refusing to touch database {name!r}")


def _rabbitmqctl(*args: str) -> None:
    subprocess.run(
        ["rabbitmqctl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def create_vhost(name: str) -> str | None:
    """Create the RabbitMQ virtual host ``name`` for the guest user.

    :returns: the transport URL on that vhost, or ``None`` when
        ``rabbitmqctl`` is missing or refuses (the caller then falls back
        to a private ``control_exchange`` on the default vhost).
    """
    _check(name)
    if shutil.which("rabbitmqctl") is None:
        return None
    try:
        _rabbitmqctl("add_vhost", name)
        _rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*")
    except (OSError, subprocess.SubprocessError):
        delete_vhost(name)
        return None
    return f"rabbit://{RABBIT}/{name}"


def delete_vhost(name: str) -> None:
    """Delete the virtual host ``name`` (quietly when it is absent)."""
    _check(name)
    if shutil.which("rabbitmqctl") is None:
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        _rabbitmqctl("delete_vhost", name)


def default_transport() -> str:
    """The transport URL on the default virtual host."""
    return f"rabbit://{RABBIT}/"
