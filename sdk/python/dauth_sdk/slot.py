"""Slot information and its exact slot id."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Union

from .errors import MalformedResponseError

# [0-9], not \d: \d also matches non-ASCII digits such as "٣".
_DECIMAL = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class SlotId:
    """A slot id, kept exact.

    Ids have up to 19 digits. Python's ``int`` holds them exactly, but the service writes new ids
    as JSON numbers and imported ones as decimal strings, and the kind matters to anyone who
    writes the id back out. So the id is kept as its decimal text plus the kind it came in.
    """

    value: str
    """The decimal digits, exactly as the service sent them."""
    kind: str
    """``"number"`` (a raw JSON number, new slots) or ``"string"`` (imported slots)."""

    def __post_init__(self) -> None:
        if not _DECIMAL.fullmatch(self.value):
            raise ValueError("a slot id must be decimal digits, got %r" % (self.value,))
        if self.kind not in ("number", "string"):
            raise ValueError("a slot id kind is 'number' or 'string', got %r" % (self.kind,))

    @classmethod
    def from_json(cls, raw: Any) -> Optional["SlotId"]:
        """Reads the ``id`` member of a decoded body; None for anything but an exact id.

        A float is refused: it may already have lost digits. ``bool`` is refused although it is
        an ``int`` subclass.
        """
        if type(raw) is int:
            return cls(str(raw), "number") if raw >= 0 else None
        if isinstance(raw, str) and _DECIMAL.fullmatch(raw):
            return cls(raw, "string")
        return None

    def to_json(self) -> Union[int, str]:
        """The id as ``json.dumps`` should write it: an ``int`` or a ``str``, as it came."""
        return int(self.value) if self.kind == "number" else self.value

    def __int__(self) -> int:
        return int(self.value)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SlotInfo:
    """Slot information as get_token returns it (spec, Resources > SlotInfo).

    Only ``id`` and ``access_token`` are guaranteed; an absent optional field is None.
    """

    id: SlotId
    access_token: str
    refresh_token: Optional[str] = None
    expires_in: Optional[int] = None
    """Lifetime of the access token in seconds."""
    content_address: Optional[str] = None
    token_nickname: Optional[str] = None
    tr_cnt: Optional[int] = None
    code: Optional[str] = None
    """The authorization code that was exchanged."""


_OPTIONAL_STRINGS = ("refresh_token", "content_address", "token_nickname", "code")
_OPTIONAL_NUMBERS = ("expires_in", "tr_cnt")


def integral(value: Any) -> Optional[int]:
    """A JSON number with an integral value as ``int`` (3600.0 counts); None for anything else."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def parse_slot_info(raw: Any, response_status: Optional[int] = None) -> SlotInfo:
    """Reads element 0 of an envelope's ``data``; a mistyped member makes the body malformed."""
    if not isinstance(raw, dict):
        raise MalformedResponseError("data[0] is not slot information", response_status)
    slot_id = SlotId.from_json(raw.get("id"))
    if slot_id is None:
        raise MalformedResponseError(
            "slot id is not an exact non-negative integer", response_status
        )
    access_token = raw.get("access_token")
    if not isinstance(access_token, str):
        raise MalformedResponseError("slot has no access_token", response_status)
    fields = {}
    for key in _OPTIONAL_STRINGS:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise MalformedResponseError("slot %s is not a string" % key, response_status)
        fields[key] = value
    for key in _OPTIONAL_NUMBERS:
        value = raw.get(key)
        if value is not None:
            value = integral(value)
            if value is None:
                raise MalformedResponseError("slot %s is not an integer" % key, response_status)
        fields[key] = value
    return SlotInfo(id=slot_id, access_token=access_token, **fields)
