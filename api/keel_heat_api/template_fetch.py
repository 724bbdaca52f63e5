"""Fetching ``template_url`` with the core's guarded fetcher.

The rules (allowed hosts, private addresses, size, time) are the same
for every remote template, whether the API or an engine fetches it:
:mod:`keel_heat_core.remote_templates`.
"""

from __future__ import annotations

from oslo_config import cfg

from keel_heat_core.remote_templates import FetchPolicy, URLFetchError
from keel_heat_core.remote_templates import fetch as fetch_remote

__all__ = ["URLFetchError", "fetch", "host_allowed"]


def host_allowed(conf: cfg.ConfigOpts, host: str) -> bool:
    """Return whether ``template_url`` may reach ``host``."""
    from keel_heat_core.remote_templates import host_allowed as allowed

    return allowed(FetchPolicy.from_conf(conf), host)


def fetch(conf: cfg.ConfigOpts, url: str) -> bytes:
    """Return the body at ``url``.

    :raises URLFetchError: with Heat's texts for a bad scheme, a failed
        fetch or an oversized body, and for a refused host.
    """
    return fetch_remote(url, FetchPolicy.from_conf(conf))
