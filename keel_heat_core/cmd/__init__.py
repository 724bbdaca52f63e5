"""Console scripts: keel-heat-engine, keel-heat-all, keel-heat-manage and
keel-heat-status.

:func:`prepare_conf` is the common start of every script: register the
options, parse the command line and the configuration files, set up
oslo.log (to stdout/stderr unless configured otherwise).
"""

import warnings

# futurist imports eventlet whenever it is installed, and eventlet warns on
# import; keel-heat never runs on eventlet, so the warning is noise here.
# The filter must be in place before oslo.messaging is first imported.
warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")

import sys  # noqa: E402
from collections.abc import Sequence  # noqa: E402

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from keel_heat_core import __version__  # noqa: E402
from keel_heat_core import conf as keel_conf  # noqa: E402


def prepare_conf(
    argv: Sequence[str] | None,
    prog: str,
    conf: cfg.ConfigOpts | None = None,
    default_config_files: list[str] | None = None,
    log_to_stderr: bool = False,
) -> cfg.ConfigOpts:
    """Register options, parse arguments and files, set up logging.

    :param argv: arguments without the program name; ``sys.argv[1:]``
        when ``None``
    :param prog: program name for messages and logs
    :param conf: configuration to fill; the global ``cfg.CONF`` by default,
        which keystonemiddleware and oslo.policy read
    :param default_config_files: files read when no ``--config-file`` is
        given; oslo.config's search (``/etc/keel-heat/keel-heat.conf``…)
        when ``None``
    :param log_to_stderr: log to stderr (unless configured otherwise), for
        commands whose stdout is their output
    :returns: the parsed configuration
    """
    conf = cfg.CONF if conf is None else conf
    keel_conf.register_opts(conf)
    if log_to_stderr:
        conf.set_default("use_stderr", True)
    conf(
        list(sys.argv[1:] if argv is None else argv),
        project=keel_conf.PROJECT,
        prog=prog,
        version=__version__,
        default_config_files=default_config_files,
    )
    logging.setup(conf, keel_conf.PROJECT)
    return conf
