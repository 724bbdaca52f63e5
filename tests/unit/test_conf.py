"""Tests of keel_heat_core.conf: registration, Heat's names and defaults."""

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.conf import clients, opts


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c([], project="keel-heat", default_config_files=[])
    return c


HEAT_DEFAULTS = {
    "max_template_size": 524288,
    "max_nested_stack_depth": 5,
    "max_resources_per_stack": 1000,
    "max_stacks_per_tenant": 512,
    "max_json_body_size": 1048576,
    "max_events_per_stack": 1000,
    "event_purge_batch_size": 200,
    "max_software_configs_per_tenant": 4096,
    "max_software_deployments_per_tenant": 4096,
    "max_snapshots_per_stack": 32,
    "template_fetch_timeout": 60.0,
    "periodic_interval": 60,
    "engine_life_check_timeout": 2,
    "client_retry_limit": 2,
    "action_retry_limit": 5,
    "stack_action_timeout": 3600,
    "error_wait_time": 240,
    "convergence_engine": True,
    "enable_stack_abandon": False,
    "enable_stack_adopt": False,
    "hidden_stack_tags": [],
    "deferred_auth_method": "trusts",
    "reauthentication_auth_method": "",
    "encrypt_parameters_and_properties": False,
    "heat_stack_user_role": "heat_stack_user",
    "auth_encryption_key": "notgood but just long enough i t",
    "num_engine_workers": None,
    "heat_metadata_server_url": None,
    "heat_waitcondition_server_url": None,
    "stack_user_domain_id": None,
    "stack_user_domain_name": None,
    "stack_domain_admin": None,
    "stack_domain_admin_password": None,
}


@pytest.mark.parametrize(("name", "value"), sorted(HEAT_DEFAULTS.items()))
def test_default_group_has_heats_defaults(conf, name, value):
    assert conf[name] == value


def test_library_options_are_registered(conf):
    assert conf.control_exchange == "heat"
    assert conf.transport_url == "rabbit://"
    assert conf.database.connection is None
    assert conf.debug is False
    assert conf.trustee.auth_type is None


def test_api_groups(conf):
    assert conf.heat_api.bind_port == 8004
    assert conf.heat_api_cfn.bind_port == 8000
    assert conf.heat_api.bind_host == "0.0.0.0"
    assert conf.revision.heat_revision == "unknown"


def test_plugins_and_embedded_groups(conf):
    assert conf.plugins.disabled_packs == []
    assert conf.plugins.disabled_types == []
    assert conf.plugins.required_packs == []
    assert conf.embedded.state_dir is None


def test_register_twice_is_harmless():
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    keel_conf.register_opts(c)
    c([], default_config_files=[])
    assert c.max_template_size == 524288


def test_heat_conf_carries_over(tmp_path):
    path = tmp_path / "heat.conf"
    path.write_text(
        "[DEFAULT]\n"
        "num_engine_workers = 3\n"
        "stack_user_domain = dom\n"
        "hidden_stack_tags = hidden\n"
        "[database]\nconnection = sqlite://\n"
        "[clients]\nendpoint_type = internalURL\n"
        "[clients_nova]\nendpoint_type = adminURL\n"
        "[heat_api]\nbind_port = 9004\n"
        "[trustee]\nauth_type = password\n"
    )
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c(["--config-file", str(path)], default_config_files=[])
    assert c.num_engine_workers == 3
    assert c.stack_user_domain_id == "dom"
    assert c.hidden_stack_tags == ["hidden"]
    assert c.database.connection == "sqlite://"
    assert c.heat_api.bind_port == 9004
    assert c.trustee.auth_type == "password"
    assert clients.get_client_option(c, "nova", "endpoint_type") == "adminURL"
    assert (
        clients.get_client_option(c, "neutron", "endpoint_type")
        == "internalURL"
    )
    assert clients.get_client_option(c, "unknown", "insecure") is False


def test_choices_are_enforced(tmp_path):
    path = tmp_path / "k.conf"
    path.write_text("[DEFAULT]\nreauthentication_auth_method = nope\n")
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c(["--config-file", str(path)], default_config_files=[])
    with pytest.raises(ValueError):
        _ = c.reauthentication_auth_method


def test_list_opts_merges_groups():
    groups = dict(opts.list_opts())
    assert len(groups) == len(opts.list_opts())
    nova = {o.name for o in groups["clients_nova"]}
    assert {"endpoint_type", "http_log_debug"} <= nova
    trustee = {o.dest for o in groups["trustee"]}
    assert {"auth_type", "auth_url", "username", "password"} <= trustee
