"""The checked-in sample configuration must match what the generator makes.

Regenerate it with ``tox -e genconfig`` (or ``make genconfig``).
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_CONF = ROOT / "etc" / "oslo-config-generator" / "keel-heat.conf"
SAMPLE = ROOT / "etc" / "keel-heat.conf.sample"


def test_sample_config_is_current(tmp_path):
    out = tmp_path / "keel-heat.conf.sample"
    subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore",
            "-m",
            "oslo_config.generator",
            "--config-file",
            str(GENERATOR_CONF),
            "--output-file",
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    assert out.read_text() == SAMPLE.read_text(), (
        "etc/keel-heat.conf.sample is stale: run `tox -e genconfig`"
    )
