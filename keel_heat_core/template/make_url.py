"""The HOT ``make_url`` function (2017-09-01 and later)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib import parse as urlparse

from keel_heat_core.template import function

ARG_KEYS = (
    "scheme",
    "username",
    "password",
    "host",
    "port",
    "path",
    "query",
    "fragment",
)


class MakeURL(function.Function):
    """``make_url: {scheme, username, password, host, port, path, query,
    fragment}``: a correctly quoted URL."""

    description = "A function for performing substitutions on maps."

    def _check_args(self, args: Mapping[str, Any]) -> None:
        for arg in ARG_KEYS:
            if arg not in args:
                continue
            value = args[arg]
            if arg == "query":
                if not isinstance(value, (function.Function, Mapping)):
                    raise TypeError(
                        f'The "{arg}" argument to "{self.fn_name}" must be '
                        "a map"
                    )
                # Heat stops checking at the query (the fragment after it
                # is not checked); kept for the same results.
                return
            if arg == "port":
                self._check_port(value, args)
            elif not isinstance(value, (function.Function, str)):
                raise TypeError(
                    f'The "{arg}" argument to "{self.fn_name}" must be a '
                    "string"
                )

    def _check_port(self, port: Any, args: Mapping[str, Any]) -> None:
        if isinstance(port, function.Function):
            return
        if not isinstance(port, int) or isinstance(port, bool):
            try:
                port = int(port)
            except (ValueError, TypeError) as err:
                raise ValueError(
                    f'Invalid URL port "{port}" for {self.fn_name} called '
                    f"with {dict(args)}"
                ) from err
        if not 0 < port <= 65535:
            raise ValueError(
                f"Invalid URL port {port}, must be in range 1-65535"
            )

    def validate(self) -> None:
        super().validate()
        if not isinstance(self.args, Mapping):
            raise TypeError(f'The arguments to "{self.fn_name}" must be a map')
        invalid = [key for key in self.args if key not in ARG_KEYS]
        if invalid:
            raise ValueError(
                f'Invalid arguments to "{self.fn_name}": '
                + ", ".join(str(key) for key in invalid)
            )
        self._check_args(self.args)

    def result(self) -> str:
        args = function.resolve(self.args)
        if not isinstance(args, Mapping):
            raise TypeError(f'The arguments to "{self.fn_name}" must be a map')
        self._check_args(args)
        scheme = args.get("scheme", "")
        if ":" in scheme:
            raise ValueError("URL \"scheme\" should not contain ':'")
        netloc = "".join(_netloc(args))
        path = urlparse.quote(args.get("path", ""))
        query = urlparse.urlencode(args.get("query", {}))
        query = query.replace("%2F", "/")
        fragment = urlparse.quote(args.get("fragment", ""))
        url: str = urlparse.urlunsplit((scheme, netloc, path, query, fragment))
        return url


def _netloc(args: Mapping[str, Any]) -> Iterator[str]:
    username = urlparse.quote(args.get("username", ""), safe="")
    password = urlparse.quote(args.get("password", ""), safe="")
    if username or password:
        yield username
        if password:
            yield ":"
            yield password
        yield "@"
    host = args.get("host", "")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = urlparse.quote(host, safe=":")
    if ":" in host:
        host = f"[{host}]"
    yield host
    port = args.get("port", "")
    if port:
        yield ":"
        yield str(port)
