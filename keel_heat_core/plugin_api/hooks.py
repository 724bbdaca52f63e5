"""The marker of pluggy hook implementations.

A pack's ``keel_heat.hooks`` entry point names a module whose functions
carry ``@hookimpl``; the hook specifications (what may be implemented)
are the core's (``keel_heat_core.plugins.spec``).
"""

from __future__ import annotations

import pluggy

#: pluggy's project name of every keel-heat hook.
PROJECT = "keel_heat"

#: Marker for hook implementations.
hookimpl = pluggy.HookimplMarker(PROJECT)
