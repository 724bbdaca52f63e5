"""Merging several environment files into a stack's environment.

The client sends ``environment_files`` (ordered names) and their contents
in ``files``; :func:`merge_environments` loads them in order on top of the
request's parameters, as Heat's ``merge_environments`` does:

* ``resource_registry``, ``event_sinks``...: a shallow merge, later files'
  top-level keys win;
* ``parameters`` and ``parameter_defaults``: the first non-empty section is
  taken as it is; later ones merge only declared, non-null keys, each with
  the strategy the first file naming it chose (``overwrite``, ``merge``,
  ``deep_merge``).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr
from keel_heat_core.template import environment as env_fmt

LOG = logging.getLogger(__name__)

ALLOWED_PARAM_MERGE_STRATEGIES = (OVERWRITE, MERGE, DEEP_MERGE) = (
    "overwrite",
    "merge",
    "deep_merge",
)


def get_param_merge_strategy(
    merge_strategies: Mapping[str, Any] | None,
    param_key: str,
    available_strategies: Mapping[str, str] | None = None,
) -> str:
    """The strategy a file gives a parameter (its own entry, else the one
    already fixed, else its ``default``, else ``overwrite``)."""
    available = available_strategies or {}
    if merge_strategies is None:
        return OVERWRITE
    env_default = merge_strategies.get("default", OVERWRITE)
    strategy = merge_strategies.get(
        param_key, available.get(param_key, env_default)
    )
    if strategy in ALLOWED_PARAM_MERGE_STRATEGIES:
        return str(strategy)
    return str(env_default)


def merge_list(old: Any, new: Any) -> Any:
    """Extend a list, or join comma-delimited text."""
    if not old:
        return new
    if isinstance(new, list):
        if isinstance(old, list):
            return old + new
        return [*str(old).split(","), *new]
    if isinstance(old, list):
        return ",".join([*(str(x) for x in old), str(new)])
    return ",".join([old, new])


def merge_map(old: Any, new: Mapping[str, Any], deep: bool = False) -> Any:
    """Merge maps: shallow, or recursively (lists and strings joined)."""
    if not old:
        return new
    for key, value in new.items():
        if value is None:
            continue
        if not deep:
            old[key] = value
        elif isinstance(value, Mapping):
            old_value = old.get(key)
            old[key] = (
                merge_map(old_value, value, deep) if old_value else value
            )
        elif isinstance(value, Sequence) and not isinstance(value, str):
            old_value = old.get(key)
            old[key] = merge_list(old_value, value) if old_value else value
        elif isinstance(value, str):
            old[key] = "".join([str(old.get(key, "")), value])
        else:
            old[key] = value
    return old


def parse_param(value: Any, schema: Any) -> Any:
    """Check a value can be merged: json parsed, others must be text or a
    list.

    :raises ValueError: ``Invalid parameter in environment <why>.``
    """
    try:
        if schema.kind == constr.MAP:
            text = value if isinstance(value, str) else json.dumps(value)
            if text:
                return json.loads(text)
        elif not isinstance(value, Sequence):
            raise ValueError()
    except (ValueError, TypeError) as err:
        raise ValueError(f"Invalid parameter in environment {err}.") from err
    return value


def _merge_one(
    old: MutableMapping[str, Any],
    key: str,
    value: Any,
    schema: Any,
    deep: bool,
) -> None:
    value = parse_param(value, schema)
    if schema.kind == constr.MAP:
        old[key] = merge_map(old.get(key, {}), value, deep)
    elif schema.kind == constr.LIST:
        old[key] = merge_list(old.get(key), value)
    elif schema.kind in (constr.STRING, constr.NUMBER):
        # Numbers given as text are concatenated, as in Heat.
        old[key] = "".join([str(old.get(key, "")), value])
    else:
        raise exception.InvalidMergeStrategyForParam(strategy=MERGE, param=key)


def merge_parameters(
    old: dict[str, Any],
    new: Mapping[str, Any],
    param_schemata: Mapping[str, Any],
    strategies_in_file: Mapping[str, Any] | None,
    available_strategies: dict[str, str],
    env_file: str,
) -> dict[str, Any]:
    """Merge one file's parameters section into what is built so far.

    :raises ConflictingMergeStrategyForParam: when a file names another
        strategy for a parameter whose strategy is already fixed.
    """
    for key, value in new.items():
        if key in param_schemata and value is not None:
            strategy = get_param_merge_strategy(
                strategies_in_file, key, available_strategies
            )
            if key not in available_strategies:
                available_strategies[key] = strategy
            elif strategy != available_strategies[key]:
                raise exception.ConflictingMergeStrategyForParam(
                    strategy=strategy, param=key, env_file=env_file
                )
    if not old:
        return dict(new)
    for key, value in new.items():
        if key not in param_schemata or value is None:
            continue
        strategy = available_strategies[key]
        if strategy == OVERWRITE:
            old[key] = value
        else:
            _merge_one(
                old, key, value, param_schemata[key], strategy == DEEP_MERGE
            )
    return old


def merge_environments(
    environment_files: Sequence[str] | None,
    files: Mapping[str, Any],
    params: dict[str, Any],
    param_schemata: Mapping[str, Any],
) -> None:
    """Merge the named environment files (from ``files``) into ``params``.

    :param params: the environment built so far (sections), updated in
        place; missing sections are added.
    :param param_schemata: the declared parameters (template and any
        nested template in ``files``), by name, each with a ``kind``.
    :raises ValueError: for a file that is not a valid environment.
    :raises StackValidationFailed: for a name absent from ``files``.
    """
    if not environment_files:
        return
    env_fmt.default_for_missing(params)
    available: dict[str, str] = {}
    for filename in environment_files:
        if filename not in files:
            # Heat fails with a bare KeyError here.
            raise exception.StackValidationFailed(
                message=f'Environment file "{filename}" is not in files'
            )
        parsed = env_fmt.parse(files[filename])
        strategies = parsed.pop(env_fmt.PARAMETER_MERGE_STRATEGIES, {})
        for section, value in parsed.items():
            if not value:
                continue
            if section in (env_fmt.PARAMETERS, env_fmt.PARAMETER_DEFAULTS):
                params[section] = merge_parameters(
                    params.get(section) or {},
                    value,
                    param_schemata,
                    strategies,
                    available,
                    filename,
                )
            elif isinstance(value, Mapping):
                params[section] = merge_map(params.get(section), value)
            else:
                params[section] = value


def all_param_schemata(
    schemata: Mapping[str, Any], files: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The parameters declared by a template and by every file in
    ``files`` that parses as a template (nested templates), as Heat's
    ``all_param_schemata``: the nested declarations are applied last."""
    from keel_heat_core.template import provider

    result = dict(schemata)
    for name, data in (files or {}).items():
        try:
            nested = provider.ProviderTemplate.from_text(name, data)
        except (ValueError, exception.HeatException):
            continue
        result.update(nested.param_schemata)
    return result


def patch_environment(
    stored: Mapping[str, Any],
    new: Mapping[str, Any],
    clear_parameters: Sequence[str] | None,
    declared: Mapping[str, Any],
    global_environment: Any = None,
) -> Any:
    """The environment of a PATCH update (``existing``), as Heat builds it.

    :param stored: the stack's stored environment (``env_as_dict()``).
    :param new: the environment sent with the update.
    :param clear_parameters: names whose stored values are dropped.
    :param declared: the new template's parameter schemata; other names
        are dropped from ``parameters`` at the end.
    :returns: an :class:`~keel_heat_core.template.environment.Environment`.
    """
    base = {k: copy.deepcopy(v) for k, v in stored.items()}
    clear = set(clear_parameters or ())
    base[env_fmt.PARAMETERS] = {
        k: v
        for k, v in (stored.get(env_fmt.PARAMETERS) or {}).items()
        if k not in clear
    }
    env = env_fmt.Environment(base, global_environment=global_environment)
    env.load(new)
    for key in list(env.params):
        if key not in declared:
            env.params.pop(key)
    return env
