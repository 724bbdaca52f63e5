"""keel-heat-manage under the command names of Heat's ``heat-manage``.

Scripts written for heat-manage run unchanged: ``db_sync [VERSION]``,
``db_version``, ``reset_stack_status STACK`` (which, as heat-manage does,
asks for a ``y`` on standard input first), ``resource_data_list
RESOURCE_ID`` and ``migrate_properties_data`` (nothing left to migrate)
are here; ``purge_deleted``, ``update_params``, ``migrate_convergence_1``
and ``service list|clean`` are the other spelling of commands of
:mod:`~keel_heat_core.cmd.manage_db` and
:mod:`~keel_heat_core.cmd.manage_crypt`, with heat-manage's arguments.
"""

from __future__ import annotations

import argparse
from typing import Any

from oslo_config import cfg

from keel_heat_core.cmd import manage_db
from keel_heat_core.db import admin, exceptions, resource_data
from keel_heat_core.db.database import Database


def _cmd_db_sync(conf: cfg.ConfigOpts) -> int:
    manage_db.db_sync(Database.from_conf(conf), conf.command.version)
    return 0


def _cmd_db_version(conf: cfg.ConfigOpts) -> int:
    print(manage_db.db_version(Database.from_conf(conf)))
    return 0


def _cmd_reset_stack_status(conf: cfg.ConfigOpts) -> int:
    print(
        "Warning: this command is potentially destructive and only "
        "intended to recover from specific crashes."
    )
    print("It is advised to shutdown all Heat engines beforehand.")
    print("Continue ? [y/N]")
    if not input().lower().startswith("y"):
        return 0
    admin.reset_stack_status(Database.from_conf(conf), conf.command.stack_id)
    return 0


def _cmd_resource_data_list(conf: cfg.ConfigOpts) -> int:
    resource_id = conf.command.resource_id
    try:
        number = int(resource_id)
    except ValueError:
        raise exceptions.NotFound("no resource data found") from None
    data = resource_data.get_all(Database.from_conf(conf), number)
    if not data:
        raise exceptions.NotFound("no resource data found")
    for key, value in data.items():
        print(f"{key:<16} {value!s:<64}")
    return 0


def _cmd_migrate_properties_data(conf: cfg.ConfigOpts) -> int:
    print(
        "This command has been deprecated and is now a no-op. "
        "It will be removed in a future release."
    )
    return 0


def add_parser(subparsers: Any) -> None:
    """Add heat-manage's command names to keel-heat-manage."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "db_version", help="print the schema revision (heat-manage name)"
    )
    parser.set_defaults(func=_cmd_db_version)

    parser = subparsers.add_parser(
        "db_sync", help="upgrade the schema (heat-manage name)"
    )
    parser.add_argument("version", nargs="?")
    parser.set_defaults(func=_cmd_db_sync)

    parser = subparsers.add_parser(
        "reset_stack_status",
        help="mark a stuck stack tree FAILED, once confirmed on stdin",
    )
    parser.add_argument("stack_id", help="Stack id")
    parser.set_defaults(func=_cmd_reset_stack_status)

    parser = subparsers.add_parser(
        "resource_data_list", help="print the data of a resource"
    )
    parser.add_argument("resource_id", help="Stack resource id")
    parser.set_defaults(func=_cmd_resource_data_list)

    parser = subparsers.add_parser(
        "migrate_properties_data", help="nothing to do (kept for scripts)"
    )
    parser.set_defaults(func=_cmd_migrate_properties_data)
