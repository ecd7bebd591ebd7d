"""Sign in with Google, Apple, Discord or Steam (docs/federation.md).

A game that signs the player in natively (Sign in with Apple or Google on the device) turns the
upstream ``id_token`` into a dauth login JWT bound to the app. An identity is (provider, subject); an
account with the same e-mail is never linked automatically (``AccountLinkRequiredError``): the
player signs in to it and links the identity there.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional
from urllib.parse import quote

from .api import ApiContext
from .errors import MalformedResponseError, federation_error
from .mfa import raise_if_mfa_required
from .service import ServiceRefusal, call_service, id_member, text_member


class FederatedLogin(NamedTuple):
    """A native sign-in: a login JWT bound to the app, and whether this sign-in made the account."""

    token: str
    uuid: str
    created: bool


class LinkedIdentity(NamedTuple):
    """An upstream identity linked to the account."""

    id: str
    provider: str
    """The provider's id in ``IDENTITY_PROVIDERS``, e.g. ``google``."""
    provider_name: str
    subject: str
    """The upstream ``sub`` (a Steam id for ``steam``)."""
    email: Optional[str]
    created_at: str
    """ISO 8601 UTC."""


def _refuse(refusal: ServiceRefusal) -> Exception:
    return federation_error(refusal.response_status, refusal.error_code, refusal.message)


def federated_login(context: ApiContext, client_id: str, provider: str, id_token: str) -> FederatedLogin:
    """``POST /v1/dev-user/federated-login {provider, id_token, client_id}``; ``MfaRequiredError`` for an
    account with a second factor."""
    obj = call_service(
        context,
        "POST",
        "/v1/dev-user/federated-login",
        _refuse,
        body={"provider": provider, "id_token": id_token, "client_id": client_id},
        require_success=True,
    )
    raise_if_mfa_required(obj)
    what = "federated login result"
    created = obj.get("created")
    if not isinstance(created, bool):
        raise MalformedResponseError(what + ": created is not a boolean")
    return FederatedLogin(text_member(obj, "token", what), id_member(obj, "uuid", what), created)


def platform_login(
    context: ApiContext, client_id: str, provider: str, credential: Dict[str, Any]
) -> FederatedLogin:
    """``POST /v1/dev-user/platform-login {provider, client_id, credential}`` (docs/federation.md, "Platform
    sign-in inside the game"); ``MfaRequiredError`` for an account with a second factor."""
    if not isinstance(credential, dict) or not credential:
        raise TypeError("credential must be the platform credential object")
    obj = call_service(
        context,
        "POST",
        "/v1/dev-user/platform-login",
        _refuse,
        body={"provider": provider, "client_id": client_id, "credential": credential},
        require_success=True,
    )
    raise_if_mfa_required(obj)
    what = "platform login result"
    created = obj.get("created")
    if not isinstance(created, bool):
        raise MalformedResponseError(what + ": created is not a boolean")
    return FederatedLogin(text_member(obj, "token", what), id_member(obj, "uuid", what), created)


def _identity(obj: Any) -> LinkedIdentity:
    if not isinstance(obj, dict):
        raise MalformedResponseError("an identity is not an object")
    email = obj.get("email")
    if email is not None and not isinstance(email, str):
        raise MalformedResponseError("identity: email is not a string")
    provider = text_member(obj, "provider", "identity")
    name = obj.get("provider_name")
    return LinkedIdentity(
        id=id_member(obj, "id", "identity"),
        provider=provider,
        provider_name=name if isinstance(name, str) and name else provider,
        subject=text_member(obj, "subject", "identity"),
        email=email,
        created_at=text_member(obj, "created_at", "identity"),
    )


def list_identities(context: ApiContext, login_token: str) -> List[LinkedIdentity]:
    """``GET /v1/dev-user/identities`` with the account's login JWT."""
    obj = call_service(context, "GET", "/v1/dev-user/identities", _refuse, bearer=login_token)
    identities = obj.get("identities")
    if not isinstance(identities, list):
        raise MalformedResponseError("identities is not a list")
    return [_identity(item) for item in identities]


def link_identity(context: ApiContext, login_token: str, provider: str, id_token: str) -> LinkedIdentity:
    """``POST /v1/dev-user/identities {provider, id_token}`` with the signed-in account's login JWT."""
    obj: Dict[str, Any] = call_service(
        context,
        "POST",
        "/v1/dev-user/identities",
        _refuse,
        body={"provider": provider, "id_token": id_token},
        bearer=login_token,
    )
    # The identity itself, or wrapped as {identity} by a service that adds ``success``.
    return _identity(obj["identity"] if isinstance(obj.get("identity"), dict) else obj)


def unlink_identity(context: ApiContext, login_token: str, identity_id: str) -> None:
    """``DELETE /v1/dev-user/identities/{id}``; ``FirstPartyRequiredError`` for a JWT other than the
    console's, ``LastSignInMethodError`` for the last way in."""
    if not isinstance(identity_id, str) or not identity_id:
        raise ValueError("dauth: identity_id is required")
    call_service(
        context,
        "DELETE",
        "/v1/dev-user/identities/" + quote(identity_id, safe=""),
        _refuse,
        bearer=login_token,
        require_success=True,
    )
