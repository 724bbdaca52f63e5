"""keel-heat-manage commands on the database.

``db sync [VERSION]``, ``db version``, ``db check``, ``purge-deleted AGE``,
``reset-stack-status STACK``, ``service list``, ``service clean`` and
``migrate-convergence STACK``. Each command's work is a plain function
taking a :class:`~keel_heat_core.db.database.Database` (tested directly);
:func:`add_parser` wires them into keel-heat-manage.

``migrate-convergence-1 STACK`` (also spelt as Heat's ``heat-manage
migrate_convergence_1``) asks a running engine over RPC, which parses the
templates as its traversals do; ``migrate-convergence`` does the same
offline with a template scan.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.db import admin, models, service
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner


def db_sync(db: Database, version: str | None = None) -> str | None:
    """Upgrade the schema; returns the revision reached."""
    runner.upgrade(db.engine, version or "head")
    return runner.current(db.engine)


def db_version(db: Database) -> str | None:
    """The schema revision of the database."""
    return runner.current(db.engine)


def db_check(db: Database) -> list[str]:
    """Problems with the schema: an empty list when it is up to date."""
    problems = []
    current = runner.current(db.engine)
    if current not in runner.heads():
        problems.append(
            f"revision {current} is not the head {runner.heads()[0]}: "
            "run db sync"
        )
    else:
        problems.extend(str(d) for d in runner.differences(db.engine))
    return problems


def service_list(db: Database, out: TextIO = sys.stdout) -> None:
    """Print the engine services with their status (up or down)."""
    now = models.utcnow()
    fields = (
        "Hostname",
        "Binary",
        "Engine_Id",
        "Host",
        "Topic",
        "Status",
        "Updated At",
    )
    print(" | ".join(fields), file=out)
    for row in service.list_services(db):
        status = "down" if service.is_stale(row, now) else "up"
        print(
            " | ".join(
                str(v)
                for v in (
                    row.hostname,
                    row.binary,
                    row.engine_id,
                    row.host,
                    row.topic,
                    status,
                    row.updated_at,
                )
            ),
            file=out,
        )


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _references(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("get_resource", "Ref"):
                found.update(_names(value))
            elif key in ("get_attr", "Fn::GetAtt") and value:
                target = value[0] if isinstance(value, list) else value
                found.update(_names(str(target).split(".")[0]))
            _references(value, found)
    elif isinstance(node, list):
        for item in node:
            _references(item, found)


def template_dependencies(template: Any) -> Mapping[str, Iterable[str]]:
    """``{resource: names it depends on}`` of a HOT or CFN template.

    Explicit ``depends_on``/``DependsOn`` plus ``get_resource``, ``Ref``,
    ``get_attr`` and ``Fn::GetAtt`` references to other resources.
    """
    if not isinstance(template, dict):
        return {}
    resources = template.get("resources") or template.get("Resources") or {}
    deps: dict[str, set[str]] = {}
    for name, definition in resources.items():
        found: set[str] = set()
        if isinstance(definition, dict):
            found.update(_names(definition.get("depends_on")))
            found.update(_names(definition.get("DependsOn")))
            _references(definition, found)
        deps[name] = {n for n in found if n in resources and n != name}
    return deps


def _database(conf: cfg.ConfigOpts) -> Database:
    return Database.from_conf(conf)


def _cmd_sync(conf: cfg.ConfigOpts) -> int:
    print(db_sync(_database(conf), conf.command.version))
    return 0


def _cmd_version(conf: cfg.ConfigOpts) -> int:
    print(db_version(_database(conf)))
    return 0


def _cmd_check(conf: cfg.ConfigOpts) -> int:
    problems = db_check(_database(conf))
    for line in problems:
        print(line)
    return 1 if problems else 0


def _cmd_purge(conf: cfg.ConfigOpts) -> int:
    args = conf.command
    count = admin.purge_deleted(
        _database(conf),
        args.age,
        args.granularity,
        args.project_id,
        args.batch_size,
    )
    print(f"Purged {count} stacks")
    return 0


def _cmd_reset(conf: cfg.ConfigOpts) -> int:
    admin.reset_stack_status(_database(conf), conf.command.stack_id)
    return 0


def _cmd_service_list(conf: cfg.ConfigOpts) -> int:
    service_list(_database(conf))
    return 0


def _cmd_service_clean(conf: cfg.ConfigOpts) -> int:
    for service_id in service.clean_stale(_database(conf)):
        print(f"Dead engine {service_id} is removed")
    return 0


def scanned_dependencies(
    stack_id: str, template: Any
) -> Mapping[str, Iterable[str]]:
    """:func:`template_dependencies` as ``admin.migrate_convergence``
    takes it (the offline command has no engine to parse templates)."""
    return template_dependencies(template)


def _cmd_migrate(conf: cfg.ConfigOpts) -> int:
    done = admin.migrate_convergence(
        _database(conf), conf.command.stack_id, scanned_dependencies
    )
    if not done:
        print(
            f"Convergence was already enabled for stack "
            f"{conf.command.stack_id}"
        )
    return 0


def _cmd_migrate_1(conf: cfg.ConfigOpts) -> int:
    import oslo_messaging

    from keel_heat_core.context import admin_context
    from keel_heat_core.rpc.client import ALLOWED_EXMODS, EngineClient

    stack_id = conf.command.stack_id
    # a transport of this command only, closed when it is done
    bus = oslo_messaging.get_rpc_transport(
        conf, allowed_remote_exmods=ALLOWED_EXMODS
    )
    try:
        client = EngineClient(conf, transport=bus)
        client.migrate_convergence_1(admin_context(), stack_id)
    except exception.EntityNotFound:
        raise RuntimeError(
            f"Stack with id {stack_id} can not be found."
        ) from None
    except exception.HeatException as exc:
        # the engine's message, without the remote traceback
        raise RuntimeError(exc.message) from None
    finally:
        bus.cleanup()
    return 0


def _group(subparsers: Any, name: str, help_text: str) -> Any:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text
    )
    return parser.add_subparsers(dest="action", metavar="<command>")


def add_parser(subparsers: Any) -> None:
    """Add the database commands to keel-heat-manage."""
    db_cmds = _group(subparsers, "db", "database schema")
    sync = db_cmds.add_parser("sync", help="upgrade the schema")
    sync.add_argument("version", nargs="?", default=None)
    sync.set_defaults(func=_cmd_sync)
    db_cmds.add_parser(
        "version", help="print the schema revision"
    ).set_defaults(func=_cmd_version)
    db_cmds.add_parser(
        "check", help="compare the schema with the models"
    ).set_defaults(func=_cmd_check)

    purge = subparsers.add_parser(
        "purge-deleted",
        aliases=["purge_deleted"],
        help="purge stacks deleted more than AGE ago",
    )
    purge.add_argument("age", nargs="?", default="90")
    purge.add_argument(
        "-g",
        "--granularity",
        default="days",
        choices=["days", "hours", "minutes", "seconds"],
    )
    purge.add_argument("-p", "--project-id", default=None)
    purge.add_argument("-b", "--batch-size", "--batch_size", default="20")
    purge.set_defaults(func=_cmd_purge)

    reset = subparsers.add_parser(
        "reset-stack-status", help="mark a stuck stack tree FAILED"
    )
    reset.add_argument("stack_id")
    reset.set_defaults(func=_cmd_reset)

    svc = _group(subparsers, "service", "engine services")
    svc.add_parser("list", help="list engine services").set_defaults(
        func=_cmd_service_list
    )
    svc.add_parser("clean", help="remove dead engine services").set_defaults(
        func=_cmd_service_clean
    )

    migrate = subparsers.add_parser(
        "migrate-convergence", help="make a legacy stack a convergence one"
    )
    migrate.add_argument("stack_id")
    migrate.set_defaults(func=_cmd_migrate)

    migrate_1 = subparsers.add_parser(
        "migrate-convergence-1",
        aliases=["migrate_convergence_1"],
        help="make a legacy stack a convergence one, through an engine",
    )
    migrate_1.add_argument("stack_id")
    migrate_1.set_defaults(func=_cmd_migrate_1)
