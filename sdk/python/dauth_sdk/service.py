"""Calls to the service's own JSON routes (not the ``/v1/oauth-meta/*`` envelope routes)."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional

from .api import ApiContext
from .errors import MalformedResponseError


class ServiceRefusal(NamedTuple):
    """A failure answer: ``{success: false, error, message, ...}`` (decisions §2)."""

    response_status: int
    error_code: Optional[str]
    message: str
    body: Dict[str, Any]
    """The whole error body: some codes carry more members (``details``, ``call_index``, ...)."""


def call_service(
    context: ApiContext,
    method: str,
    path: str,
    refuse: Callable[[ServiceRefusal], Exception],
    body: Optional[Mapping[str, Any]] = None,
    bearer: Optional[str] = None,
    require_success: bool = False,
) -> Dict[str, Any]:
    """Returns the answer's object on a 2xx; raises what ``refuse`` makes of a failure answer.

    ``require_success`` treats a 2xx answer without ``"success": true`` as a refusal (the account
    routes always send it).
    """
    response = context.send(method, path, bearer=bearer, json_body=body)
    try:
        parsed = json.loads(response.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        parsed = None
    obj = parsed if isinstance(parsed, dict) else None
    ok = 200 <= response.status < 300
    if ok and obj is not None:
        success = obj.get("success")
        if success is True or (not require_success and success is not False):
            return obj
    if ok and obj is None and not require_success:
        raise MalformedResponseError("body is not a JSON object", response.status)
    error = (obj or {}).get("error")
    message = (obj or {}).get("message")
    raise refuse(
        ServiceRefusal(
            response.status,
            error if isinstance(error, str) else None,
            message if isinstance(message, str) else "no error message",
            obj or {},
        )
    )


def text_member(obj: Mapping[str, Any], name: str, what: str) -> str:
    """A non-empty string member, or ``MalformedResponseError`` naming the call and the member."""
    value = obj.get(name)
    if not isinstance(value, str) or not value:
        raise MalformedResponseError("%s: %s is missing or not a string" % (what, name))
    return value


def id_member(obj: Mapping[str, Any], name: str, what: str) -> str:
    """An id the service may send as a string or a JSON integer: its decimal text."""
    value = obj.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return text_member(obj, name, what)
