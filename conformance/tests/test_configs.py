"""keel-heat.conf and tempest.conf of the conformance deployment."""

import configparser
from pathlib import Path

import pytest
from keystoneauth1 import loading as ks_loading
from keystonemiddleware.auth_token import _opts as authtoken_opts
from oslo_config import cfg
from oslo_policy import opts as policy_opts

from conformance import heat_conf, tempest_conf
from keel_heat_api import opts as api_opts

KEYSTONE = {
    "DEFAULT": {
        "stack_user_domain_id": "d0",
        "stack_domain_admin": "heat_domain_admin",
        "stack_domain_admin_password": "pw",
        "deferred_auth_method": "trusts",
        "region_name_for_services": "RegionOne",
    },
    "trustee": {
        "auth_type": "password",
        "auth_url": "http://ks",
        "username": "heat",
        "password": "pw",
        "user_domain_id": "default",
    },
    "keystone_authtoken": {
        "auth_type": "password",
        "auth_url": "http://ks",
        "www_authenticate_uri": "http://ks/v3",
        "project_name": "service",
    },
    "ec2authtoken": {"auth_type": "password", "project_name": "service"},
    "clients_keystone": {"auth_uri": "http://ks"},
}


def _settings(tmp_path: Path) -> dict[str, dict[str, object]]:
    return heat_conf.heat_settings(
        KEYSTONE,
        heat_conf.Endpoints(
            database="mysql+pymysql://root@127.0.0.1/keel_conf_x",
            transport="rabbit://guest:guest@127.0.0.1:5672/keel_conf_x",
            cfn_url="http://127.0.0.1:8000",
            environment_dir=tmp_path,
        ),
    )


def _registered() -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    api_opts.register_opts(conf)
    conf.register_opts(authtoken_opts._OPTS, group="keystone_authtoken")
    ks_loading.register_auth_conf_options(conf, "keystone_authtoken")
    for group, options in policy_opts.list_opts():
        conf.register_opts(options, group=group)
    return conf


def test_every_option_written_is_one_keel_heat_knows(tmp_path: Path) -> None:
    conf = _registered()
    plugin = {
        o.dest for o in ks_loading.get_auth_plugin_conf_options("password")
    }
    unknown = []
    for group, options in _settings(tmp_path).items():
        for name in options:
            if name in plugin and group != "DEFAULT":
                continue  # keystoneauth loads these with the plugin
            try:
                if group == "DEFAULT":
                    conf._get(name)
                else:
                    conf._get(name, group)
            except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
                unknown.append(f"[{group}] {name}")
    assert unknown == []


def test_settings_the_functional_tests_assume(tmp_path: Path) -> None:
    values = _settings(tmp_path)
    default = values["DEFAULT"]
    assert default["convergence_engine"] is True
    assert default["encrypt_parameters_and_properties"] is True
    assert default["max_stacks_per_tenant"] == 256
    assert default["enable_stack_abandon"] is True
    assert default["enable_stack_adopt"] is True
    assert default["hidden_stack_tags"] == "hidden"
    assert default["debug"] is False
    assert default["num_engine_workers"] == 2
    assert default["heat_metadata_server_url"] == "http://127.0.0.1:8000"
    assert default["heat_waitcondition_server_url"] == (
        "http://127.0.0.1:8000/v1/waitcondition"
    )
    assert default["stack_user_domain_id"] == "d0"
    assert len(str(default["auth_encryption_key"])) == 32
    assert values["oslo_policy"] == {"enforce_new_defaults": True}
    assert values["api"] == {"auth_strategy": "keystone"}
    assert values["trustee"]["username"] == "heat"


def test_rendered_file_reads_back_with_oslo_config(tmp_path: Path) -> None:
    path = tmp_path / "keel-heat.conf"
    path.write_text(heat_conf.render(_settings(tmp_path)))
    conf = _registered()
    conf(args=["--config-file", str(path)], project="keel-heat")
    assert conf.convergence_engine is True
    assert conf.max_stacks_per_tenant == 256
    assert conf.hidden_stack_tags == ["hidden"]
    assert conf.database.connection.endswith("/keel_conf_x")
    assert conf.oslo_policy.enforce_new_defaults is True
    assert conf.api.auth_strategy == "keystone"
    assert path.read_text().startswith("[DEFAULT]\n")


IDENTITY = tempest_conf.Identity(
    "http://ks/v3", "RegionOne", ("demo", "pw", "demo"), ("admin", "a", "adm")
)


@pytest.fixture
def tempest_ini(tmp_path: Path) -> configparser.ConfigParser:
    etc = tempest_conf.write(IDENTITY, tmp_path)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(etc / "tempest.conf")
    stestr = (tmp_path / ".stestr.conf").read_text()
    assert f"test_path={tmp_path / 'discover'}\n" in stestr
    assert (tmp_path / "discover" / "test_keel_suite.py").is_file()
    return parser


def test_tempest_conf_has_only_heat(
    tempest_ini: configparser.ConfigParser,
) -> None:
    available = tempest_ini["service_available"]
    assert available["heat"] == "true"
    for service in ("nova", "neutron", "cinder", "glance", "swift"):
        assert available[service] == "false"


def test_tempest_conf_heat_plugin(
    tempest_ini: configparser.ConfigParser,
) -> None:
    plugin = tempest_ini["heat_plugin"]
    assert plugin["username"] == "demo"
    assert plugin["admin_username"] == "admin"
    assert plugin["admin_project_name"] == "adm"
    assert plugin["auth_url"] == "http://ks/v3"
    assert plugin["build_timeout"] == "300"
    assert plugin["image_ref"] == ""
    assert plugin["hidden_stack_tag"] == "hidden"
    skipped = plugin["skip_functional_test_list"].split(",")
    assert "EncryptedParametersTest" in skipped
    assert "StackPreviewTest.test_res_group_with_nested_template" in skipped
    assert "NotificationTest" in skipped
    assert "UpdateStackTest.test_stack_update_flavor_volume" in skipped
    assert tempest_ini["identity"]["uri_v3"] == "http://ks/v3"
    assert tempest_ini["auth"]["use_dynamic_credentials"] == "true"


def test_offline_tempest_conf_names_no_identity(tmp_path: Path) -> None:
    offline = tempest_conf.Identity("", "R", ("u", "p", "p"), ("a", "p", "a"))
    etc = tempest_conf.write(offline, tmp_path)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(etc / "tempest.conf")
    assert "auth_url" not in parser["heat_plugin"]
    assert "uri_v3" not in parser["identity"]


def test_skip_reason_by_class_or_method() -> None:
    reason = tempest_conf.skip_reason
    plugin = "heat_tempest_plugin.tests.functional"
    assert reason(
        f"{plugin}.test_encrypted_parameter.EncryptedParametersTest"
        ".test_db_encryption[id-1]"
    ).startswith("absent service: needs Nova")
    assert reason(
        "heat_integrationtests.functional.test_create_update.UpdateStackTest"
        ".test_stack_update_flavor_volume"
    ).startswith("absent service: needs Nova and Cinder")
    assert reason("p.m.UpdateStackTest.test_stack_update_nochange") is None
    for name, text in tempest_conf.SKIP_BY_NAME.items():
        assert text.startswith(("absent service: ", "cannot run here: ")), name
