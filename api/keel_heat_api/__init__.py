"""keel-heat API: the native Orchestration v1 and CFN WSGI applications."""

__version__ = "0.1.0"
