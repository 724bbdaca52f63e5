"""keel-heat core: engine, plugin API, template language, RPC and DB."""

from oslo_service import backend as _service_backend

__version__ = "0.1.0"

# No eventlet anywhere (house style): oslo.service, which oslo.messaging
# imports, would otherwise pick its eventlet backend. The hook only sets
# the default; a program that chose a backend already keeps its choice.
_service_backend.register_backend_default_hook(
    lambda: _service_backend.BackendType.THREADING
)
