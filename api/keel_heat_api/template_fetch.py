"""Fetching ``template_url``, only from hosts the operator allows.

Heat fetches any http(s) URL from the API host, which lets a user probe
the internal network. Here a URL is fetched only when its host is listed
in ``[api] template_url_allowed_hosts`` (names or CIDR networks) or, with
no list, when every address the name resolves to is public (no loopback,
link-local, private, reserved or multicast address) unless
``[api] template_url_allow_private`` is set. Redirects are followed by
hand, each hop checked the same way. The body is bounded by
``max_template_size`` and the whole fetch by ``template_fetch_timeout``.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from urllib.parse import urljoin, urlparse

import requests
from oslo_config import cfg

LOG = logging.getLogger(__name__)

MAX_REDIRECTS = 5


class URLFetchError(IOError):
    """The template could not be fetched; the text says why."""


def _addresses(
    host: str,
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return []
    return [
        ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos
    ]


def _is_public(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not (
        addr.is_loopback
        or addr.is_link_local
        or addr.is_private
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
        or not addr.is_global
    )


def host_allowed(conf: cfg.ConfigOpts, host: str) -> bool:
    """Return whether ``template_url`` may reach ``host``."""
    allowed = list(conf.api.template_url_allowed_hosts)
    addresses = _addresses(host)
    if allowed:
        for entry in allowed:
            if entry.lower() == host.lower():
                return True
            try:
                network = ipaddress.ip_network(entry, strict=False)
            except ValueError:
                continue
            if addresses and all(a in network for a in addresses):
                return True
        return False
    if not addresses:
        return False
    if conf.api.template_url_allow_private:
        return True
    return all(_is_public(a) for a in addresses)


def _check_url(conf: cfg.ConfigOpts, url: str) -> None:
    parts = urlparse(url)
    if parts.scheme not in ("http", "https"):
        raise URLFetchError(f"Invalid URL scheme {parts.scheme}")
    if not parts.hostname or not host_allowed(conf, parts.hostname):
        LOG.info("Refused template_url %s: host not allowed", url)
        raise URLFetchError(
            f"Failed to retrieve template from {url}: the host is not allowed"
        )


def _read(conf: cfg.ConfigOpts, resp: requests.Response) -> bytes:
    limit = conf.max_template_size
    result = b""
    for chunk in resp.iter_content(chunk_size=1000):
        result += chunk
        if len(result) > limit:
            raise URLFetchError(
                f"Template exceeds maximum allowed size ({limit} bytes)"
            )
    return result


def fetch(conf: cfg.ConfigOpts, url: str) -> bytes:
    """Return the body at ``url``.

    :raises URLFetchError: with Heat's texts for a bad scheme, a failed
        fetch or an oversized body, and for a refused host.
    """
    current = url
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            _check_url(conf, current)
            with requests.get(
                current,
                stream=True,
                timeout=conf.template_fetch_timeout,
                allow_redirects=False,
            ) as resp:
                if resp.is_redirect:
                    current = urljoin(current, resp.headers["Location"])
                    continue
                resp.raise_for_status()
                return _read(conf, resp)
    except (TimeoutError, requests.RequestException) as err:
        LOG.info("Failed to retrieve template: %s", err)
        raise URLFetchError(
            f"Failed to retrieve template from {url}"
        ) from None
    raise URLFetchError(f"Failed to retrieve template from {url}")
