"""keel-heat-status: ``upgrade check`` before starting a new release.

Exit status follows oslo.upgradecheck: 0 all checks pass, 1 a warning
needs attention, 2 a check failed.
"""

import argparse
import dataclasses
import enum
from collections.abc import Callable, Sequence
from typing import Any

from oslo_config import cfg

from keel_heat_core import plugins
from keel_heat_core.cmd import prepare_conf
from keel_heat_core.conf import default

PROG = "keel-heat-status"


class Code(enum.IntEnum):
    """Result of one check; the exit status is the worst one."""

    SUCCESS = 0
    WARNING = 1
    FAILURE = 2


@dataclasses.dataclass
class Result:
    """Outcome of one check."""

    code: Code
    details: str = ""


def check_plugins(conf: cfg.ConfigOpts) -> Result:
    """The plugin registry builds and every hook module loads."""
    try:
        loaded = plugins.load_plugins(conf)
    except plugins.PluginError as exc:
        return Result(Code.FAILURE, str(exc))
    failures = loaded.registry.load_all()
    if failures:
        return Result(
            Code.WARNING,
            "; ".join(f"{k}: {v}" for k, v in sorted(failures.items())),
        )
    return Result(Code.SUCCESS)


def check_encryption_key(conf: cfg.ConfigOpts) -> Result:
    """``auth_encryption_key`` has 32 characters and is not the default."""
    key = conf.auth_encryption_key
    if key == default.DEFAULT_AUTH_ENCRYPTION_KEY:
        return Result(
            Code.WARNING, "auth_encryption_key is the well-known default"
        )
    if len(key) in (16, 24):
        return Result(
            Code.WARNING, "auth_encryption_key should be 32 characters"
        )
    if len(key) != 32:
        return Result(
            Code.FAILURE, "auth_encryption_key must be 32 characters"
        )
    return Result(Code.SUCCESS)


def check_stack_domain(conf: cfg.ConfigOpts) -> Result:
    """A stack user domain comes with its admin's credentials."""
    if not (conf.stack_user_domain_id or conf.stack_user_domain_name):
        return Result(
            Code.WARNING,
            "stack_user_domain_id or stack_user_domain_name is not set",
        )
    if not (conf.stack_domain_admin and conf.stack_domain_admin_password):
        return Result(
            Code.FAILURE,
            'cannot specify "stack_user_domain_id" or '
            '"stack_user_domain_name" without "stack_domain_admin" and '
            '"stack_domain_admin_password"',
        )
    return Result(Code.SUCCESS)


def check_database(conf: cfg.ConfigOpts) -> Result:
    """``[database] connection`` is set."""
    if not conf.database.connection:
        return Result(Code.FAILURE, "[database] connection is not set")
    return Result(Code.SUCCESS)


CHECKS: list[tuple[str, Callable[[cfg.ConfigOpts], Result]]] = [
    ("Plugin packs", check_plugins),
    ("Encryption key", check_encryption_key),
    ("Stack user domain", check_stack_domain),
    ("Database connection", check_database),
]


def upgrade_check(conf: cfg.ConfigOpts) -> int:
    """Run every check, print the results, return the worst code."""
    worst = Code.SUCCESS
    print("Upgrade Check Results")
    for name, check in CHECKS:
        result = check(conf)
        worst = max(worst, result.code)
        print(f"  {name}: {result.code.name.capitalize()}")
        if result.details:
            print(f"    Details: {result.details}")
    return int(worst)


def _add_commands(subparsers: Any) -> None:
    upgrade: argparse.ArgumentParser = subparsers.add_parser("upgrade")
    actions = upgrade.add_subparsers(dest="action", metavar="<command>")
    check = actions.add_parser("check", help="check the configuration")
    check.set_defaults(func=upgrade_check)


def main(
    argv: Sequence[str] | None = None, conf: cfg.ConfigOpts | None = None
) -> int:
    """Run keel-heat-status.

    :returns: 0, 1 or 2 (see the module documentation)
    """
    conf = cfg.CONF if conf is None else conf
    if "command" not in conf:
        conf.register_cli_opt(
            cfg.SubCommandOpt("command", handler=_add_commands)
        )
    conf = prepare_conf(argv, PROG, conf, log_to_stderr=True)
    func = getattr(conf.command, "func", None)
    if func is None:
        print(f"{PROG}: usage: {PROG} upgrade check")
        return 2
    return int(func(conf))
