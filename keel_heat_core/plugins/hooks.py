"""A typed facade over pluggy, the one way the core calls the hooks.

Build one :class:`HookManager` per process at start-up (it registers the
core's implementations and the ``keel_heat.hooks`` modules of enabled
packs), call :meth:`HookManager.check_pending`, then call its methods.
:func:`keel_heat_core.plugins.load_plugins` does all that; a service's
start-up then :func:`install` s it as the process's own, and engine code
reaches it with :func:`current` (a manager of the core's hooks alone
until then).

The hooks that only report what happened (post operation, events, lock
conflicts, resumes, RPC calls) log a plugin's exception and go on: a
broken observer must not fail a traversal.
"""

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pluggy
from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core.plugins import core_hooks, errors, spec
from keel_heat_core.plugins.registry import PluginEntry, check_api_version

LOG = logging.getLogger(__name__)


class HookManager:
    """Calls the ``keel_heat_*`` hooks of the core and of plugins.

    :param entries: ``keel_heat.hooks`` entries to register, usually
        :meth:`PluginRegistry.hook_entries`
    :raises PluginLoadError: when a hook module cannot be imported
    """

    def __init__(self, entries: Iterable[PluginEntry] = ()) -> None:
        self._pm = pluggy.PluginManager(spec.PROJECT)
        self._pm.add_hookspecs(spec)
        self._pm.register(core_hooks, name="keel-heat-core")
        for entry in entries:
            self.register_entry(entry)

    def register_entry(self, entry: PluginEntry) -> None:
        """Import the module an entry names and register its hooks.

        :raises PluginApiVersionError: its distribution is made for
            another version of the plugin API
        :raises PluginLoadError: the module cannot be imported
        """
        check_api_version(entry)
        try:
            module = entry.entry_point.load()
        except Exception as exc:
            raise errors.PluginLoadError(
                f"hooks {entry.name!r} of {entry.origin} failed to load: {exc}"
            ) from exc
        self.register(module, f"{entry.distribution}:{entry.name}")

    def register(self, plugin: object, name: str) -> None:
        """Register an object (module or instance) with hook functions."""
        self._pm.register(plugin, name=name)
        LOG.debug("Registered hooks of %s", name)

    def check_pending(self) -> None:
        """Fail on a hook function that matches no specification.

        :raises PluginError: naming the functions, so a typo in a hook name
            stops start-up instead of being silently ignored
        """
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise errors.PluginError(str(exc)) from exc

    @property
    def plugin_names(self) -> list[str]:
        """Names of the registered hook providers."""
        return [name for name, _ in self._pm.list_name_plugin() if name]

    def stack_pre_operation(
        self, context: Any, stack: Any, action: str
    ) -> None:
        """Tell plugins a stack operation is about to start."""
        self._pm.hook.keel_heat_stack_pre_operation(
            context=context, stack=stack, action=action
        )

    def stack_post_operation(
        self, context: Any, stack: Any, action: str, status: str
    ) -> None:
        """Tell plugins a stack operation ended."""
        self._report(
            self._pm.hook.keel_heat_stack_post_operation,
            context=context,
            stack=stack,
            action=action,
            status=status,
        )

    def resource_action(
        self,
        context: Any,
        resource: Any,
        action: str,
        run: Callable[[], Any],
    ) -> Any:
        """Run one resource action inside the plugins' wrappers.

        :returns: what ``run()`` returned
        :raises Exception: what ``run()`` or a wrapper raised
        """
        return self._pm.hook.keel_heat_resource_action(
            context=context, resource=resource, action=action, run=run
        )

    def validate_template(self, context: Any, template: Any) -> list[str]:
        """Collect the plugins' extra validation errors for a template."""
        results = self._pm.hook.keel_heat_validate_template(
            context=context, template=template
        )
        return [msg for result in results for msg in result or ()]

    def emit_event(self, context: Any, event: Mapping[str, Any]) -> None:
        """Hand an event to the core and the plugins."""
        self._report(
            self._pm.hook.keel_heat_emit_event, context=context, event=event
        )

    def global_environment(
        self, conf: cfg.ConfigOpts
    ) -> list[Mapping[str, Any]]:
        """Return the global environments, the core's files first."""
        results = self._pm.hook.keel_heat_global_environment(conf=conf)
        # The core's implementation is tryfirst: its files come first.
        return [env for result in results for env in result or ()]

    def engine_start(self, conf: cfg.ConfigOpts, engine_id: str) -> None:
        """Tell plugins this engine process serves."""
        self._pm.hook.keel_heat_engine_start(conf=conf, engine_id=engine_id)

    def resource_lock_conflict(
        self, context: Any, stack_id: str, resource_name: str, holder: str
    ) -> None:
        """Tell plugins a resource lock is held by another live engine."""
        self._report(
            self._pm.hook.keel_heat_resource_lock_conflict,
            context=context,
            stack_id=stack_id,
            resource_name=resource_name,
            holder=holder,
        )

    def traversal_resume(
        self, context: Any, stack_id: str, traversal: str, reason: str
    ) -> None:
        """Tell plugins a node of a stalled traversal is re-driven."""
        self._report(
            self._pm.hook.keel_heat_traversal_resume,
            context=context,
            stack_id=stack_id,
            traversal=traversal,
            reason=reason,
        )

    def rpc_call(self, method: str, run: Callable[[], Any]) -> Any:
        """Answer one engine API call, then report its time to plugins.

        :returns: what ``run()`` returned
        :raises Exception: what ``run()`` raised
        """
        start = time.monotonic()
        failed = True
        try:
            result = run()
            failed = False
            return result
        finally:
            self._report(
                self._pm.hook.keel_heat_rpc_call_handled,
                method=method,
                seconds=time.monotonic() - start,
                failed=failed,
            )

    @staticmethod
    def _report(hook: Any, **kwargs: Any) -> None:
        try:
            hook(**kwargs)
        except Exception:
            LOG.exception("A plugin failed in %s", hook.name)


_current: HookManager | None = None


def install(manager: HookManager) -> None:
    """Make ``manager`` the one :func:`current` returns in this process."""
    global _current
    _current = manager


def current() -> HookManager:
    """The hook manager of this process.

    The one :func:`install` set, else one with the core's
    implementations only, made on first use.
    """
    global _current
    if _current is None:
        _current = HookManager()
    return _current
