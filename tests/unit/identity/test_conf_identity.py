"""[ec2authtoken]: registered with the core, read by Heat's names."""

from __future__ import annotations

from pathlib import Path

from oslo_config import cfg

from keel_heat_core import conf as core_conf
from keel_heat_core.conf import opts
from keel_heat_core.identity.ec2tokens import session_from_conf


def _conf(tmp_path: Path, text: str) -> cfg.ConfigOpts:
    path = tmp_path / "keel-heat.conf"
    path.write_text(text)
    conf = cfg.ConfigOpts()
    core_conf.register_opts(conf)
    core_conf.register_opts(conf)
    conf(args=[], default_config_files=[str(path)])
    return conf


def test_heat_option_names_and_old_tls_spellings(tmp_path: Path) -> None:
    conf = _conf(
        tmp_path,
        "[ec2authtoken]\n"
        "auth_uri = http://k:5000/v3\n"
        "multi_cloud = true\n"
        "allowed_auth_uris = http://a:5000,http://b:5000\n"
        "ca_file = /etc/ca.pem\n"
        "insecure = true\n",
    )
    group = conf.ec2authtoken
    assert group.auth_uri == "http://k:5000/v3"
    assert group.multi_cloud is True
    assert group.allowed_auth_uris == ["http://a:5000", "http://b:5000"]
    assert group.cafile == "/etc/ca.pem"
    assert group.insecure is True
    assert session_from_conf(conf) is None


def test_service_credentials_give_a_session(tmp_path: Path) -> None:
    conf = _conf(
        tmp_path,
        "[ec2authtoken]\n"
        "auth_type = password\n"
        "auth_url = http://k:5000\n"
        "username = heat\n"
        "password = secret\n"
        "user_domain_id = default\n"
        "project_name = service\n"
        "project_domain_id = default\n"
        "timeout = 7\n",
    )
    sess = session_from_conf(conf)
    assert sess is not None
    assert sess.timeout == 7
    assert sess.auth is not None
    assert sess.auth.auth_url == "http://k:5000"  # type: ignore[attr-defined]


def test_sample_lists_the_group() -> None:
    groups = dict(opts.list_opts())
    names = {opt.name for opt in groups["ec2authtoken"]}
    assert {"auth_uri", "multi_cloud", "allowed_auth_uris"} <= names
    assert {"cafile", "insecure", "auth_type", "username"} <= names
