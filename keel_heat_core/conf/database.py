"""The ``[database]`` group: oslo.db's options under oslo.db's names.

The persistence layer may change the defaults here; the options
themselves, and their sample, come from oslo.db.
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
