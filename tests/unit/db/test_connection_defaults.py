"""Connection defaults: a pool sized to the engine, no TLS over loopback."""

import pytest
import sqlalchemy as sa
from oslo_config import cfg

from keel_heat_core.conf import database as db_conf
from keel_heat_core.db.database import _no_tls, _skip_tls


@pytest.mark.parametrize(
    ("url", "skip"),
    [
        ("mysql+pymysql://root@127.0.0.1/keel", True),
        ("mysql+pymysql://root@localhost/keel", True),
        ("mysql+pymysql://root@/keel?unix_socket=/run/mysqld.sock", True),
        ("mysql+pymysql://root@db.example.org/keel", False),
        ("mysql+pymysql://root@127.0.0.1/keel?ssl_ca=/etc/ca.pem", False),
        ("postgresql+psycopg2://postgres@127.0.0.1/keel", False),
        ("sqlite:///:memory:", False),
    ],
)
def test_tls_is_skipped_only_for_pymysql_over_loopback(
    url: str, skip: bool
) -> None:
    engine = sa.create_engine(url)  # no connection is made
    try:
        assert _skip_tls(engine) is skip
    finally:
        engine.dispose()


def test_an_explicit_choice_wins() -> None:
    params = {"ssl_disabled": False}
    _no_tls(None, None, (), params)
    assert params == {"ssl_disabled": False}
    params = {}
    _no_tls(None, None, (), params)
    assert params == {"ssl_disabled": True}


def test_pool_is_sized_to_the_executor() -> None:
    conf = cfg.ConfigOpts()
    db_conf.register(conf)
    conf([], default_config_files=[])
    assert conf.database.max_pool_size == 64
    assert conf.database.max_overflow == 16
