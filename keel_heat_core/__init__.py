"""keel-heat core: engine, plugin API, template language, RPC and DB."""

__version__ = "0.1.0"
