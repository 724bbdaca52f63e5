"""keel-heat hook pack: Prometheus metrics of the engine.

Nothing here names a resource type: the pack only implements the pluggy
hooks of the core (``keel_heat.hooks`` entry point ``prometheus``, module
:mod:`.hooks`). In each engine process it keeps the metrics of
:mod:`.metrics` in prometheus_client's multiprocess files, and one
process of the host serves them over HTTP (:mod:`.exposition`), with the
``[prometheus]`` options of :mod:`.options`.
"""

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
