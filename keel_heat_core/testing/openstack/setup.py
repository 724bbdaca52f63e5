"""One-off set-up of a test cloud: databases, virtual host, schemas,
cells, Swift rings and the Neutron agent row.

The schema steps run the services' own tools from the cloud's venv;
each step's output goes to ``<state>/logs/<step>.log``.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa

from keel_heat_core.testing.cloud_setup import (
    kill_mariadb_connections,
    rabbitmqctl,
)
from keel_heat_core.testing.openstack import config
from keel_heat_core.testing.openstack.layout import (
    DATABASES,
    DB_SERVER,
    Layout,
)
from keel_heat_core.testing.openstack.processes import tail
from keel_heat_core.testing.openstack.venv import bin_of

AGENT_ROW = '''\
"""Write the Open vSwitch agent row of the cloud's one host.

ML2's openvswitch driver binds a port only to a host with a live agent;
no agent runs here, so its row is written once with Neutron's own code
(``agent_down_time`` keeps it alive).
"""
import sys

from neutron.common import config
from neutron.db import agents_db
from neutron_lib import context

host = sys.argv[1]
config.register_common_config_options()
config.init([arg for path in sys.argv[2:] for arg in ("--config-file", path)])
agents_db.AgentDbMixin().create_or_update_agent(
    context.get_admin_context(),
    {
        "agent_type": "Open vSwitch agent",
        "binary": "neutron-openvswitch-agent",
        "topic": "N/A",
        "host": host,
        "configurations": {
            "bridge_mappings": {"public": "br-ex"},
            "tunnel_types": ["vxlan"],
            "tunneling_ip": "127.0.0.1",
            "integration_bridge": "br-int",
            "datapath_type": "system",
            "ovs_hybrid_plug": False,
        },
    },
)
'''

SWIFT_RINGS = '''\
"""Build Swift's three rings: one device, one replica, part power 6."""
import sys

from swift.common.ring import RingBuilder

folder = sys.argv[1]
for pair in sys.argv[2:]:
    kind, port = pair.split("=")
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({
        "region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port),
        "device": "d1", "weight": 100, "meta": "",
    })
    builder.rebalance()
    builder.save(f"{folder}/{kind}.builder")
    builder.get_ring().save(f"{folder}/{kind}.ring.gz")
