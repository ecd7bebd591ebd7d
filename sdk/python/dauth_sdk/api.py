"""The calls to the service, each translating raw answers into values or SDK exceptions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional
from urllib.parse import urlencode

from .envelope import decode_json, parse_envelope, read_slot_envelope
from .errors import (
    AuthorizeError,
    EnvelopeError,
    ExpiredTokenError,
    MalformedResponseError,
    RequestFailedError,
    StatusRequestError,
    WalletRequiredError,
)
from .slot import SlotInfo
from .transport import HttpResponse, Transport


@dataclass(frozen=True)
class ApiContext:
    base_url: str
    """The service's base URL without a trailing slash."""
    transport: Transport
    request_timeout: float
    """Bound for one request, in seconds."""

    def send_raw(self, method: str, path: str, headers: Dict[str, str], body: Optional[bytes]) -> HttpResponse:
        try:
            return self.transport(method, self.base_url + path, headers, body, self.request_timeout)
        except Exception as error:
            # The path without its query: the authorize query carries the state.
            raise RequestFailedError(self.base_url + path.split("?")[0]) from error

    def send(
        self,
        method: str,
        path: str,
        bearer: Optional[str] = None,
        json_body: Optional[Mapping[str, Any]] = None,
    ) -> HttpResponse:
        headers = {"Accept": "application/json"}
        if bearer is not None:
            headers["Authorization"] = "Bearer " + bearer
        body = None
        if json_body is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(json_body).encode("utf-8")
        return self.send_raw(method, path, headers, body)


def authorize(context: ApiContext, client_id: str, redirect_uri: str, state: str, jwt: str) -> None:
    """``GET /v1/oauth-meta/authorize``; returns when the service accepted the request.

    Raises ``ExpiredTokenError`` for an expired JWT, ``WalletRequiredError`` for a user without a
    PIN wallet and ``AuthorizeError`` for any other failure, including an unreachable service.
    """
    query = urlencode(
        {
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            # Spelled so by the contract; the service refuses the correct spelling.
            "respose_type": "code",
            "state": state,
        }
    )
    try:
        response = context.send("GET", "/v1/oauth-meta/authorize?" + query, bearer=jwt)
    except RequestFailedError as error:
        raise AuthorizeError("service unreachable") from error
    try:
        envelope = parse_envelope(response.body, response.status)
    except MalformedResponseError as error:
        raise AuthorizeError(str(error), response_status=response.status) from error
    if 200 <= response.status < 300 and envelope.code == 1:
        return
    message = envelope.message_text
    if message == "EXPIRED_TOKEN":
        raise ExpiredTokenError()
    # The envelope has no error field: its message is the identifier (docs/backend-integration.md).
    if message == "wallet_required":
        raise WalletRequiredError(response_status=response.status, envelope_code=envelope.code)
    raise AuthorizeError(
        message or "code %d" % envelope.code,
        response_status=response.status,
        envelope_code=envelope.code,
    )


def get_token(context: ApiContext, client_id: str, client_secret: str, grant: Mapping[str, str]) -> SlotInfo:
    """``POST /v1/oauth-meta/get_token`` for either grant type."""
    body: Dict[str, str] = {"client_id": client_id, "client_secret": client_secret}
    body.update(grant)
    response = context.send("POST", "/v1/oauth-meta/get_token", json_body=body)
    return read_slot_envelope(response.body, response.status)


def logout(context: ApiContext, access_token: str) -> None:
    """``POST /v1/oauth-meta/user/logout``: revokes the token pair of ``access_token``."""
    response = context.send("POST", "/v1/oauth-meta/user/logout", bearer=access_token)
    envelope = parse_envelope(response.body, response.status)
    if envelope.code != 1:
        raise EnvelopeError("logout", envelope.code, envelope.message_text)


@dataclass(frozen=True)
class LoginStatus:
    """The login status result (spec, Resources > Login status result)."""

    success: bool
    message: str
    user_id: str
    status: str
    """``logged_in`` or ``logged_out``."""
    timestamp: str
    """ISO 8601 UTC."""
    transfer_enabled: Optional[bool] = None
    """Whether the user's rights may be listed on the marketplace (only when logged out)."""


def update_login_status(
    context: ApiContext, client_id: str, transition: str, access_token: str, user_id: str
) -> LoginStatus:
    """``POST /v1/oauth/status/login`` or ``/logout``."""
    response = context.send(
        "POST",
        "/v1/oauth/status/" + transition,
        bearer=access_token,
        json_body={"user_id": user_id, "client_id": client_id},
    )
    return _read_login_status(response)


def check_login_status(context: ApiContext, client_id: str, access_token: str, user_id: str) -> LoginStatus:
    """``GET /v1/oauth/status/check``."""
    query = urlencode({"user_id": user_id, "client_id": client_id})
    response = context.send("GET", "/v1/oauth/status/check?" + query, bearer=access_token)
    return _read_login_status(response)


def _read_login_status(response: HttpResponse) -> LoginStatus:
    try:
        parsed = decode_json(response.body)
    except ValueError:
        parsed = None
    body = parsed if isinstance(parsed, dict) else {}
    if not (200 <= response.status < 300 and body.get("success") is True):
        # Failures use the service's error body {success: false, error, message} (decisions §2).
        error_code = body.get("error") if isinstance(body.get("error"), str) else None
        message = body.get("message") if isinstance(body.get("message"), str) else "no error message"
        raise StatusRequestError(response.status, error_code, message)
    message, user_id, status = body.get("message"), body.get("user_id"), body.get("status")
    timestamp, transfer_enabled = body.get("timestamp"), body.get("transfer_enabled")
    if (
        not isinstance(message, str)
        or not isinstance(user_id, str)
        or status not in ("logged_in", "logged_out")
        or not isinstance(timestamp, str)
        or (transfer_enabled is not None and not isinstance(transfer_enabled, bool))
    ):
        raise MalformedResponseError(
            "login status result has missing or mistyped fields", response.status
        )
    return LoginStatus(
        success=True,
        message=message,
        user_id=user_id,
        status=status,
        timestamp=timestamp,
        transfer_enabled=transfer_enabled,
    )
