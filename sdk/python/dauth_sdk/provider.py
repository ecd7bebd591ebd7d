"""Content-provider registration as the app's owner, in the strong mode by default.

``POST /v1/development-api/init_permission_provider`` (docs/content-tokens.md). Like the console, the
``dauth provider create`` command and the TypeScript SDK (decisions §7), the app's **first** provider
is created with ``payload_mode: gcm`` (authenticated payloads, each counted once) and
``consume_auth: client_secret`` (every consumption call carries the app's credentials as HTTP Basic);
a later cuid of the same app keeps the app's settings unless they are given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional
from urllib.parse import urlencode, urlsplit

from .api import ApiContext
from .envelope import decode_json
from .errors import MalformedResponseError, ProviderRegistrationError
from .mfa import raise_if_mfa_required
from .transport import HttpResponse, Transport, urllib_transport

REGISTER_PATH = "/v1/development-api/init_permission_provider"
LOGIN_PATH = "/v1/dev-user/login_devuser"
PAYLOAD_MODES = ("ctr", "ctr+gcm", "gcm")
CONSUME_AUTHS = ("none", "client_secret")


@dataclass(frozen=True)
class ProviderRegistration:
    """The service's answer. The key material is set only when this call issued it: store it now."""

    tx_hash: str
    payload_mode: str
    consume_auth: str
    encryption_key: Optional[str] = None
    encryption_iv: Optional[str] = None
    gcm_key: Optional[str] = None

    def __repr__(self) -> str:
        # Spelled out so that the keys never show in logs or tracebacks.
        return "ProviderRegistration(tx_hash=%r, payload_mode=%r, consume_auth=%r)" % (
            self.tx_hash,
            self.payload_mode,
            self.consume_auth,
        )


def _answer(response: HttpResponse) -> Dict[str, Any]:
    try:
        parsed = decode_json(response.body)
    except ValueError:
        raise MalformedResponseError("body is not JSON", response.status) from None
    return parsed if isinstance(parsed, dict) else {}


def _refused(response: HttpResponse, answer: Dict[str, Any]) -> ProviderRegistrationError:
    error = answer.get("error")
    message = answer.get("message")
    return ProviderRegistrationError(
        response.status,
        error if isinstance(error, str) else None,
        message if isinstance(message, str) else "no error message",
    )


def register_content_provider(
    client_id: str,
    cuid: str,
    release_per: int,
    owner_addr: str,
    *,
    email: Optional[str] = None,
    password: Optional[str] = None,
    login_token: Optional[str] = None,
    payload_mode: Optional[str] = None,
    consume_auth: Optional[str] = None,
    auth_server_url: Optional[str] = None,
    transport: Optional[Transport] = None,
    request_timeout: float = 15.0,
) -> ProviderRegistration:
    """Registers ``cuid`` for the app ``client_id`` as its owner.

    Give the owner's ``email`` and ``password`` (the call signs in, so the login is fresh for the
    service's ``STEP_UP_MAX_AGE``) or a ``login_token`` obtained within that time.

    :raises ProviderRegistrationError: the service refused (e.g. 401 ``reauthentication_required``,
        403 ``not_client_owner``, 409 ``cuid_taken``); nothing was registered.
    :raises RequestFailedError: no answer came.
    """
    for name, value in (("client_id", client_id), ("cuid", cuid), ("owner_addr", owner_addr)):
        if not isinstance(value, str) or not value:
            raise ValueError("dauth: %s is required" % name)
    if isinstance(release_per, bool) or not isinstance(release_per, int) or not 0 <= release_per <= 100:
        raise ValueError("dauth: release_per must be an integer from 0 to 100")
    if payload_mode is not None and payload_mode not in PAYLOAD_MODES:
        raise ValueError("dauth: payload_mode must be one of %s" % ", ".join(PAYLOAD_MODES))
    if consume_auth is not None and consume_auth not in CONSUME_AUTHS:
        raise ValueError("dauth: consume_auth must be one of %s" % ", ".join(CONSUME_AUTHS))
    if (login_token is None) == (email is None or password is None):
        raise ValueError("dauth: give email and password, or login_token")
    base = auth_server_url or "http://127.0.0.1:8080"
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("dauth: auth_server_url must be an http or https URL")
    api = ApiContext(base_url=base.rstrip("/"), transport=transport or urllib_transport, request_timeout=request_timeout)

    token = login_token
    if token is None:
        # Bound to the app (azp): this login JWT opens no other app's authorize (decisions §8).
        login = api.send("POST", LOGIN_PATH, json_body={"email": email, "password": password, "client_id": client_id})
        answer = _answer(login)
        if login.status != 200:
            raise _refused(login, answer)
        # An owner with a second factor: ``DauthClient.login_mfa`` turns the error's mfa_token and a code
        # into the login_token to call again with.
        raise_if_mfa_required(answer, login.status)
        token = answer.get("token")
        if not isinstance(token, str):
            raise MalformedResponseError("a login answer without token", login.status)

    # The strong defaults apply to the app's first provider only, as in the console and the CLI.
    first_provider = False
    if payload_mode is None or consume_auth is None:
        current = api.send("GET", "/v1/development-api/payload_mode?" + urlencode({"client_id": client_id}), bearer=token)
        answer = _answer(current)
        if current.status == 404 and answer.get("error") == "provider_not_registered":
            first_provider = True
        elif current.status != 200:
            raise _refused(current, answer)
    body: Dict[str, Any] = {"client_id": client_id, "cuid": cuid, "release_per": release_per, "owner_addr": owner_addr}
    mode = payload_mode if payload_mode is not None else ("gcm" if first_provider else None)
    auth = consume_auth if consume_auth is not None else ("client_secret" if first_provider else None)
    if mode is not None:
        body["payload_mode"] = mode
    if auth is not None:
        body["consume_auth"] = auth

    response = api.send("POST", REGISTER_PATH, bearer=token, json_body=body)
    answer = _answer(response)
    if response.status != 200 or answer.get("success") is not True:
        raise _refused(response, answer)

    def text(name: str) -> Optional[str]:
        value = answer.get(name)
        return value if isinstance(value, str) else None

    tx_hash, settled_mode, settled_auth = text("tx_hash"), text("payload_mode"), text("consume_auth")
    if tx_hash is None or settled_mode is None or settled_auth is None:
        raise MalformedResponseError("a registration without tx_hash, payload_mode or consume_auth", response.status)
    return ProviderRegistration(
        tx_hash=tx_hash,
        payload_mode=settled_mode,
        consume_auth=settled_auth,
        encryption_key=text("encryption_key"),
        encryption_iv=text("encryption_iv"),
        gcm_key=text("gcm_key"),
    )
