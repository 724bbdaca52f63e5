"""What a log line takes from a request context (fakes for Keystone)."""

from __future__ import annotations

import json
import logging
from typing import Any

from oslo_log import formatters

from keel_heat_core.service.stack_creds import EngineContext
from tests.unit.engine.test_context import caller


def _logged(ctxt: Any) -> dict[str, Any]:
    """The context as oslo.log's JSON formatter writes it."""
    record = logging.LogRecord(
        "keel", logging.INFO, __file__, 1, "r0 created", None, None
    )
    record.context = ctxt
    line = formatters.JSONFormatter().format(record)
    return dict(json.loads(line)["context"])


class Session:
    """A trust-scoped session whose token lists the trust's roles."""

    def __init__(self, tokens: list[str]) -> None:
        tokens_issued = tokens

        class Access:
            role_names = ["member", "heat_stack_owner"]

        class Auth:
            def get_access(self, _session: Any) -> Any:
                tokens_issued.append("token")
                return Access()

        self.auth = Auth()


def _stack_context(tokens: list[str], sessions: list[str]) -> EngineContext:
    def session() -> Session:
        sessions.append("session")
        return Session(tokens)

    ctxt = EngineContext.from_dict(
        {"project_id": "p-1", "user_id": None, "request_id": "req-1"}
    )
    return ctxt._bind(session, lambda: None, roles_from_session=True)


def test_a_log_line_does_not_fetch_the_trusts_token() -> None:
    tokens: list[str] = []
    sessions: list[str] = []
    ctxt = _stack_context(tokens, sessions)
    logged = _logged(ctxt)
    assert logged["project_id"] == "p-1"
    assert logged["roles"] == []
    assert (tokens, sessions) == ([], [])
    # the roles are still read when something asks for them
    assert ctxt.roles == ["member", "heat_stack_owner"]
    assert tokens == ["token"]
    assert _logged(ctxt)["roles"] == ["member", "heat_stack_owner"]
    assert tokens == ["token"]


def test_a_log_line_carries_no_secret_of_the_context() -> None:
    ctxt = caller()  # a caller with every secret a context can carry
    ctxt.auth_handle = "SECRET-HANDLE"
    ctxt.auth_key_handle = "SECRET-KEY-HANDLE"
    logged = _logged(ctxt)
    assert "SECRET" not in json.dumps(logged)
    assert (logged["user"], logged["trust_id"]) == ("u-1", "t-1")
