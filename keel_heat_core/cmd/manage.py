"""keel-heat-manage: administrative commands, one module per command group.

Each module listed in :data:`COMMAND_MODULES` exposes
``add_parser(subparsers)``: it adds its command (and sub-commands) to the
argparse sub-parsers it is given and sets ``func`` on each leaf with
``parser.set_defaults(func=...)``. ``func(conf)`` receives the parsed
configuration; the command's own arguments are ``conf.command.<dest>``.
It returns the exit status (``None`` counts as 0).

To add a command group, write such a module and add its name here.
"""

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core.cmd import prepare_conf
from keel_heat_core.cmd.startup import describe

LOG = logging.getLogger(__name__)

PROG = "keel-heat-manage"

#: Modules that add command groups to keel-heat-manage.
COMMAND_MODULES = [
    "keel_heat_core.cmd.manage_packs",
    "keel_heat_core.cmd.manage_db",
    "keel_heat_core.cmd.manage_crypt",
    "keel_heat_core.cmd.manage_heat",
]

CommandFunc = Callable[[cfg.ConfigOpts], int | None]


def add_command_parsers(subparsers: Any) -> None:
    """Let every command module add its parsers (oslo.config handler)."""
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)


def command_opt() -> cfg.SubCommandOpt:
    """Return the ``command`` option that carries the sub-commands."""
    return cfg.SubCommandOpt(
        "command",
        title="Commands",
        help="Available commands",
        handler=add_command_parsers,
    )


def main(
    argv: Sequence[str] | None = None, conf: cfg.ConfigOpts | None = None
) -> int:
    """Run keel-heat-manage.

    :param argv: arguments without the program name
    :param conf: configuration to use; the global one by default
    :returns: the exit status
    """
    conf = cfg.CONF if conf is None else conf
    if "command" not in conf:
        conf.register_cli_opt(command_opt())
    conf = prepare_conf(argv, PROG, conf, log_to_stderr=True)
    func: CommandFunc | None = getattr(conf.command, "func", None)
    if func is None:
        # A command group given without its sub-command.
        print(
            f"{PROG}: {conf.command.name}: a sub-command is required",
            file=sys.stderr,
        )
        return 2
    try:
        return int(func(conf) or 0)
    except Exception as exc:
        # the database or the configuration: one line, no traceback
        line = describe(exc, conf)
        if line is None:
            LOG.exception("%s %s failed", PROG, conf.command.name)
        print(f"{PROG}: {line or exc}", file=sys.stderr)
        return 1


def add_group(subparsers: Any, name: str, help: str) -> Any:  # noqa: A002
    """Add a command group and return the sub-parsers of its commands.

    :param subparsers: what ``add_parser(subparsers)`` received
    :param name: the group, e.g. ``packs``
    :param help: one line about it
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help)
    return parser.add_subparsers(dest="action", metavar="<command>")
