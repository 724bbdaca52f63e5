"""Fetching remote templates, only from hosts the operator allows.

Heat fetches any http(s) URL it is given: ``template_url`` in the API,
and in the engine a resource type or a registry entry that is a URL (a
template resource's template, a child template of a child). Each of
those lets a user make the service's hosts send requests into the
internal network. Here every remote template, whoever fetches it, goes
through :func:`fetch`, which reaches a URL only when its host is listed
in ``[api] template_url_allowed_hosts`` (names or CIDR networks) or, with
no list, when every address the name resolves to is public (no loopback,
link-local, private, reserved or multicast address) unless
``[api] template_url_allow_private`` is set. Redirects are followed by
hand, each hop checked the same way. The body is bounded by
``max_template_size`` and the whole fetch by ``template_fetch_timeout``.

The engine learns the operator's choice once, at start
(:func:`configure`); until then only public hosts are reached.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import socket
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin, urlparse

import requests

LOG = logging.getLogger(__name__)

MAX_REDIRECTS = 5

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class URLFetchError(IOError):
    """The template could not be fetched; the text says why."""


@dataclasses.dataclass(frozen=True)
class FetchPolicy:
    """Where remote templates may come from, and how much of them.

    :ivar allowed_hosts: host names or CIDR networks; empty: any host
        whose addresses are all public.
    :ivar allow_private: with no list, reach private addresses too.
    :ivar max_size: the largest body, in bytes.
    :ivar timeout: seconds for each request.
    """

    allowed_hosts: Sequence[str] = ()
    allow_private: bool = False
    max_size: int = 524288
    timeout: float = 60.0

    @classmethod
    def from_conf(cls, conf: Any) -> FetchPolicy:
        """The policy of a configuration with the ``[api]`` fetch options
        and ``max_template_size``/``template_fetch_timeout``."""
        return cls(
            allowed_hosts=tuple(conf.api.template_url_allowed_hosts),
            allow_private=bool(conf.api.template_url_allow_private),
            max_size=int(conf.max_template_size),
            timeout=float(conf.template_fetch_timeout),
        )


_policy = FetchPolicy()


def configure(policy: FetchPolicy) -> None:
    """Set the policy of the fetches that are not given one (the
    engine's)."""
    global _policy
    _policy = policy


def current_policy() -> FetchPolicy:
    """The policy :func:`configure` set."""
    return _policy


def _addresses(host: str) -> list[Address]:
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return []
    return [
        ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos
    ]


def _is_public(addr: Address) -> bool:
    return addr.is_global and not (
        addr.is_loopback
        or addr.is_link_local
        or addr.is_private
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
    )


def host_allowed(policy: FetchPolicy, host: str) -> bool:
    """Return whether a remote template may come from ``host``."""
    addresses = _addresses(host)
    if policy.allowed_hosts:
        for entry in policy.allowed_hosts:
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
    return policy.allow_private or all(_is_public(a) for a in addresses)


def _check_url(policy: FetchPolicy, url: str) -> None:
    parts = urlparse(url)
    if parts.scheme not in ("http", "https"):
        raise URLFetchError(f"Invalid URL scheme {parts.scheme}")
    if not parts.hostname or not host_allowed(policy, parts.hostname):
        LOG.info("Refused remote template %s: host not allowed", url)
        raise URLFetchError(
            f"Failed to retrieve template from {url}: the host is not allowed"
        )


def _read(policy: FetchPolicy, resp: requests.Response) -> bytes:
    result = b""
    for chunk in resp.iter_content(chunk_size=65536):
        result += chunk
        if len(result) > policy.max_size:
            raise URLFetchError(
                "Template exceeds maximum allowed size "
                f"({policy.max_size} bytes)"
            )
    return result


def fetch(url: str, policy: FetchPolicy | None = None) -> bytes:
    """Return the body at ``url``.

    :param policy: where from and how much; the configured one if None.
    :raises URLFetchError: with Heat's texts for a bad scheme, a failed
        fetch or an oversized body, and for a refused host.
    """
    policy = policy or _policy
    current = url
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            _check_url(policy, current)
            with requests.get(
                current,
                stream=True,
                timeout=policy.timeout,
                allow_redirects=False,
            ) as resp:
                if resp.is_redirect:
                    current = urljoin(current, resp.headers["Location"])
                    continue
                resp.raise_for_status()
                return _read(policy, resp)
    except (TimeoutError, requests.RequestException) as err:
        LOG.info("Failed to retrieve template: %s", err)
        raise URLFetchError(
            f"Failed to retrieve template from {url}"
        ) from None
    raise URLFetchError(f"Failed to retrieve template from {url}")
