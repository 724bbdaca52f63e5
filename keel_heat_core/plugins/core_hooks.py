"""The core's own implementations of the hooks in :mod:`.spec`."""

import pathlib
from collections.abc import Callable, Mapping
from typing import Any

import yaml
from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core.plugins.spec import hookimpl

LOG = logging.getLogger(__name__)

ENVIRONMENT_SUFFIXES = (".yaml", ".yml", ".json")


@hookimpl
def keel_heat_resource_action(
    context: Any, resource: Any, action: str, run: Callable[[], Any]
) -> Any:
    """Run the action itself; plugin wrappers run around this."""
    return run()


@hookimpl
def keel_heat_emit_event(context: Any, event: Mapping[str, Any]) -> None:
    """Log each event at debug level."""
    LOG.debug(
        "Event %s %s_%s: %s",
        event.get("resource_name"),
        event.get("resource_action"),
        event.get("resource_status"),
        event.get("resource_status_reason"),
    )


@hookimpl(tryfirst=True)
def keel_heat_global_environment(
    conf: cfg.ConfigOpts,
) -> list[Mapping[str, Any]]:
    """Read the environment files of ``environment_dir``, sorted by name.

    A file that is not a mapping is skipped with an error logged, as a
    broken file should not keep the engine from starting.
    """
    directory = pathlib.Path(conf.environment_dir)
    if not directory.is_dir():
        return []
    found: list[Mapping[str, Any]] = []
    for path in sorted(directory.iterdir()):
        if path.suffix not in ENVIRONMENT_SUFFIXES or not path.is_file():
            continue
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            LOG.error("Cannot read environment file %s: %s", path, exc)
            continue
        if not isinstance(data, dict):
            LOG.error("Environment file %s is not a mapping", path)
            continue
        found.append(data)
    return found
