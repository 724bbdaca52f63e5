"""``[profiler]`` (osprofiler) and ``[oslo_reports]`` (Guru Meditation).

Both groups belong to their libraries, which document and generate them
under their own namespaces (``osprofiler``, ``oslo.reports``); this
module only registers them, with the libraries' defaults, where the core
registers its own options.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_reports import opts as report_opts
from osprofiler import opts as profiler_opts


def register(conf: cfg.ConfigOpts) -> None:
    """Register ``[profiler]`` and ``[oslo_reports]`` on ``conf``."""
    profiler_opts.set_defaults(conf)
    report_opts.set_defaults(conf)
