"""The ``{code, message, data}`` envelope of the ``/v1/oauth-meta/*`` routes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, List, Optional

from .errors import EnvelopeError, MalformedResponseError
from .slot import SlotInfo, integral, parse_slot_info


def _refuse_constant(name: str) -> Any:
    raise ValueError("%s is not JSON" % name)


def decode_json(body: bytes) -> Any:
    """Strict JSON: ``json.loads`` keeps big integers exact, and NaN or Infinity are refused."""
    return json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)


@dataclass(frozen=True)
class Envelope:
    code: int
    """Always a JSON number; a string ``code`` is refused as malformed (spec, Versioning)."""
    message: Any
    """A string, or an object on the authorize success path."""
    data: Optional[List[Any]]

    @property
    def message_text(self) -> str:
        if isinstance(self.message, str):
            return self.message
        return "" if self.message is None else json.dumps(self.message)


def parse_envelope(body: bytes, response_status: int) -> Envelope:
    try:
        parsed = decode_json(body)
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise MalformedResponseError("body is not JSON", response_status) from None
    if not isinstance(parsed, dict):
        raise MalformedResponseError("envelope is not an object", response_status)
    code = integral(parsed.get("code"))
    if code is None:
        raise MalformedResponseError("envelope code is not a number", response_status)
    data = parsed.get("data")
    if data is not None and not isinstance(data, list):
        raise MalformedResponseError("envelope data is not an array", response_status)
    return Envelope(code=code, message=parsed.get("message"), data=data)


def read_slot_envelope(body: bytes, response_status: int, operation: str = "get_token") -> SlotInfo:
    """Reads a get_token answer: code 1 gives the slot in ``data[0]``, any other code raises
    ``EnvelopeError``, whatever the HTTP status."""
    envelope = parse_envelope(body, response_status)
    if envelope.code != 1:
        raise EnvelopeError(operation, envelope.code, envelope.message_text)
    if not envelope.data:
        raise MalformedResponseError("envelope data holds no slot", response_status)
    return parse_slot_info(envelope.data[0], response_status)
