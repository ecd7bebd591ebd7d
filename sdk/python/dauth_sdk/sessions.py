"""Session operations (docs/session-keys.md).

The player granted the app limited powers over their wallet once, with the PIN; the app's backend
then acts within that policy with the player's OAuth access token for the app, without the PIN. The
wallet contract enforces the same policy on chain.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

from .api import ApiContext
from .errors import MalformedResponseError, OutsideSessionPolicyError, SessionOperationError
from .service import ServiceRefusal, call_service

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}\Z")
_HEX = re.compile(r"0x(?:[0-9a-fA-F]{2})*\Z")
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)\Z")


class SessionCall(NamedTuple):
    """One call the player's wallet makes under the app's session key."""

    to: str
    """The target contract, ``0x`` and 40 hex digits."""
    value: Union[int, str] = 0
    """Wei sent with the call: an int or a decimal string."""
    data: str = "0x"
    """The call data, ``0x``-hex (a selector and its arguments)."""


class SessionOperationResult(NamedTuple):
    """A session operation the wallet executed: its ERC-4337 hashes and each call's result."""

    user_op_hash: str
    tx_hash: Optional[str]
    results: List[Any]
    """One entry per call as the service sent it: ``{call_index, to, success}``."""


CallLike = Union[SessionCall, Mapping[str, Any]]


def session_calls_body(calls: Sequence[CallLike]) -> List[Dict[str, str]]:
    """The body's calls, checked here so that bad input never reaches the service."""
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence) or len(calls) == 0:
        raise ValueError("dauth: calls must be a non-empty list")
    body = []
    for index, call in enumerate(calls):
        at = "calls[%d]" % index
        if isinstance(call, SessionCall):
            to, value, data = call.to, call.value, call.data
        elif isinstance(call, Mapping):
            to, value, data = call.get("to"), call.get("value", 0), call.get("data", "0x")
        else:
            raise ValueError("dauth: %s is not a call" % at)
        if not isinstance(to, str) or not _ADDRESS.match(to):
            raise ValueError("dauth: %s.to is not an address" % at)
        if isinstance(value, bool) or not (
            (isinstance(value, int) and value >= 0) or (isinstance(value, str) and _DECIMAL.match(value))
        ):
            raise ValueError("dauth: %s.value is not a non-negative integer of wei" % at)
        if not isinstance(data, str) or not _HEX.match(data):
            raise ValueError("dauth: %s.data is not 0x-hex bytes" % at)
        body.append({"to": to, "value": str(value), "data": data})
    return body


def _refuse(refusal: ServiceRefusal) -> Exception:
    if refusal.error_code != "outside_session_policy":
        return SessionOperationError(refusal.response_status, refusal.error_code, refusal.message)
    # decisions §8 names details: {call_index, reason}; the service's error handler may also spread
    # them into the body's top level, so both places are read.
    nested = refusal.body.get("details")
    details = nested if isinstance(nested, dict) else refusal.body
    index = details.get("call_index")
    reason = details.get("reason")
    return OutsideSessionPolicyError(
        refusal.response_status,
        refusal.message,
        index if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else None,
        reason if isinstance(reason, str) else None,
    )


def session_operations(context: ApiContext, access_token: str, calls: Sequence[CallLike]) -> SessionOperationResult:
    """``POST /v1/wallet/session-operations {calls}`` with the player's access token for the app."""
    if not isinstance(access_token, str) or not access_token:
        raise ValueError("dauth: access_token is required")
    body = {"calls": session_calls_body(calls)}
    obj = call_service(context, "POST", "/v1/wallet/session-operations", _refuse, body=body, bearer=access_token)
    user_op_hash, tx_hash, results = obj.get("user_op_hash"), obj.get("tx_hash"), obj.get("results", [])
    if not isinstance(user_op_hash, str) or not (tx_hash is None or isinstance(tx_hash, str)):
        raise MalformedResponseError("session operation result has missing or mistyped hashes")
    if not isinstance(results, list):
        raise MalformedResponseError("session operation results is not a list")
    return SessionOperationResult(user_op_hash, tx_hash, results)
