"""No eventlet: pick oslo.service's threading backend before oslo.messaging
loads it, and import eventlet (which futurist imports whenever it is
installed) once with its deprecation warning silenced. Foundations do the
same in ``keel_heat_core/__init__.py`` and the pytest configuration; doing
it twice is harmless."""

import contextlib
import warnings

from oslo_service import backend as _service_backend

_service_backend.register_backend_default_hook(
    lambda: _service_backend.BackendType.THREADING
)
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore")
    import eventlet  # noqa: F401
