"""The ``[database]`` group: oslo.db's options under oslo.db's names.

The persistence layer may change the defaults here; the options
themselves, and their sample, come from oslo.db, but for
``db_retry_timeout``, which is keel-heat's (see :func:`list_opts`).
"""

from oslo_config import cfg
from oslo_db import options as db_options

#: ``max_pool_size``: connections kept open per process. oslo.db's 5 is far
#: below the 64 threads of an engine's RPC executor: the overflow
#: connections were closed on return and reopened on the next burst.
MAX_POOL_SIZE = 64
#: ``max_overflow``: connections opened beyond the pool under a burst.
MAX_OVERFLOW = 16


def register(conf: cfg.ConfigOpts) -> None:
    """Register oslo.db's ``[database]`` options.

    keel-heat sizes the pool to the engine's concurrency (see
    ``docs/design/engine.md``, "Speed"); MariaDB's
    ``max_connections`` must then allow about 80 per engine worker and API
    process under full load (connections are opened lazily).

    :param conf: the configuration to register into
    """
    db_options.set_defaults(
        conf, max_pool_size=MAX_POOL_SIZE, max_overflow=MAX_OVERFLOW
    )


#: seconds every engine statement rides out a lost database
DB_RETRY_TIMEOUT = 60

OPTS: list[cfg.Opt] = [
    cfg.IntOpt(
        "db_retry_timeout",
        default=DB_RETRY_TIMEOUT,
        min=0,
        help=(
            "Seconds a database read or write goes on being retried once "
            "the database became unreachable (a restart, a failover), "
            "with pauses of db_retry_interval seconds, doubled after each "
            "try when db_inc_retry_interval is set, up to "
            "db_max_retry_interval. An outage shorter than this is ridden "
            "out: the operations in progress go on once it is back. After "
            "a longer one the resources whose writes gave up fail, and so "
            "does their stack. 0 does not retry."
        ),
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """keel-heat's own ``[database]`` options."""
    return [("database", OPTS)]
