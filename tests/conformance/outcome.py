"""What one vector's create + show (or validate) came back with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    """What a vector's ``expect`` describes, as the API answered it."""

    valid: bool
    stage: str | None = None
    error_type: str | None = None
    #: ``api_body.error.message``: the text heat-api shows
    error_message: str | None = None
    http_status: int | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    output_errors: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    stack_status: str | None = None
    stack_status_reason: str | None = None
    resources: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the validate-template body (``POST /validate`` runs only)
    result: dict[str, Any] | None = None
