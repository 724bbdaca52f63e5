"""``python -m keel_heat_core.testing.openstack up|down|status``.

``up --state-dir DIR`` starts a test cloud whose processes keep running
after the command returns, writes ``DIR/cloud.json`` (Keystone URL,
admin and member credentials, region, ports, process ids, log files) and
prints an openrc of the member user; ``down --state-dir DIR`` stops them
and drops the cloud's databases and virtual host; ``status`` tells which
processes run. Tests find the cloud through ``KEEL_HEAT_TEST_CLOUD=DIR``
(see :mod:`keel_heat_core.testing.openstack.fixture`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from keel_heat_core.testing.openstack.cloud import OpenStackCloud


def _progress(message: str) -> None:
    print(f"cloud: {message}", file=sys.stderr, flush=True)


def up(state_dir: Path) -> int:
    """Start a cloud in ``state_dir`` unless one runs there."""
    try:
        old = OpenStackCloud.load(state_dir)
    except FileNotFoundError:
        old = None
    if old is not None and any(old.status().values()):
        if old.ready and all(old.status().values()):
            _progress(f"already running in {state_dir}")
            print(old.openrc(), end="")
            return 0
        _progress("stopping the incomplete cloud found there")
        old.stop(drop=True)
    cloud = OpenStackCloud.start(state_dir, _progress)
    _progress(
        f"ready in {cloud.timings['total']} s "
        f"({json.dumps(cloud.timings)}); state {cloud.state_file}"
    )
    print(cloud.openrc(), end="")
    return 0


def down(state_dir: Path) -> int:
    """Stop the cloud of ``state_dir`` and drop its databases."""
    try:
        cloud = OpenStackCloud.load(state_dir)
    except FileNotFoundError:
        _progress(f"no cloud in {state_dir}")
        return 0
    cloud.stop(drop=True)
    _progress(f"stopped {len(cloud.records)} processes")
    return 0


def status(state_dir: Path) -> int:
    """Print each process's state; exit 1 unless all run."""
    try:
        cloud = OpenStackCloud.load(state_dir)
    except FileNotFoundError:
        print(f"no cloud in {state_dir}")
        return 1
    states = cloud.status()
    for name, running in states.items():
        print(f"{name:20} {'running' if running else 'stopped'}")
    print(f"ready: {cloud.ready}; keystone: {cloud.layout.keystone_url}")
    return 0 if states and all(states.values()) else 1


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m keel_heat_core.testing.openstack",
        description="A small OpenStack on loopback for tests.",
    )
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument("--state-dir", type=Path, default=Path("build/cloud"))
    args = parser.parse_args(argv)
    commands = {"up": up, "down": down, "status": status}
    return commands[args.command](args.state_dir.resolve())


if __name__ == "__main__":
    sys.exit(main())
