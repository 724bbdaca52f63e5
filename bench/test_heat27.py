"""Unit checks of the Heat 27 launcher pieces (run by hand, not in CI):

.venv/bin/python -m pytest -p no:cacheprovider bench/test_heat27.py
"""

from __future__ import annotations

import pathlib
import runpy
import sys
import types

from bench import heat27, report


def test_entry_module_hands_heat_its_own_arguments(
    tmp_path: pathlib.Path,
) -> None:
    conf = tmp_path / "heat.conf"
    target = heat27.write_entry(tmp_path, conf)
    assert target == "heat27_wsgi_entry:application"
    fake = types.ModuleType("heat.wsgi.api")
    fake.application = "app"  # type: ignore[attr-defined]
    saved = sys.argv[:]
    sys.modules.update(
        {
            "heat": types.ModuleType("heat"),
            "heat.wsgi": types.ModuleType("heat.wsgi"),
            "heat.wsgi.api": fake,
        }
    )
    try:
        sys.argv = ["gunicorn", "--workers", "2", target]
        ns = runpy.run_path(str(tmp_path / "heat27_wsgi_entry.py"))
        # runpy puts its own argv[0] back afterwards.
        assert sys.argv[1:] == ["--config-file", str(conf)]
        assert ns["application"] == "app"
    finally:
        sys.argv = saved
        for name in ("heat", "heat.wsgi", "heat.wsgi.api"):
            sys.modules.pop(name, None)


def test_options_are_the_conformance_ones_with_ours_laid_over(
    tmp_path: pathlib.Path,
) -> None:
    keystone = {"trustee": {"username": "heat"}, "DEFAULT": {"a": "1"}}
    values = heat27.heat_options(
        keystone,
        database="mysql+pymysql://root@127.0.0.1/x",
        transport="rabbit://guest:guest@127.0.0.1:5672/x",
        workdir=tmp_path,
        extra={"DEFAULT": {"num_engine_workers": "2", "log_file": "l"}},
    )
    assert values["trustee"] == {"username": "heat"}
    assert values["DEFAULT"]["a"] == "1"
    assert values["DEFAULT"]["num_engine_workers"] == "2"
    assert values["DEFAULT"]["convergence_engine"] is True
    assert values["database"]["connection"].endswith("/x")
    assert (tmp_path / "environment.d").is_dir()


def test_vs_heat_ratio_is_times_better_than_heat() -> None:
    rows = [
        {"label": "heat27", "case": "create", "shape": "wide", "n": 10,
         "seconds": 10.0, "load": "4.0 3 2"},
        {"label": "rabbit2", "case": "create", "shape": "wide", "n": 10,
         "seconds": 0.5, "load": "5.0 3 2"},
        {"label": "heat27", "case": "throughput GET /stacks",
         "concurrency": 8, "req_per_s": 10.0, "p50": 0.1, "p99": 0.2},
        {"label": "rabbit2", "case": "throughput GET /stacks",
         "concurrency": 8, "req_per_s": 40.0, "p50": 0.1, "p99": 0.2},
    ]  # fmt: skip
    out = report.vs_heat(rows).splitlines()
    assert out[2].endswith("| 4.0 | 0.500 s (rabbit2) | 5.0 | 20.0x |")
    assert out[3].endswith("| 4.0x |")
    assert len(out) == 4
