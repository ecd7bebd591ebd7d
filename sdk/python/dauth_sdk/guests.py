"""Guest accounts (docs/players.md): create, sign in with the device secret, upgrade."""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional

from .api import ApiContext
from .errors import GuestRequestError, MalformedResponseError
from .service import call_service


class GuestSession(NamedTuple):
    """A guest's login JWT (bound to the app, claim ``azp``) and the account's uuid."""

    token: str
    uuid: str


class NewGuest(NamedTuple):
    """A new guest: its session and the secret the game keeps on the device (shown this once)."""

    token: str
    uuid: str
    guest_secret: str


def _call(context: ApiContext, path: str, body: Dict[str, str], bearer: Optional[str] = None) -> Dict[str, Any]:
    return call_service(
        context,
        "POST",
        path,
        lambda r: GuestRequestError(r.response_status, r.error_code, r.message),
        body=body,
        bearer=bearer,
        require_success=True,
    )


def _text(obj: Dict[str, Any], name: str, what: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str):
        raise MalformedResponseError(what + " result has missing or mistyped fields")
    return value


def create_guest(context: ApiContext, client_id: str) -> NewGuest:
    """``POST /v1/dev-user/guest``."""
    obj = _call(context, "/v1/dev-user/guest", {"client_id": client_id})
    return NewGuest(
        _text(obj, "token", "guest creation"),
        _text(obj, "uuid", "guest creation"),
        _text(obj, "guest_secret", "guest creation"),
    )


def guest_login(context: ApiContext, uuid: str, guest_secret: str) -> GuestSession:
    """``POST /v1/dev-user/guest/login``."""
    obj = _call(context, "/v1/dev-user/guest/login", {"uuid": uuid, "guest_secret": guest_secret})
    return GuestSession(_text(obj, "token", "guest login"), _text(obj, "uuid", "guest login"))


def upgrade_guest(
    context: ApiContext, token: str, email: str, password: str, nickname: Optional[str] = None
) -> str:
    """``POST /v1/dev-user/guest/upgrade`` with the guest's login JWT; returns the (unchanged) uuid."""
    body = {"email": email, "password": password}
    if nickname is not None:
        body["nickname"] = nickname
    obj = _call(context, "/v1/dev-user/guest/upgrade", body, bearer=token)
    return _text(obj, "uuid", "guest upgrade")
