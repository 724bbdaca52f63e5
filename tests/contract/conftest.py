"""Import eventlet once with its deprecation warning silenced.

futurist (pulled in by oslo.messaging through oslo.service) imports
eventlet whenever it is installed, and eventlet warns on import; the
suite turns warnings into errors. keel-heat itself never uses eventlet.
"""

import contextlib
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with contextlib.suppress(ImportError):
        import eventlet  # noqa: F401
