"""What the console scripts need of the engine service.

:func:`load_engine_factory` gives the real one
(:class:`keel_heat_core.service.engine.EngineService`); the scripts take
any :class:`EngineServiceFactory`, so their tests start fake engines.
"""

from typing import Protocol

from oslo_config import cfg

from keel_heat_core.service import engine as engine_mod


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


def load_engine_factory() -> EngineServiceFactory:
    """Return the engine service class."""
    return engine_mod.EngineService
