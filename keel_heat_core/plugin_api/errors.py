"""Matching errors that may have crossed the RPC bus.

An error raised by the engine behind ``self.rpc_client()`` may come back
as the original class or as a remote error that only carries the class
name (``exc_type``), so resources match engine errors by name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


def error_name(exc: BaseException) -> str:
    """The class name of ``exc``, or of the remote error it stands for."""
    remote = getattr(exc, "exc_type", None)
    return str(remote) if remote else type(exc).__name__


def is_error_named(exc: BaseException, *names: str) -> bool:
    """Whether ``exc`` (or a base class of it) is one of ``names``."""
    if error_name(exc) in names:
        return True
    return any(cls.__name__ in names for cls in type(exc).__mro__)


@contextlib.contextmanager
def ignore_error_by_name(*names: str) -> Iterator[None]:
    """Swallow errors named ``names`` (``with ignore_error_by_name(...)``)."""
    try:
        yield
    except Exception as exc:
        if not is_error_named(exc, *names):
            raise
