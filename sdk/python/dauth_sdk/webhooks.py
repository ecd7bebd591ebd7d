"""Verifying dauth webhook deliveries (Standard Webhooks; docs/webhooks.md).

``verify_webhook(raw_body, headers, secret)`` checks the ``webhook-signature`` (HMAC-SHA256 over
``webhook-id.webhook-timestamp.body`` with the ``whsec_`` secret; any ``v1,`` signature may match,
there are two during a secret rotation), refuses a timestamp more than 5 minutes off (replays), and
returns the event. Deduplicate by ``event.id``: the same on every retry.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, Union

EVENT_TYPES = (
    "grant.created",
    "grant.revoked",
    "status.changed",
    "slot.created",
    "slot.transferred",
    "market.listing.sold",
    "content.purchased",
    "content.consumed",
    "content.released",
    "session_key.granted",
    "session_key.revoked",
    "user.deleted",
    "sponsorship.exhausted",
)


class WebhookVerificationError(Exception):
    """The delivery is not authentic (or not a dauth event); answer it with a 4xx."""


@dataclass(frozen=True)
class WebhookEvent:
    """One verified delivery. ``data`` always has ``client_id``; ids and amounts are strings."""

    id: str
    type: str
    timestamp: str
    data: dict[str, Any]


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key in (name, name.title(), name.upper()):
        if key in headers:
            value = headers[key]
            return value[0] if isinstance(value, (list, tuple)) else value
    getter = getattr(headers, "get", None)
    if getter is not None:
        for key, value in headers.items():
            if key.lower() == name:
                return value[0] if isinstance(value, (list, tuple)) else value
    return None


def _key(secret: str) -> bytes:
    return base64.b64decode(secret[len("whsec_") :] if secret.startswith("whsec_") else secret)


def verify_webhook(
    body: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: Union[str, Sequence[str]],
    *,
    tolerance_seconds: int = 300,
    now: Callable[[], float] = time.time,
) -> WebhookEvent:
    """Verifies a delivery and returns its event; raises WebhookVerificationError otherwise.

    ``body`` must be the raw request body as received; ``secret`` may be a list (new and old).
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing required headers")
    if not timestamp.isdigit() or len(timestamp) > 15:
        raise WebhookVerificationError("Invalid Signature Headers")
    sent = int(timestamp)
    current = int(now())
    if current - sent > tolerance_seconds:
        raise WebhookVerificationError("Message timestamp too old")
    if sent - current > tolerance_seconds:
        raise WebhookVerificationError("Message timestamp too new")

    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    signed = f"{msg_id}.{timestamp}.".encode("utf-8") + raw
    offered = []
    for part in signatures.split(" "):
        version, _, value = part.partition(",")
        if version == "v1" and value:
            try:
                offered.append(base64.b64decode(value))
            except ValueError:
                continue
    secrets = [secret] if isinstance(secret, str) else list(secret)
    valid = False
    for key in secrets:
        expected = hmac.new(_key(key), signed, hashlib.sha256).digest()
        for candidate in offered:
            # Every comparison runs, each in constant time.
            if hmac.compare_digest(candidate, expected):
                valid = True
    if not valid:
        raise WebhookVerificationError("No matching signature found")
    try:
        event = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise WebhookVerificationError("The body is not JSON") from exc
    if not isinstance(event, dict) or not isinstance(event.get("type"), str) or not isinstance(event.get("data"), dict):
        raise WebhookVerificationError("The body is not a dauth event")
    return WebhookEvent(id=msg_id, type=event["type"], timestamp=str(event.get("timestamp", "")), data=event["data"])
