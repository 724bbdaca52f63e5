"""The environment of a create, update, preview or validate request.

A client sends the environment it was given inline (``environment``) and,
separately, the names of environment files whose text travels in
``files`` (``environment_files``, what ``openstack stack create -e`` sends).
Heat merges the files over the inline environment, in order, with each
parameter's merge strategy; every engine call that takes a template does
the same through :func:`merged_environment`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from keel_heat_core.template import environment_merge, parameters, versions


def merged_environment(
    template: Mapping[str, Any],
    params: Mapping[str, Any] | None,
    files: Mapping[str, Any] | None,
    environment_files: list[str] | None,
) -> dict[str, Any]:
    """Return the request's environment with its files merged on top.

    :param template: the parsed template (the merge strategies need the
        parameter schemata of it and of its template resources).
    :param params: the inline environment (``parameters``,
        ``parameter_defaults``, ``resource_registry``…).
    :param files: the request's files map, holding the environment files.
    :param environment_files: names in ``files``, merged in this order.
    :raises InvalidEnvironment: an environment file is missing or bad.
    """
    env = copy.deepcopy(dict(params or {}))
    if environment_files:
        tmpl: Any = versions.load(template, files=files)
        schemata = environment_merge.all_param_schemata(
            parameters.template_schemata(tmpl), files
        )
        environment_merge.merge_environments(
            environment_files, dict(files or {}), env, schemata
        )
    return env


def patched_environment(
    stored: Mapping[str, Any],
    template: Mapping[str, Any],
    params: Mapping[str, Any] | None,
    files: Mapping[str, Any] | None,
    environment_files: list[str] | None,
    clear_parameters: list[str] | None = None,
) -> dict[str, Any]:
    """Return the environment of a PATCH update (``existing``).

    The request's environment (its files merged) is loaded over the
    stored one section by section, so that a registry, defaults or
    parameters not sent are kept; stored parameters named in
    ``clear_parameters``, or that the new template no longer declares,
    are dropped.

    :param stored: the stack's stored environment.
    :param template: the template of the update (the stored one when
        none was sent).
    :param files: the stored files with the request's on top.
    """
    new = merged_environment(template, params, files, environment_files)
    tmpl: Any = versions.load(template, files=files)
    env = environment_merge.patch_environment(
        stored,
        new,
        clear_parameters,
        parameters.template_schemata(tmpl),
    )
    patched: dict[str, Any] = env.user_env_as_dict()
    if env.encrypted_param_names:
        patched["encrypted_param_names"] = list(env.encrypted_param_names)
    return patched
