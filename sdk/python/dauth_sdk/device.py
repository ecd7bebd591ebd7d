"""The device authorization grant (RFC 8628): a console, TV or launcher signs a player in with a code.

The backend starts it (``start_device_authorization``), shows the player ``user_code`` and
``verification_uri``, then polls (``poll_device_token``) until the player approved or denied.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional
from urllib.parse import quote

from .errors import DeviceFlowError, MalformedResponseError

DEVICE_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"


@dataclass(frozen=True)
class DeviceAuthorization:
    device_code: str
    user_code: str
    """``XXXX-XXXX``: eight letters the player types on their phone."""
    verification_uri: str
    verification_uri_complete: str
    """``verification_uri`` with the code in it: for a QR code."""
    expires_in: float
    """Seconds the codes live."""
    interval: float
    """Seconds to wait between polls."""


@dataclass(frozen=True)
class DeviceTokens:
    """The code flow's tokens; ``id_token`` when ``openid`` was in the scope."""

    access_token: str
    token_type: str
    expires_in: int
    refresh_token: str
    user_id: str
    id_token: Optional[str] = None
    content_address: Optional[str] = None


def _basic(client_id: str, client_secret: str) -> str:
    pair = "%s:%s" % (quote(client_id, safe=""), quote(client_secret, safe=""))
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def _post(api: Any, path: str, client_id: str, client_secret: str, body: Dict[str, str]) -> "tuple[int, Dict[str, Any]]":
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "Authorization": _basic(client_id, client_secret),
    }
    response = api.send_raw("POST", path, headers, json.dumps(body).encode("utf-8"))
    try:
        parsed = json.loads(response.body.decode("utf-8"))
    except ValueError:
        raise MalformedResponseError("body is not JSON", response.status) from None
    if not isinstance(parsed, dict):
        raise MalformedResponseError("body is not a JSON object", response.status)
    return response.status, parsed


def _refusal(status: int, body: Dict[str, Any]) -> DeviceFlowError:
    code = body.get("error") if isinstance(body.get("error"), str) else None
    message = body.get("error_description") if isinstance(body.get("error_description"), str) else "HTTP %d" % status
    return DeviceFlowError(status, code, message)


def _text(body: Dict[str, Any], name: str, status: int) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise MalformedResponseError("%s is missing" % name, status)
    return value


def _seconds(body: Dict[str, Any], name: str, status: int) -> float:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise MalformedResponseError("%s is not a number of seconds" % name, status)
    return value


def start_device_authorization(
    api: Any, client_id: str, client_secret: str, scope: Optional[str] = None
) -> DeviceAuthorization:
    """``POST /oauth/device_authorization`` (RFC 8628 §3.1) with HTTP Basic client authentication."""
    status, body = _post(
        api, "/oauth/device_authorization", client_id, client_secret, {} if scope is None else {"scope": scope}
    )
    if status != 200:
        raise _refusal(status, body)
    return DeviceAuthorization(
        device_code=_text(body, "device_code", status),
        user_code=_text(body, "user_code", status),
        verification_uri=_text(body, "verification_uri", status),
        verification_uri_complete=_text(body, "verification_uri_complete", status),
        expires_in=_seconds(body, "expires_in", status),
        interval=5 if body.get("interval") is None else _seconds(body, "interval", status),
    )


def poll_device_token(
    api: Any,
    client_id: str,
    client_secret: str,
    authorization: DeviceAuthorization,
    sleep: Optional[Callable[[float], None]] = None,
) -> DeviceTokens:
    """Polls ``/oauth/token`` with the device code until the player decided (RFC 8628 §3.4-3.5).

    Waits ``interval`` seconds before each poll, 5 s more after every ``slow_down`` (or the interval
    the answer names, whichever is longer). Raises ``DeviceFlowError`` (``access_denied``,
    ``expired_token``, ``invalid_grant``, ...).
    """
    wait = sleep or time.sleep
    interval = max(1.0, float(authorization.interval))
    grant = {"grant_type": DEVICE_CODE_GRANT_TYPE, "device_code": authorization.device_code}
    while True:
        wait(interval)
        status, body = _post(api, "/oauth/token", client_id, client_secret, grant)
        if status == 200:
            return DeviceTokens(
                access_token=_text(body, "access_token", status),
                token_type="Bearer",
                expires_in=int(_seconds(body, "expires_in", status)),
                refresh_token=_text(body, "refresh_token", status),
                user_id=_text(body, "user_id", status),
                id_token=body.get("id_token") if isinstance(body.get("id_token"), str) else None,
                content_address=body.get("content_address") if isinstance(body.get("content_address"), str) else None,
            )
        error = body.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            named = body.get("interval")
            named_seconds = float(named) if isinstance(named, (int, float)) and not isinstance(named, bool) else 0.0
            interval = max(interval + 5, named_seconds)
            continue
        raise _refusal(status, body)
