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
        (``ROLLBACK`` too, after a failure)
    :raises Exception: to refuse the operation; the stack then fails with
        the exception's text as status reason

    The stack still shows the state it had: for a new stack
    ``CREATE_IN_PROGRESS``; for an update during a create, the create's
    action and ``IN_PROGRESS`` (the update supersedes it).
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


@hookspec
def keel_heat_engine_start(conf: cfg.ConfigOpts, engine_id: str) -> None:
    """Called in each engine process once its engine service serves.

    The place for a plugin to set up what lives as long as the process
    (a metrics endpoint, a connection). It runs after the process forked
    from the master, so threads and sockets made here are its own.

    :param conf: the service configuration
    :param engine_id: the id of this engine process
    """


@hookspec
def keel_heat_resource_lock_conflict(
    context: Any, stack_id: str, resource_name: str, holder: str
) -> None:
    """Called when a resource's lock is held by another live engine.

    The node yields to the traversal holding the lock (which re-triggers
    it when done). A lock of an engine that died is taken over instead,
    which is no conflict.

    :param context: the request context of the traversal
    :param stack_id: the stack of the resource
    :param resource_name: the logical resource name
    :param holder: the engine id holding the lock
    """


@hookspec
def keel_heat_traversal_resume(
    context: Any, stack_id: str, traversal: str, reason: str
) -> None:
    """Called when a resume pass re-drives a node of a stalled traversal.

    :param context: the context of the resume pass (may be ``None``)
    :param stack_id: the stack whose traversal is resumed
    :param traversal: the traversal id
    :param reason: ``engine_down`` when the node's lock belonged to an
        engine that no longer answers, ``stalled`` when its message was
        lost with no lock taken
    """


@hookspec
def keel_heat_rpc_call_handled(
    method: str, seconds: float, failed: bool
) -> None:
    """Called after the engine answered one engine API call.

    :param method: the RPC method name (``create_stack``, ``show_stack``…)
    :param seconds: how long the engine took to answer
    :param failed: whether the call raised (an expected error such as a
        stack not found included)
    """
