"""Guru Meditation Reports (oslo.reports) of an engine process.

``kill -USR2 <pid>`` of an engine (or ``keel-heat-all``) makes it write a
report of its threads' stacks, its configuration (secrets masked) and its
package to stderr, or to ``[oslo_reports] log_dir``; with ``[oslo_reports]
file_event_handler`` set, touching that file does the same. The process
goes on working. A stuck traversal is diagnosed from the thread stacks.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_reports import guru_meditation_report as gmr

from keel_heat_core import __version__


class PackageVersion:
    """What the report's package section shows."""

    @staticmethod
    def vendor_string() -> str:
        return "keel-heat"

    @staticmethod
    def product_string() -> str:
        return "keel-heat-core"

    @staticmethod
    def version_string_with_package() -> str:
        return __version__


def setup(conf: cfg.ConfigOpts) -> None:
    """Write a report on SIGUSR2 (and on ``file_event_handler``)."""
    gmr.TextGuruMeditation.setup_autorun(PackageVersion, conf=conf)
