"""keel-heat core: engine, plugin API, template language, RPC and DB."""

import warnings

# futurist imports eventlet where it is installed (a dependency of
# dependencies), and eventlet loads dnspython's DNSSEC module, whose DSA
# support makes cryptography print sixteen lines of deprecation warnings
# at every start of every command; none of it is ours to act on.
warnings.filterwarnings(
    "ignore", message="DSA is deprecated", module=r"dns\.dnssecalgs"
)

from oslo_service import backend as _service_backend  # noqa: E402

__version__ = "0.1.0"

# No eventlet anywhere (house style): oslo.service, which oslo.messaging
# imports, would otherwise pick its eventlet backend. The hook only sets
# the default; a program that chose a backend already keeps its choice.
_service_backend.register_backend_default_hook(
    lambda: _service_backend.BackendType.THREADING
)
