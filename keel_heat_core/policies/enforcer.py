"""A thin typed wrapper over oslo.policy with Heat's semantics.

API rules that are not registered fall back to ``default`` (deny);
resource-type rules that are not registered allow (``@``) and are checked
again against the ``<Prefix>::*`` wildcard.
"""

from __future__ import annotations

import os
import threading
import time
from importlib import metadata
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from keel_heat_core import policies

_DENY = policy.Rules.from_dict({"default": "!"})["default"]
_ALLOW = policy.Rules.from_dict({"default": "@"})["default"]


def all_rules() -> list[policy.RuleDefault]:
    """Return the core rules plus those of installed keel-heat packs.

    Packs contribute through the ``oslo.policy.policies`` entry-point
    group under a name starting with ``keel_heat``; a rule name given
    twice keeps its first definition.
    """
    rules = list(policies.list_rules())
    seen = {rule.name for rule in rules}
    for ep in metadata.entry_points(group="oslo.policy.policies"):
        if not ep.name.startswith("keel_heat") or ep.name == "keel_heat_core":
            continue
        for rule in ep.load()():
            if rule.name not in seen:
                seen.add(rule.name)
                rules.append(rule)
    return rules


#: seconds between two looks at the policy files (a changed file takes
#: effect within this time)
RELOAD_INTERVAL = 1.0


class _PolicyEnforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking at its files at most once a second.

    oslo.policy calls :meth:`load_rules` at every check: it stats the
    policy file and directories and walks every registered rule again,
    about a millisecond per check and two checks per API request. Here a
    check within :data:`RELOAD_INTERVAL` of the last load reuses the rules
    loaded then; a forced reload (and the first check) always loads.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded_at: float | None = None
        self._load_lock = threading.Lock()
        self.clock = time.monotonic

    def load_rules(self, force_reload: bool = False) -> None:
        now = self.clock()
        loaded = self._loaded_at
        if (
            not force_reload
            and loaded is not None
            and self.rules
            and now - loaded < RELOAD_INTERVAL
        ):
            return
        with self._load_lock:
            super().load_rules(force_reload)
            self._loaded_at = now

    def clear(self) -> None:
        super().clear()
        self._loaded_at = None

    def register_default(self, default: policy.RuleDefault) -> None:
        super().register_default(default)
        self._loaded_at = None  # the next check loads it


class PolicyDenied(Exception):
    """A rule refused the request.

    :ivar action: the rule (or resource type) that refused.
    """

    def __init__(self, action: str) -> None:
        super().__init__(action)
        self.action = action


class Enforcer:
    """Check the registered rules for a request context.

    :param conf: the configuration holding ``[oslo_policy]``.
    :param policy_file: an explicit policy file, else the configured one.
    """

    def __init__(
        self, conf: cfg.ConfigOpts, policy_file: str | None = None
    ) -> None:
        self.enforcer = _PolicyEnforcer(
            conf, default_rule=_DENY, policy_file=policy_file
        )
        self.enforcer.suppress_deprecation_warnings = True
        rules = all_rules()
        self.enforcer.register_defaults(rules)
        self._resource_enforcer = _PolicyEnforcer(
            conf, default_rule=_ALLOW, policy_file=policy_file
        )
        self._resource_enforcer.suppress_deprecation_warnings = True
        self._resource_enforcer.register_defaults(rules)

    def check(self, context: Any, rule: str, target: dict[str, Any]) -> bool:
        """Return whether ``rule`` allows ``context`` on ``target``.

        A token of the wrong scope is refused, not raised.
        """
        credentials = context.to_policy_values()
        try:
            return bool(
                self.enforcer.authorize(
                    rule, target, credentials, do_raise=False
                )
            )
        except (policy.InvalidScope, policy.PolicyNotRegistered):
            return False

    def enforce(self, context: Any, rule: str, target: dict[str, Any]) -> None:
        """Raise :class:`PolicyDenied` unless ``rule`` allows the request.

        :raises PolicyDenied: naming ``rule``.
        """
        if not self.check(context, rule, target):
            raise PolicyDenied(rule)

    def check_is_admin(self, context: Any) -> bool:
        """Return whether ``context_is_admin`` holds for ``context``."""
        return self.check(context, "context_is_admin", {})

    def _check_type(
        self, context: Any, name: str, target: dict[str, Any]
    ) -> bool:
        credentials = context.to_policy_values()
        try:
            return bool(
                self._resource_enforcer.enforce(
                    "resource_types:" + name,
                    target,
                    credentials,
                    do_raise=False,
                )
            )
        except policy.InvalidScope:
            return False

    def enforce_resource_type(
        self,
        context: Any,
        type_name: str,
        target: dict[str, Any] | None = None,
    ) -> None:
        """Check ``resource_types:<type>`` then its ``::*`` wildcard.

        :raises PolicyDenied: naming ``resource_types:<type>`` or, for a
            wildcard denial, the type itself.
        """
        target = target or {}
        wildcard = "::".join(type_name.split("::")[:-1] + ["*"])
        if not self._check_type(context, type_name, target):
            if not self._check_type(context, wildcard, target):
                # A pack's per-type rule with the wildcard's default (the
                # Keystone types): Heat only has the wildcard, whose
                # denial names the type.
                raise PolicyDenied(type_name)
            raise PolicyDenied("resource_types:" + type_name)
        if not self._check_type(context, wildcard, target):
            raise PolicyDenied(type_name)


def get_enforcer() -> policy.Enforcer:
    """The ``oslo.policy.enforcer`` entry point of ``keel_heat_core``.

    oslo.policy's command-line tools (``oslopolicy-policy-generator``,
    ``-validator``, ``-list-redundant``, ``-policy-upgrade``) ask a
    namespace for its enforcer, after parsing their own command line into
    the global configuration: its ``--config-file`` names the policy file
    to look at. A caller that parsed nothing gets keel-heat's own files
    (``/etc/keel-heat/keel-heat.conf``, or those listed in
    ``KEEL_HEAT_CONFIG_FILES``). The rules are the core's and every
    installed pack's, as the API registers them.
    """
    conf = cfg.CONF
    try:
        conf.config_file  # noqa: B018 (registered once the conf is parsed)
    except cfg.NoSuchOptError:
        listed = os.environ.get("KEEL_HEAT_CONFIG_FILES")
        files = [path for path in (listed or "").split(",") if path]
        conf([], project="keel-heat", default_config_files=files or None)
    return Enforcer(conf).enforcer
