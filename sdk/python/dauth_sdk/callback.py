"""The callback the service sends to ``redirect_uri``: ``{success, code, state}``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional
from urllib.parse import parse_qsl


@dataclass(frozen=True)
class AuthorizeCallback:
    state: str
    success: bool
    """True when ``success`` was 1; anything else is a rejection."""
    code: Optional[str] = None


def parse_callback(fields: Any) -> Optional[AuthorizeCallback]:
    """Normalises callback fields.

    The service sends JSON with ``success: 1``; a form or query carrier gives the string "1",
    which counts too (``True`` does not: 1 is the contract). Returns None when there is no
    ``state`` to match, which is treated like an unknown state: silently ignored.
    """
    if not isinstance(fields, Mapping):
        return None
    state = fields.get("state")
    if not isinstance(state, str) or not state:
        return None
    success = fields.get("success")
    is_number = isinstance(success, (int, float)) and not isinstance(success, bool)
    accepted = (is_number and success == 1) or success == "1"
    code = fields.get("code")
    return AuthorizeCallback(
        state=state,
        success=accepted,
        code=code if isinstance(code, str) and code else None,
    )


def callback_fields(body: bytes, content_type: Optional[str], query: str) -> Any:
    """Turns a callback request's carrier into fields.

    JSON (what the service sends) or a form body; when the body names no ``state``, the query
    string is used. An unparsable body yields no fields, which the client ignores.
    """
    fields: Any = None
    text = body.decode("utf-8", errors="replace")
    if content_type and "application/x-www-form-urlencoded" in content_type:
        fields = dict(parse_qsl(text))
    elif text.strip():
        try:
            fields = json.loads(text)
        except ValueError:
            fields = None
    if isinstance(fields, Mapping) and "state" in fields:
        return fields
    return dict(parse_qsl(query))
