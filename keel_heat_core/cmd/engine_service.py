"""How the console scripts find the engine service.

The engine team provides ``keel_heat_core.service.engine.EngineService``;
the scripts import it only when they start one, so that the commands
(and their ``--help``) work without it.
"""

import importlib
from typing import Protocol

from oslo_config import cfg

ENGINE_MODULE = "keel_heat_core.service.engine"
ENGINE_CLASS = "EngineService"


class EngineService(Protocol):
    """What the scripts need of an engine service (one per process)."""

    def start(self) -> None:
        """Start the RPC servers and background work; return promptly."""

    def stop(self) -> None:
        """Stop taking work and finish gracefully."""

    def wait(self) -> None:
        """Block until :meth:`stop` has finished."""


class EngineServiceFactory(Protocol):
    """Builds the engine service of one process."""

    def __call__(self, conf: cfg.ConfigOpts, engine_id: str) -> EngineService:
        """Return a service; ``engine_id`` is a fresh uuid per process."""


class EngineUnavailable(RuntimeError):
    """The engine service cannot be imported."""


def load_engine_factory() -> EngineServiceFactory:
    """Import and return the engine service class.

    :raises EngineUnavailable: with a message saying what is missing
    """
    try:
        module = importlib.import_module(ENGINE_MODULE)
        factory: EngineServiceFactory = getattr(module, ENGINE_CLASS)
    except (ImportError, AttributeError) as exc:
        raise EngineUnavailable(
            f"The engine service {ENGINE_MODULE}.{ENGINE_CLASS} is not "
            f"available ({exc}); this installation of keel-heat-core "
            f"cannot run an engine."
        ) from exc
    return factory
