"""keel-heat-status: ``upgrade check`` before starting a new release.

The command is oslo.upgradecheck's, as for Heat and every other
OpenStack service: the same table (or ``--json``), and the exit status
operators' tooling reads: 0 all checks pass, 1 a warning needs
attention, 2 a check failed (255 a check raised).
"""

import sys
from collections.abc import Sequence

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import common_checks, upgradecheck
from oslo_upgradecheck.upgradecheck import Code, Result

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.cmd import startup
from keel_heat_core.conf import default

PROG = "keel-heat-status"


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
    """``[database] connection`` answers and its schema is keel-heat's
    head (``keel-heat-manage db sync`` has run)."""
    try:
        startup.check_database(conf, at_head=True, max_retries=0)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        line = startup.describe(exc, conf)
        return Result(
            Code.FAILURE,
            line or f"database check failed: {type(exc).__name__}",
        )
    return Result(Code.SUCCESS)


class Checks(upgradecheck.UpgradeCommands):
    """keel-heat's upgrade checks over a parsed configuration."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def _plugins(self) -> Result:
        return check_plugins(self.conf)

    def _encryption_key(self) -> Result:
        return check_encryption_key(self.conf)

    def _stack_domain(self) -> Result:
        return check_stack_domain(self.conf)

    def _database(self) -> Result:
        return check_database(self.conf)

    def _policy_json(self) -> Result:
        return common_checks.check_policy_json(self, self.conf)

    _upgrade_checks = (
        ("Plugin packs", _plugins),
        ("Encryption key", _encryption_key),
        ("Stack user domain", _stack_domain),
        ("Database", _database),
        # the one check Heat's own heat-status runs
        ("Policy File JSON to YAML Migration", _policy_json),
    )


def main(
    argv: Sequence[str] | None = None, conf: cfg.ConfigOpts | None = None
) -> int:
    """Run keel-heat-status.

    :returns: 0, 1, 2 or 255 (see the module documentation)
    """
    conf = cfg.CONF if conf is None else conf
    keel_conf.register_opts(conf)
    for group, opts in policy_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf.set_default("use_stderr", True)
    return upgradecheck.main(
        conf,
        project=keel_conf.PROJECT,
        upgrade_command=Checks(conf),
        argv=list(sys.argv[1:] if argv is None else argv),
    )
