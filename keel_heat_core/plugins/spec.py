"""pluggy hook specifications: what plugins may react to.

Names say what the thing is; a plugin implements any of these functions in
a module named by a ``keel_heat.hooks`` entry point, decorated with
:data:`hookimpl` (defined by ``keel_heat_core.plugin_api``, the SDK). The core
implements the same hooks in :mod:`keel_heat_core.plugins.core_hooks`.

The ``stack`` and ``resource`` arguments are the engine's runtime objects
(``keel_heat_core.model``); plugins should treat them as read-only.
"""

from collections.abc import Callable, Mapping
from typing import Any

import pluggy
from oslo_config import cfg

from keel_heat_core.plugin_api.hooks import PROJECT as PROJECT
from keel_heat_core.plugin_api.hooks import hookimpl as hookimpl

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def keel_heat_stack_pre_operation(
    context: Any, stack: Any, action: str
) -> None:
    """Called before a stack operation starts.

    :param context: the request context of the operation
    :param stack: the stack about to be acted on
    :param action: ``CREATE``, ``UPDATE``, ``DELETE``, ``SUSPEND``…
    :raises Exception: to refuse the operation; the stack then fails with
        the exception's text as status reason
    """


@hookspec
def keel_heat_stack_post_operation(
    context: Any, stack: Any, action: str, status: str
) -> None:
    """Called after a stack operation reached a final state.

    :param context: the request context of the operation
    :param stack: the stack acted on
    :param action: the action that ended
    :param status: ``COMPLETE`` or ``FAILED``
    """


@hookspec(firstresult=True)
def keel_heat_resource_action(
    context: Any, resource: Any, action: str, run: Callable[[], Any]
) -> Any:
    """Perform one resource action (create, update, delete, check…).

    The core's implementation calls ``run()`` and returns its result.
    Plugins wrap it: declare ``@hookimpl(wrapper=True)`` and ``yield`` to
    let the action run; the ``yield`` returns the action's result or
    raises its exception.

    :param context: the request context of the traversal
    :param resource: the resource acted on
    :param action: ``CREATE``, ``UPDATE``, ``DELETE``…
    :param run: performs the action
    :returns: what ``run()`` returned
    """


@hookspec
def keel_heat_validate_template(
    context: Any, template: Any
) -> list[str] | None:
    """Validate a template beyond what the template language checks.

    :param context: the request context
    :param template: the parsed template
    :returns: error messages, or ``None`` when there is nothing to say
    """


@hookspec
def keel_heat_emit_event(context: Any, event: Mapping[str, Any]) -> None:
    """Called for each stack or resource event as it is stored.

    :param context: the request context
    :param event: the event, with the keys of an API event
    """


@hookspec
def keel_heat_global_environment(
    conf: cfg.ConfigOpts,
) -> list[Mapping[str, Any]] | None:
    """Contribute environments to the global environment.

    The results are merged in order: the core's files from
    ``environment_dir`` first, then the plugins' contributions.

    :param conf: the service configuration
    :returns: environment mappings, as parsed from environment files
    """
