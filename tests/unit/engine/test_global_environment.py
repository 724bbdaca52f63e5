"""The engine reads the operator's environment.d at start."""

import pathlib

from oslo_config import cfg

from keel_heat_core.service.engine import load_global_environment
from keel_heat_core.template import environment


def _conf(env_dir: str) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    conf.register_opt(cfg.StrOpt("environment_dir"))
    conf([], project="keel-heat-test")
    conf.set_override("environment_dir", env_dir)
    return conf


def test_aliases_of_environment_d_reach_every_stack(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "aliases.yaml").write_text(
        "resource_registry:\n  OS::Neutron::SecurityGroup: OS::Heat::None\n"
    )
    try:
        assert load_global_environment(_conf(str(tmp_path)))
        info = environment.global_env().get_resource_info(
            "OS::Neutron::SecurityGroup", "sg"
        )
        assert info.name == "OS::Heat::None"
    finally:
        environment.set_global_env(None)


def test_missing_directory_is_not_an_error(tmp_path: pathlib.Path) -> None:
    assert not load_global_environment(_conf(str(tmp_path / "absent")))


def test_the_engine_applies_the_yaql_limits_of_its_configuration() -> None:
    import pytest

    from keel_heat_core.conf import register_opts
    from keel_heat_core.service.engine import configure_yaql
    from tests.unit.template.helpers import evaluate

    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf([], project="keel-heat-test")
    snippet = {"yaql": {"expression": "range(300).select($).len()"}}
    conf.set_override("limit_iterators", 500, group="yaql")
    try:
        configure_yaql(conf)
        assert evaluate(snippet) == 300
        conf.set_override("limit_iterators", 100, group="yaql")
        configure_yaql(conf)
        with pytest.raises(ValueError, match="Collection length exceeds 100"):
            evaluate({"yaql": {"expression": "range(150).select($).len()"}})
    finally:
        conf.clear_override("limit_iterators", group="yaql")
        configure_yaql(conf)
    with pytest.raises(ValueError, match="Collection length exceeds 200"):
        evaluate(snippet)


def test_the_registries_are_read_at_start_not_on_first_use(
    monkeypatch,
) -> None:
    from keel_heat_core.service.engine import load_registries
    from keel_heat_core.template import versions

    built = []
    real = environment.build_global_env

    def counting(*args, **kwargs):
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(environment, "build_global_env", counting)
    environment.set_global_env(None)
    versions.template_classes.cache_clear()
    try:
        load_registries()
        assert len(built) == 1
        assert versions.template_classes.cache_info().currsize == 1
        environment.global_env().get_class_to_instantiate("OS::Heat::None")
        assert len(built) == 1
    finally:
        environment.set_global_env(None)
