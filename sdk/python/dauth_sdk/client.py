"""The backend side of dauth's backend integration flow (spec, endpoint 13)."""

from __future__ import annotations

import logging
import math
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from . import api, device, federation, guests, mfa, sessions
from .api import ApiContext, LoginStatus
from .callback import parse_callback
from .device import DeviceAuthorization, DeviceTokens
from .errors import CallbackRejectedError, MissingJwtError, ShutdownError
from .pending import PendingRequest, PendingRequests
from .slot import SlotInfo
from .transport import Transport, urllib_transport

DEFAULT_AUTH_SERVER_URL = "http://127.0.0.1:8080"
DEFAULT_CALLBACK_TIMEOUT = 15.0
"""Default wait for the callback, in seconds (spec, Limits)."""
DEFAULT_REQUEST_TIMEOUT = 15.0
"""Default bound for one HTTP request to the service, in seconds."""


@dataclass(frozen=True)
class StatusReport:
    """The result of a login-status report. Reports never raise: a failure is returned and logged."""

    ok: bool
    status: Optional[LoginStatus] = None
    error: Optional[BaseException] = None


def _require_http_url(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("dauth: %s is required" % name)
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError("dauth: %s must be an http or https URL" % name)
    return value


def _check_timeout(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError("dauth: %s must be a positive number of seconds" % name)
    return float(value)


def _start_call(shut_down: bool, jwt: Optional[str], timeout: Any) -> Tuple[str, float]:
    """What a slot-info call checks before anything is sent, shared by both clients: the client
    is running, the JWT is present, the timeout is valid. Returns the call's fresh ``state`` (32
    random bytes, base64url) and the timeout in seconds."""
    if shut_down:
        raise ShutdownError()
    if not isinstance(jwt, str) or not jwt.strip():
        raise MissingJwtError()
    timeout = _check_timeout("timeout", timeout)
    return secrets.token_urlsafe(32), timeout


class DauthClient:
    """Turns a user's login JWT into slot information via authorize, callback and get_token.

    One instance per process: it holds the pending requests, and the callback must reach the
    process that made the request. Serve the callback route with ``respond_to_callback`` (for
    ``http.server``) or ``wsgi_callback_app``, from a threaded server: ``get_slot_info`` blocks
    its thread while the callback arrives on another.

    Usable as a context manager; leaving the block shuts the client down.
    """

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        redirect_uri: str,
        auth_server_url: Optional[str] = None,
        transport: Optional[Transport] = None,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        logger: Optional[logging.Logger] = None,
    ) -> None:
        """
        :param client_secret: server-side only; never send it, or this client, to a browser.
        :param redirect_uri: the callback URL exactly as registered; sent byte for byte.
        :param auth_server_url: the service's base URL; default ``http://127.0.0.1:8080``.
        :param transport: an HTTP transport (see ``dauth_sdk.transport``); default urllib.
        :param request_timeout: bound for each request to the service, in seconds.
        :param logger: receives the failures the SDK swallows (status reports).
        """
        for name, value in (("client_id", client_id), ("client_secret", client_secret)):
            if not isinstance(value, str) or not value:
                raise ValueError("dauth: %s is required" % name)
        self.client_id = client_id
        self.redirect_uri = _require_http_url("redirect_uri", redirect_uri)
        base = _require_http_url("auth_server_url", auth_server_url or DEFAULT_AUTH_SERVER_URL)
        parts = urlsplit(base)
        if parts.query or parts.fragment:
            raise ValueError("dauth: auth_server_url must not have a query or fragment")
        self.auth_server_url = base.rstrip("/")
        self.__client_secret = client_secret
        self._api = ApiContext(
            base_url=self.auth_server_url,
            transport=transport or urllib_transport,
            request_timeout=_check_timeout("request_timeout", request_timeout),
        )
        self._logger = logger or logging.getLogger("dauth_sdk")
        self._pending = PendingRequests()
        self._shut_down = False

    def __repr__(self) -> str:
        # Spelled out so that the secret never shows in logs or tracebacks.
        return "DauthClient(client_id=%r, redirect_uri=%r, auth_server_url=%r)" % (
            self.client_id,
            self.redirect_uri,
            self.auth_server_url,
        )

    def __enter__(self) -> "DauthClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.shutdown()

    @property
    def is_shut_down(self) -> bool:
        return self._shut_down

    def get_slot_info(self, jwt: Optional[str], timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> SlotInfo:
        """Runs authorize for the user's JWT, waits for the callback carrying this call's
        ``state``, exchanges its code and returns the slot.

        :param jwt: the user's login JWT; missing or empty raises ``MissingJwtError`` (400).
        :param timeout: how long to wait for the callback, in seconds (default 15).
        :raises DauthError: see ``to_http_status`` for the status to answer with.
        """
        state, timeout = _start_call(self._shut_down, jwt, timeout)
        # Registered before authorize: the callback may arrive before authorize's answer does.
        request = self._pending.open(state, timeout)
        try:
            # Authorize runs on its own thread so that the timeout and shutdown end the wait at
            # once, even while the authorize request itself is still in flight.
            threading.Thread(
                target=self._authorize, args=(request, jwt), name="dauth-authorize", daemon=True
            ).start()
            return request.wait()
        finally:
            self._pending.close(state)

    def _authorize(self, request: PendingRequest, jwt: str) -> None:
        try:
            self._send_authorize(request.state, jwt)
        except Exception as error:
            request.fail(error)
        else:
            request.authorized()

    def handle_callback(self, fields: Any) -> str:
        """Handles the fields of a callback POST; call it after answering 200.

        Returns at once: the code is exchanged on a detached thread (spec, endpoint 13, callback
        handling order). A callback whose state no call here waits for is silently ignored, and
        the call waiting for it elsewhere (if any) times out.

        :returns: ``"exchanging"``, ``"rejected"`` or ``"ignored"``, for logs and tests.
        """
        if self._shut_down:
            return "ignored"
        callback = parse_callback(fields)
        if callback is None:
            return "ignored"
        request = self._pending.get(callback.state)
        if request is None or not request.claim():
            return "ignored"
        if not callback.success or callback.code is None:
            request.fail(CallbackRejectedError())
            return "rejected"
        threading.Thread(
            target=self._exchange, args=(request, callback.code), name="dauth-exchange", daemon=True
        ).start()
        return "exchanging"

    def _exchange(self, request: PendingRequest, code: str) -> None:
        try:
            request.resolve(self._exchange_code(code))
        except Exception as error:
            request.fail(error)

    # The two requests of a slot-info call, built once here for both clients (the asyncio client
    # runs them on worker threads).

    def _send_authorize(self, state: str, jwt: str) -> None:
        api.authorize(self._api, self.client_id, self.redirect_uri, state, jwt)

    def _exchange_code(self, code: str) -> SlotInfo:
        grant = {"grant_type": "authorization_code", "code": code}
        return api.get_token(self._api, self.client_id, self.__client_secret, grant)

    def shutdown(self) -> None:
        """Fails every pending call with ``shutdown`` and refuses later slot-info calls."""
        self._shut_down = True
        self._pending.close_all(ShutdownError)

    def refresh(self, refresh_token: str) -> SlotInfo:
        """Exchanges a refresh token for fresh slot information (``grant_type=refresh_token``)."""
        grant = {"grant_type": "refresh_token", "refresh_token": refresh_token}
        return api.get_token(self._api, self.client_id, self.__client_secret, grant)

    def start_device_authorization(self, scope: Optional[str] = None) -> DeviceAuthorization:
        """Starts the device authorization grant (RFC 8628) for a console, TV or launcher.

        Show the player ``user_code`` and ``verification_uri`` (or a QR code of
        ``verification_uri_complete``), then call ``poll_device_token``.
        """
        return device.start_device_authorization(self._api, self.client_id, self.__client_secret, scope)

    def poll_device_token(
        self, authorization: DeviceAuthorization, sleep: Optional[Callable[[float], None]] = None
    ) -> DeviceTokens:
        """Blocks until the player approved (the tokens) or denied (``DeviceFlowError``).

        Honours ``interval`` and ``slow_down``; ``sleep`` replaces ``time.sleep`` (tests, schedulers).
        """
        return device.poll_device_token(self._api, self.client_id, self.__client_secret, authorization, sleep)

    def logout(self, access_token: str) -> None:
        """Revokes the token pair of ``access_token`` and sets the status to ``logged_out``."""
        api.logout(self._api, access_token)

    def create_guest(self) -> guests.NewGuest:
        """A guest account for a new player of this app (docs/players.md); the secret is shown once."""
        return guests.create_guest(self._api, self.client_id)

    def guest_login(self, uuid: str, guest_secret: str) -> guests.GuestSession:
        """Signs a guest in with the uuid and secret the device kept."""
        return guests.guest_login(self._api, uuid, guest_secret)

    def upgrade_guest(self, guest_token: str, email: str, password: str, nickname: Optional[str] = None) -> str:
        """Turns the guest into a full account with e-mail and password; the uuid stays the same."""
        return guests.upgrade_guest(self._api, guest_token, email, password, nickname)

    def federated_login(self, provider: str, id_token: str) -> federation.FederatedLogin:
        """Native sign-in with an upstream ``id_token`` (docs/federation.md): a login JWT bound to this app.

        The first sign-in of an identity creates the account (``created``). Raises
        ``InvalidIdTokenError`` (401), ``IdTokenReplayedError`` (401: this id_token was used already; get
        a new one from the platform, never retry it) or ``AccountLinkRequiredError`` (409: an account with
        that e-mail exists; the player signs in to it at the dauth console and links there). An account
        with a second factor raises ``MfaRequiredError`` (``created`` on it): then ``login_mfa``.
        """
        return federation.federated_login(self._api, self.client_id, provider, id_token)

    def platform_login(self, provider: str, credential: Dict[str, Any]) -> federation.FederatedLogin:
        """Platform sign-in for a backend relaying its game's credential (docs/federation.md).

        ``credential`` is what the platform gave the game: ``{"ticket": hex}`` (``steam_ticket``),
        ``{"id_token": jwt}`` (``epic``), ``{"public_key_url", "signature", "salt", "timestamp",
        "team_player_id", "bundle_id"}`` (``game_center``), ``{"server_auth_code": code}``
        (``google_play_games``). A login JWT bound to this app; the first sign-in creates the account
        (``created``). Raises ``PlatformRejectedError`` (401: get a new credential, never retry it),
        ``PlatformBannedError`` (403) or ``MfaRequiredError`` (then ``login_mfa``).
        """
        return federation.platform_login(self._api, self.client_id, provider, credential)

    def login_mfa(self, mfa_token: str, code: str) -> mfa.LoginSession:
        """The second step of a sign-in that raised ``MfaRequiredError`` (docs/mfa.md).

        Its ``mfa_token`` and the player's current authenticator code or an unused recovery code give the
        session, bound as the first step was. Raises ``InvalidMfaCodeError`` (401: wrong or used code; ask
        again, the token takes 5 codes) or ``InvalidMfaTokenError`` (401: unknown, expired, used or ended
        after 5 codes; sign in again).
        """
        return mfa.login_mfa(self._api, mfa_token, code)

    def list_identities(self, login_token: str) -> List[federation.LinkedIdentity]:
        """The upstream identities linked to the account of ``login_token`` (a login JWT)."""
        return federation.list_identities(self._api, login_token)

    def link_identity(self, login_token: str, provider: str, id_token: str) -> federation.LinkedIdentity:
        """Links an upstream identity, proven by its ``id_token``, to the signed-in account.

        With the app's JWT only a guest may (it becomes a full account, same uuid); any other account
        gets ``FirstPartyRequiredError`` (403): the player links at the dauth console. 409
        ``identity_in_use`` when another account has it.
        """
        return federation.link_identity(self._api, login_token, provider, id_token)

    def unlink_identity(self, login_token: str, identity_id: str) -> None:
        """Unlinks an identity with a console JWT.

        ``FirstPartyRequiredError`` (403) with the app's JWT, ``LastSignInMethodError`` (409) when it is
        the account's last way in.
        """
        federation.unlink_identity(self._api, login_token, identity_id)

    def session_operations(
        self, access_token: str, calls: Sequence[sessions.CallLike]
    ) -> sessions.SessionOperationResult:
        """Acts for the player without their PIN, within the wallet policy they granted this app.

        ``access_token`` is the player's OAuth access token for this app (e.g. the slot's
        ``access_token``); each call is a ``SessionCall(to, value_wei, data)`` or a mapping with
        those keys. Raises ``OutsideSessionPolicyError`` (403, ``call_index`` and ``reason``;
        nothing signed) or ``SessionOperationError`` (404 ``session_key_not_found``, ...).
        """
        return sessions.session_operations(self._api, access_token, calls)

    def report_login(self, access_token: str, user_id: str) -> StatusReport:
        """Reports that the user logged in to this app. Never raises; see ``StatusReport``."""
        return self._report("login", access_token, user_id)

    def report_logout(self, access_token: str, user_id: str) -> StatusReport:
        """Reports that the user logged out, which allows listing their rights on the marketplace."""
        return self._report("logout", access_token, user_id)

    def check_status(self, access_token: str, user_id: str) -> LoginStatus:
        """Reads the user's login status; raises on failure, unlike the reports."""
        return api.check_login_status(self._api, self.client_id, access_token, user_id)

    def _report(self, transition: str, access_token: str, user_id: str) -> StatusReport:
        # The spec: status-update failures must not block the user's login or logout.
        try:
            status = api.update_login_status(self._api, self.client_id, transition, access_token, user_id)
        except Exception as error:
            self._logger.warning("dauth: reporting %s failed: %s", transition, error)
            return StatusReport(ok=False, error=error)
        return StatusReport(ok=True, status=status)
