"""The ``[database]`` group: oslo.db's options under oslo.db's names.

The persistence layer may change the defaults here; the options
themselves, and their sample, come from oslo.db.
"""

from oslo_config import cfg
from oslo_db import options as db_options


def register(conf: cfg.ConfigOpts) -> None:
    """Register oslo.db's ``[database]`` options.

    :param conf: the configuration to register into
    """
    db_options.set_defaults(conf)
