"""Tests of the plugin registry over fake installed distributions."""

import importlib.metadata as metadata
import pathlib
import textwrap

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.plugins import registry as reg


def make_dist(
    root: pathlib.Path,
    name: str,
    version: str,
    entry_points: dict[str, dict[str, str]],
    modules: dict[str, str] | None = None,
) -> None:
    """Write a minimal installed distribution (dist-info) under root."""
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    )
    lines = []
    for group, names in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{n} = {v}" for n, v in names.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    for mod, source in (modules or {}).items():
        (root / f"{mod}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def dists(site: pathlib.Path) -> list[metadata.Distribution]:
    return list(metadata.distributions(path=[str(site)]))


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c([], default_config_files=[])
    return c


def test_registry_knows_distribution_and_version(site, conf):
    make_dist(
        site,
        "keel-heat-pack-a",
        "1.2.0",
        {reg.RESOURCES: {"OS::A::Thing": "kpa_mod:Thing"}},
        {"kpa_mod": "class Thing:\n    pass\n"},
    )
    registry = plugins.build_registry(conf, dists(site))
    entry = registry.entry(reg.RESOURCES, "OS::A::Thing")
    assert (entry.distribution, entry.version) == ("keel-heat-pack-a", "1.2.0")
    assert registry.load(reg.RESOURCES, "OS::A::Thing").__name__ == "Thing"
    assert registry.pack("keel_heat_pack_a").resource_types == 1


def test_duplicate_name_names_both_distributions(site, conf):
    for name in ("keel-heat-pack-one", "keel-heat-pack-two"):
        make_dist(site, name, "0.1", {reg.RESOURCES: {"OS::X::Y": "m:Y"}})
    with pytest.raises(plugins.DuplicatePluginError) as err:
        plugins.build_registry(conf, dists(site))
    message = str(err.value)
    assert "keel-heat-pack-one 0.1" in message
    assert "keel-heat-pack-two 0.1" in message
    assert "'OS::X::Y'" in message


def test_same_name_in_other_group_is_fine(site, conf):
    make_dist(site, "p-one", "1", {reg.RESOURCES: {"nova": "m:A"}})
    make_dist(site, "p-two", "1", {reg.CLIENTS: {"nova": "m:B"}})
    registry = plugins.build_registry(conf, dists(site))
    assert registry.names(reg.CLIENTS) == ["nova"]


def test_disabled_pack_resolves_duplicate(site, conf):
    for name in ("p-one", "p-two"):
        make_dist(site, name, "1", {reg.RESOURCES: {"OS::X::Y": "m:Y"}})
    conf.set_override("disabled_packs", ["p_two"], group="plugins")
    registry = plugins.build_registry(conf, dists(site))
    assert registry.entry(reg.RESOURCES, "OS::X::Y").distribution == "p-one"
    assert registry.pack("p-two").enabled is False


def test_disabled_types_with_patterns(site, conf):
    make_dist(
        site,
        "p",
        "1",
        {
            reg.RESOURCES: {
                "OS::Sahara::A": "m:A",
                "OS::Sahara::B": "m:B",
                "OS::Nova::Server": "m:S",
            }
        },
    )
    conf.set_override("disabled_types", ["OS::Sahara::*"], group="plugins")
    registry = plugins.build_registry(conf, dists(site))
    assert registry.names(reg.RESOURCES) == ["OS::Nova::Server"]
    assert registry.pack("p").resource_types == 1


def test_load_error_is_recorded_not_fatal(site, conf):
    make_dist(
        site,
        "p-broken",
        "3",
        {reg.RESOURCES: {"OS::B::Bad": "kpb_missing:Bad"}},
    )
    registry = plugins.build_registry(conf, dists(site))
    with pytest.raises(plugins.PluginLoadError, match="p-broken 3"):
        registry.load(reg.RESOURCES, "OS::B::Bad")
    errors = registry.pack("p-broken").load_errors
    assert list(errors) == [f"{reg.RESOURCES}:OS::B::Bad"]
    assert "ModuleNotFoundError" in errors[f"{reg.RESOURCES}:OS::B::Bad"]
    assert registry.extension_manager(reg.RESOURCES).names() == []


def test_required_pack_missing_fails(site, conf):
    conf.set_override("required_packs", ["keel-heat-pack-nova"], "plugins")
    with pytest.raises(plugins.RequiredPackError, match="not installed"):
        plugins.build_registry(conf, dists(site))


def test_required_pack_disabled_fails(site, conf):
    make_dist(site, "p", "1", {reg.RESOURCES: {"OS::P": "m:P"}})
    conf.set_override("required_packs", ["p"], "plugins")
    conf.set_override("disabled_packs", ["p"], "plugins")
    with pytest.raises(plugins.RequiredPackError, match="disabled_packs"):
        plugins.build_registry(conf, dists(site))


def test_required_pack_that_fails_to_load_fails(site, conf):
    make_dist(site, "p", "1", {reg.RESOURCES: {"OS::P": "kp_nope:P"}})
    conf.set_override("required_packs", ["p"], "plugins")
    with pytest.raises(plugins.RequiredPackError, match="OS::P"):
        plugins.build_registry(conf, dists(site))


def test_required_pack_that_loads_passes(site, conf):
    make_dist(
        site,
        "p",
        "1",
        {reg.RESOURCES: {"OS::P": "kp_ok:P"}},
        {"kp_ok": "P = 1\n"},
    )
    conf.set_override("required_packs", ["p"], "plugins")
    registry = plugins.build_registry(conf, dists(site))
    assert registry.load(reg.RESOURCES, "OS::P") == 1


def test_extension_manager_gives_stevedore_api(site, conf):
    make_dist(
        site,
        "p",
        "1",
        {reg.CONSTRAINTS: {"nova.flavor": "kp_c:F", "nova.key": "kp_c:K"}},
        {"kp_c": "F = 'flavor'\nK = 'key'\n"},
    )
    registry = plugins.build_registry(conf, dists(site))
    manager = registry.extension_manager(reg.CONSTRAINTS)
    assert sorted(manager.names()) == ["nova.flavor", "nova.key"]
    assert manager["nova.flavor"].plugin == "flavor"


def test_installed_core_is_discovered(conf):
    registry = plugins.build_registry(conf)
    names = [p.distribution for p in registry.packs()]
    assert len(names) == len(set(names))
