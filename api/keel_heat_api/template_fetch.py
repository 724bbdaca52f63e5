"""Fetching ``template_url`` with the core's guarded fetcher.

The rules (allowed hosts, private addresses, size, time) are the same
for every remote template, whether the API or an engine fetches it:
:mod:`keel_heat_core.remote_templates`.
"""

from __future__ import annotations

from oslo_config import cfg

from keel_heat_core import remote_templates
from keel_heat_core.remote_templates import FetchPolicy, URLFetchError

__all__ = ["URLFetchError", "fetch", "host_allowed"]


def host_allowed(conf: cfg.ConfigOpts, host: str) -> bool:
    """Return whether ``template_url`` may reach ``host``."""
    return remote_templates.host_allowed(FetchPolicy.from_conf(conf), host)


def fetch(conf: cfg.ConfigOpts, url: str) -> bytes:
    """Return the body at ``url``.

    :raises URLFetchError: with Heat's texts for a bad scheme, a failed
        fetch or an oversized body, and for a refused host.
    """
    return remote_templates.fetch(url, FetchPolicy.from_conf(conf))