'''


def run(
    layout: Layout, name: str, argv: Sequence[str], timeout: float = 600
) -> None:
    """Run one set-up command, its output in ``logs/<name>.log``.

    :raises RuntimeError: when it fails (with the log's tail).
    """
    log = layout.log_dir / f"{name}.log"
    with log.open("ab") as out:
        result = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=layout.state_dir,
            env=venv_env(layout),
            timeout=timeout,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(
            f"{name} failed (exit {result.returncode}, log {log}):\n"
            + tail(log)
        )


def venv_env(layout: Layout) -> dict[str, str]:
    """The environment of the cloud's processes."""
    import os

    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OS_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["PATH"] = f"{layout.venv / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    env["PYTHONWARNINGS"] = "ignore"
    # the Cinder back end's module lives in the state folder
    env["PYTHONPATH"] = str(layout.dir("cinder"))
    return env


# -- MariaDB and RabbitMQ -------------------------------------------------


def _admin() -> sa.Engine:
    return sa.create_engine(
        DB_SERVER, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool
    )


def create_backing(layout: Layout) -> None:
    """Create the cloud's empty databases and its virtual host."""
    admin = _admin()
    with admin.connect() as conn:
        for name in DATABASES:
            conn.execute(
                sa.text(
                    f"CREATE DATABASE {layout.database(name)} "
                    "CHARACTER SET utf8"
                )
            )
    admin.dispose()
    made = rabbitmqctl("add_vhost", layout.vhost)
    if made.returncode != 0:
        raise RuntimeError(f"rabbitmqctl add_vhost: {made.stderr}")
    rabbitmqctl(
        "set_permissions", "-p", layout.vhost, "guest", ".*", ".*", ".*"
    )


def drop_backing(layout: Layout) -> None:
    """Drop the cloud's databases and virtual host (what exists)."""
    admin = _admin()
    with contextlib.suppress(sa.exc.OperationalError), admin.connect() as c:
        for name in DATABASES:
            kill_mariadb_connections(c, layout.database(name))
            c.execute(
                sa.text(f"DROP DATABASE IF EXISTS {layout.database(name)}")
            )
    admin.dispose()
    rabbitmqctl("delete_vhost", layout.vhost)


def leftover_databases(prefix: str) -> list[str]:
    """Databases on the server whose name starts with ``prefix``."""
    admin = _admin()
    with admin.connect() as conn:
        names = conn.execute(sa.text("SHOW DATABASES")).scalars().all()
    admin.dispose()
    return [str(n) for n in names if str(n).startswith(prefix)]


# -- files and schemas ----------------------------------------------------


def write_files(layout: Layout) -> None:
    """Write every service's configuration into the state folder."""
    for service in ("placement", "nova", "glance", "neutron", "cinder"):
        (layout.dir(service) / "locks").mkdir(parents=True, exist_ok=True)
    (layout.dir("swift") / "devices" / "d1").mkdir(parents=True, exist_ok=True)
    for path, text in config.files(layout).items():
        path.write_text(text)
    # nova-api and glance-api look for their paste files beside their
    # configuration
    shutil.copy(
        layout.venv / "etc/glance/glance-api-paste.ini", layout.dir("glance")
    )
    shutil.copy(layout.venv / "etc/nova/api-paste.ini", layout.dir("nova"))


def _conf(layout: Layout, service: str, name: str) -> str:
    return str(layout.dir(service) / name)


def sync_placement(layout: Layout) -> None:
    """Placement's schema."""
    run(
        layout,
        "placement-manage",
        [
            bin_of(layout.venv, "placement-manage"),
            "--config-file",
            _conf(layout, "placement", "placement.conf"),
            "db",
            "sync",
        ],
    )


def sync_nova(layout: Layout) -> None:
    """Nova's API and cell schemas, cell0 and cell1."""
    manage = [
        bin_of(layout.venv, "nova-manage"),
        "--config-file",
        _conf(layout, "nova", "nova.conf"),
    ]
    run(layout, "nova-manage", [*manage, "api_db", "sync"])
    run(
        layout,
        "nova-manage",
        [
            *manage,
            "cell_v2",
            "map_cell0",
            "--database_connection",
            layout.database_url("nova_cell0"),
        ],
    )
    run(
        layout,
        "nova-manage",
        [*manage, "cell_v2", "create_cell", "--name", "cell1"],
    )
    run(layout, "nova-manage", [*manage, "db", "sync"])


def discover_hosts(layout: Layout) -> None:
    """Map the compute host into cell1 (after it registered)."""
    run(
        layout,
        "nova-manage",
        [
            bin_of(layout.venv, "nova-manage"),
            "--config-file",
            _conf(layout, "nova", "nova.conf"),
            "cell_v2",
            "discover_hosts",
        ],
    )


def sync_glance(layout: Layout) -> None:
    """Glance's schema."""
    run(
        layout,
        "glance-manage",
        [
            bin_of(layout.venv, "glance-manage"),
            "--config-file",
            _conf(layout, "glance", "glance-api.conf"),
            "db_sync",
        ],
    )


def sync_neutron(layout: Layout) -> None:
    """Neutron's schema and the agent row."""
    files = [
        _conf(layout, "neutron", "neutron.conf"),
        _conf(layout, "neutron", "ml2_conf.ini"),
    ]
    run(
        layout,
        "neutron-db-manage",
        [
            bin_of(layout.venv, "neutron-db-manage"),
            "--config-file",
            files[0],
            "--config-file",
            files[1],
            "upgrade",
            "heads",
        ],
    )
    script = layout.dir("neutron") / "keel_agent_row.py"
    script.write_text(AGENT_ROW)
    run(
        layout,
        "neutron-agent-row",
        [bin_of(layout.venv, "python"), str(script), layout.host, *files],
    )


def sync_cinder(layout: Layout) -> None:
    """Cinder's schema."""
    run(
        layout,
        "cinder-manage",
        [
            bin_of(layout.venv, "cinder-manage"),
            "--config-file",
            _conf(layout, "cinder", "cinder.conf"),
            "db",
            "sync",
        ],
    )


def build_rings(layout: Layout) -> None:
    """Swift's account, container and object rings."""
    folder = layout.dir("swift")
    script = folder / "keel_rings.py"
    script.write_text(SWIFT_RINGS)
    run(
        layout,
        "swift-rings",
        [
            bin_of(layout.venv, "python"),
            str(script),
            str(folder),
            *(
                f"{kind}={layout.ports[f'swift-{kind}']}"
                for kind in ("account", "container", "object")
            ),
        ],
    )


def conf_path(layout: Layout, service: str, name: str) -> Path:
    """The path of configuration file ``name`` of ``service``."""
    return layout.dir(service) / name
