"""The pack as installed: found through its entry points, switched off by
``[plugins] disabled_packs``, its options known to oslo-config-generator."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins

DIST = "keel-heat-metrics-prometheus"
HOOKS = f"{DIST}:prometheus"


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c([], default_config_files=[])
    return c


def test_installed_means_enabled(conf):
    loaded = plugins.load_plugins(conf)
    assert HOOKS in loaded.hooks.plugin_names


def test_disabled_packs_turns_it_off(conf):
    conf.set_override("disabled_packs", [DIST], "plugins")
    loaded = plugins.load_plugins(conf)
    assert HOOKS not in loaded.hooks.plugin_names


def test_options_in_the_config_generator(tmp_path):
    generator = pathlib.Path(sys.executable).with_name("oslo-config-generator")
    out = tmp_path / "sample.conf"
    subprocess.run(
        [
            str(generator),
            "--namespace",
            "keel_heat_metrics_prometheus",
            "--output-file",
            str(out),
        ],
        check=True,
        timeout=120,
    )
    text = out.read_text()
    assert "[prometheus]" in text
    for option in ("bind_host", "bind_port", "multiproc_dir"):
        assert f"#{option} = " in text
