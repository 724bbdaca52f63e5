"""``make cloud``: the test cloud plus keel-heat, until Ctrl-C.

Starts (or reuses, when it runs) the cloud in ``build/cloud``, then
keel-heat's engine, native API and CFN API in this process
(:class:`keel_heat_core.testing.cloud.InProcessCloud`) on a MariaDB
database and the cloud's RabbitMQ virtual host, behind the cloud's
Keystone, registered there as ``orchestration`` and ``cloudformation``;
prints an openrc of the member user and waits. Ctrl-C stops keel-heat
and the cloud and drops their databases.

``python -m keel_heat_core.testing.openstack.heat [--state-dir DIR]
[--keep]`` (``--keep``: leave the cloud running on exit).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from pathlib import Path

from keel_heat_core.testing.cloud_setup import scratch_database
from keel_heat_core.testing.openstack.cloud import OpenStackCloud


def _progress(message: str) -> None:
    print(f"cloud: {message}", file=sys.stderr, flush=True)


def _cloud(state_dir: Path) -> OpenStackCloud:
    try:
        cloud = OpenStackCloud.load(state_dir)
        if cloud.ready and all(cloud.status().values()):
            _progress(f"reusing the cloud in {state_dir}")
            return cloud
        cloud.stop(drop=True)
    except FileNotFoundError:
        pass
    return OpenStackCloud.start(state_dir, _progress)


def main(argv: list[str] | None = None) -> int:
    """Run the cloud and keel-heat in the foreground."""
    parser = argparse.ArgumentParser(prog="make cloud")
    parser.add_argument("--state-dir", type=Path, default=Path("build/cloud"))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    cloud = _cloud(args.state_dir.resolve())
    # imported late: the engine is heavy and not needed to start a cloud
    from keel_heat_core.testing.cloud import InProcessCloud

    heat_dir = cloud.layout.dir("heat")
    heat_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    try:
        with (
            scratch_database(
                "mariadb", prefix=f"{cloud.layout.prefix}heat_"
            ) as url,
            InProcessCloud(
                heat_dir,
                database_url=url,
                transport_url=cloud.layout.transport_url,
                keystone=cloud.keystone,
                cfn_api=True,
            ) as heat,
        ):
            _progress(
                f"keel-heat on {heat.server.url} (native) and "
                f"{heat.cfn_server.url if heat.cfn_server else '-'} (CFN); "
                f"up after {time.monotonic() - started:.0f} s; Ctrl-C stops"
            )
            print(cloud.openrc(), end="", flush=True)
            # set after keel-heat started: its services install their own
            # SIGINT handling, which left Ctrl-C without effect here
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, lambda *_: stop.set())
            while not stop.wait(1):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        if not args.keep:
            _progress("stopping the cloud")
            cloud.stop(drop=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
