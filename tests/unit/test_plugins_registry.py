"""Tests of the plugin registry over fake installed distributions."""

import importlib.metadata as metadata
import pathlib
import sys
import textwrap

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.plugin_api import PLUGIN_API_VERSION
from keel_heat_core.plugin_api.version import REQUIRES_GROUP, REQUIRES_NAME
from keel_heat_core.plugins import registry as reg


def make_dist(
    root: pathlib.Path,
    name: str,
    version: str,
    entry_points: dict[str, dict[str, str]],
    modules: dict[str, str] | None = None,
    api_requires: str | None = ">=1.0,<2",
) -> None:
    """Write a minimal installed distribution (dist-info) under root.

    :param api_requires: the plugin API range it declares (in a module of
        its own named by its ``keel_heat.plugin_api`` entry point); None
        for no declaration
    """
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    )
    if api_requires is not None:
        # a module name of its own per site: tests share sys.modules
        sdk = f"{name.replace('-', '_')}_api_range_{root.name}"
        modules = {
            **(modules or {}),
            sdk: f"PLUGIN_API_REQUIRES = {api_requires!r}\n",
        }
        entry_points = {
            **entry_points,
            REQUIRES_GROUP: {REQUIRES_NAME: f"{sdk}:PLUGIN_API_REQUIRES"},
        }
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


# -- the plugin API range a distribution declares ---------------------------


def _thing_dist(site, **kw):
    mod = f"kpo_mod_{site.name}"
    make_dist(
        site,
        "keel-heat-pack-old",
        "0.3.0",
        {reg.RESOURCES: {"OS::Old::Thing": f"{mod}:Thing"}},
        {mod: "class Thing:\n    pass\n"},
        **kw,
    )
    return mod


def test_compatible_range_loads(site, conf):
    _thing_dist(site, api_requires=f">={PLUGIN_API_VERSION}")
    registry = plugins.build_registry(conf, dists(site))
    assert registry.load(reg.RESOURCES, "OS::Old::Thing").__name__ == "Thing"


def test_incompatible_range_is_refused_naming_all(site, conf):
    mod = _thing_dist(site, api_requires=">=0.1,<1.0")
    registry = plugins.build_registry(conf, dists(site))
    with pytest.raises(plugins.PluginApiVersionError) as err:
        registry.load(reg.RESOURCES, "OS::Old::Thing")
    message = str(err.value)
    assert "keel-heat-pack-old 0.3.0 is refused" in message
    assert "'<1.0,>=0.1'" in message
    assert f"plugin API {PLUGIN_API_VERSION}" in message
    core = metadata.version("keel-heat-core")
    assert f"keel-heat-core {core} provides" in message
    assert (err.value.supported, err.value.current) == (
        "<1.0,>=0.1",
        PLUGIN_API_VERSION,
    )
    # recorded against the pack, and the module never imported
    recorded = registry.pack("keel-heat-pack-old").load_errors
    key = f"{reg.RESOURCES}:OS::Old::Thing"
    assert "PluginApiVersionError" in recorded[key]
    assert mod not in sys.modules


def test_incompatible_required_pack_stops_start_up(site, conf):
    _thing_dist(site, api_requires=">=2.0,<3")
    conf.set_override("required_packs", ["keel-heat-pack-old"], "plugins")
    with pytest.raises(plugins.RequiredPackError) as err:
        plugins.build_registry(conf, dists(site))
    assert "keel-heat-pack-old 0.3.0 is refused" in str(err.value)
    assert "'<3,>=2.0'" in str(err.value)


def test_no_declared_range_is_refused(site, conf):
    _thing_dist(site, api_requires=None)
    registry = plugins.build_registry(conf, dists(site))
    with pytest.raises(plugins.PluginApiVersionError) as err:
        registry.load(reg.RESOURCES, "OS::Old::Thing")
    assert "declares no supported plugin API range" in str(err.value)
    assert REQUIRES_GROUP in str(err.value)


def test_unreadable_range_is_refused(site, conf):
    _thing_dist(site, api_requires="version one")
    registry = plugins.build_registry(conf, dists(site))
    with pytest.raises(plugins.PluginApiVersionError, match="unreadable"):
        registry.load(reg.RESOURCES, "OS::Old::Thing")


def test_installed_packs_declare_a_range_that_holds(conf):
    registry = plugins.build_registry(conf)
    assert registry.load_all() == {}
    ours = [
        p.distribution
        for p in registry.packs()
        if p.distribution.startswith(("keel-heat-pack", "keel-heat-client"))
    ]
    assert ours
    for dist in ours:
        eps = metadata.distribution(dist).entry_points
        assert [ep.name for ep in eps if ep.group == REQUIRES_GROUP] == [
            REQUIRES_NAME
        ], dist


def test_start_up_refuses_an_enabled_pack_of_another_api(site, conf):
    _thing_dist(site, api_requires=">=2.0")
    with pytest.raises(plugins.PluginApiVersionError, match="pack-old"):
        plugins.load_plugins(conf, dists(site))
    # listing it in disabled_packs is the way out
    conf.set_override("disabled_packs", ["keel-heat-pack-old"], "plugins")
    loaded = plugins.load_plugins(conf, dists(site))
    assert loaded.registry.pack("keel-heat-pack-old").enabled is False


def test_start_up_names_every_refused_pack(site, conf):
    for name in ("keel-heat-pack-a", "keel-heat-pack-b"):
        make_dist(
            site, name, "1", {reg.RESOURCES: {name: "m:X"}}, api_requires="<1"
        )
    with pytest.raises(plugins.PluginError) as err:
        plugins.load_plugins(conf, dists(site))
    assert "keel-heat-pack-a 1 is refused" in str(err.value)
    assert "keel-heat-pack-b 1 is refused" in str(err.value)
