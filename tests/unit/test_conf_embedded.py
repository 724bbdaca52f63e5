"""The embedded defaults of keel-heat-all."""

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.cmd import all as keel_all
from keel_heat_core.conf import embedded


def make_conf(*files, api_opts: bool = True) -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    if api_opts:
        # The API distribution's options, as keel_heat_api.opts names them.
        c.register_opts(
            [
                cfg.StrOpt("auth_strategy", default="keystone"),
                cfg.StrOpt("noauth_project_id", default="embedded"),
            ],
            group="api",
        )
    args = []
    for path in files:
        args += ["--config-file", str(path)]
    c(args, default_config_files=[])
    return c


def test_defaults_without_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv(embedded.STATE_DIR_ENV, str(tmp_path / "s"))
    c = make_conf()
    state = embedded.apply_defaults(c)
    assert state == tmp_path / "s"
    assert c.database.connection == f"sqlite:///{state}/keel-heat.sqlite"
    assert c.transport_url == "inproc://"
    assert c.api.auth_strategy == "noauth"
    assert c.heat_api.bind_host == "127.0.0.1"
    assert c.heat_api_cfn.bind_host == "127.0.0.1"
    key = (state / "auth_encryption_key").read_text()
    assert c.auth_encryption_key == key
    assert len(key) == 32
    assert keel_all.noauth_project(c) == "embedded"
    keel_all.check_binding(c)


def test_state_dir_defaults_to_cwd(tmp_path, monkeypatch):
    monkeypatch.delenv(embedded.STATE_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert embedded.apply_defaults(make_conf()) == tmp_path / "state"


def test_configuration_wins(tmp_path, monkeypatch):
    monkeypatch.setenv(embedded.STATE_DIR_ENV, str(tmp_path / "env"))
    path = tmp_path / "k.conf"
    path.write_text(
        "[DEFAULT]\n"
        "transport_url = rabbit://guest:guest@127.0.0.1:5672/\n"
        f"auth_encryption_key = {'k' * 32}\n"
        "[database]\nconnection = mysql+pymysql://root@127.0.0.1/x\n"
        f"[embedded]\nstate_dir = {tmp_path / 'opt'}\n"
        "[api]\nauth_strategy = keystone\n"
        "[heat_api]\nbind_host = 0.0.0.0\n"
    )
    c = make_conf(path)
    state = embedded.apply_defaults(c)
    assert state == tmp_path / "opt"
    assert c.transport_url.startswith("rabbit://")
    assert c.database.connection.startswith("mysql+pymysql://")
    assert c.auth_encryption_key == "k" * 32
    assert not (state / "auth_encryption_key").exists()
    assert keel_all.noauth_project(c) is None
    keel_all.check_binding(c)


def test_noauth_refuses_public_bind(tmp_path, monkeypatch):
    monkeypatch.setenv(embedded.STATE_DIR_ENV, str(tmp_path))
    path = tmp_path / "k.conf"
    path.write_text("[heat_api_cfn]\nbind_host = 0.0.0.0\n")
    c = make_conf(path)
    embedded.apply_defaults(c)
    with pytest.raises(keel_all.StartupError, match=r"\[heat_api_cfn\]"):
        keel_all.check_binding(c)


def test_without_api_distribution(tmp_path, monkeypatch):
    monkeypatch.setenv(embedded.STATE_DIR_ENV, str(tmp_path))
    c = make_conf(api_opts=False)
    embedded.apply_defaults(c)
    assert keel_all.noauth_project(c) is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.0.0.1", False),
        ("example.org", False),
    ],
)
def test_is_loopback(host, loopback):
    assert embedded.is_loopback(host) is loopback
