"""The SDK's exceptions and the spec's error-mapping table.

Each exception carries the exact message the spec's table ("Backend integration error mapping")
names, so logs read like the spec.
"""

from __future__ import annotations

from typing import Optional, Sequence

ENVELOPE_CODE_MEANINGS = {410: "client mismatch", 510: "code expired", 570: "unregistered"}


class DauthError(Exception):
    """Base class of every exception the SDK raises on purpose."""


class MissingJwtError(DauthError):
    """``get_slot_info`` was called without a JWT."""

    def __init__(self) -> None:
        super().__init__("missing jwt")


class ExpiredTokenError(DauthError):
    """The service refused the user's login JWT as expired (envelope message ``EXPIRED_TOKEN``)."""

    def __init__(self) -> None:
        super().__init__("EXPIRED_TOKEN")


class CallbackTimeoutError(DauthError):
    """No callback arrived for the request's ``state`` within the timeout."""

    def __init__(self) -> None:
        super().__init__("authorize callback timeout")


class AuthorizeError(DauthError):
    """Any other failure of the authorize step: refused, unreachable, or a malformed answer."""

    def __init__(
        self,
        reason: str,
        response_status: Optional[int] = None,
        envelope_code: Optional[int] = None,
    ) -> None:
        super().__init__("AUTHORIZE_ERROR: " + reason)
        self.reason = reason
        self.response_status = response_status
        self.envelope_code = envelope_code


class WalletRequiredError(AuthorizeError):
    """Authorize refused the user because they have no PIN wallet yet (HTTP 409, envelope message
    ``wallet_required``; decisions §7). Send the user to PIN set-up, then retry.
    ``to_http_status`` gives 409, not 502."""

    def __init__(self, response_status: Optional[int] = None, envelope_code: Optional[int] = None) -> None:
        super().__init__("wallet_required", response_status=response_status, envelope_code=envelope_code)


class CallbackRejectedError(DauthError):
    """The callback arrived with ``success`` other than 1 (or without a code to exchange)."""

    def __init__(self) -> None:
        super().__init__("authorize callback rejected")


class ShutdownError(DauthError):
    """The client was shut down while the call was pending, or before it started."""

    def __init__(self) -> None:
        super().__init__("shutdown")


class EnvelopeError(DauthError):
    """A well-formed envelope whose ``code`` is not 1 (get_token, refresh, logout)."""

    def __init__(self, operation: str, code: int, service_message: str) -> None:
        meaning = ENVELOPE_CODE_MEANINGS.get(code, "failure")
        super().__init__(
            "%s failed with code %d (%s): %s" % (operation, code, meaning, service_message)
        )
        self.code = code
        self.service_message = service_message


class MalformedResponseError(DauthError):
    """A body that breaks the contract: not JSON, a string ``code``, no slot in ``data``, ..."""

    def __init__(self, what: str, response_status: Optional[int] = None) -> None:
        suffix = "" if response_status is None else " (HTTP %d)" % response_status
        super().__init__("malformed response: " + what + suffix)
        self.response_status = response_status


class RequestFailedError(DauthError):
    """The request got no answer: connection refused or reset, or its timeout passed."""

    def __init__(self, url: str) -> None:
        super().__init__("request to %s failed" % url)


class RefusedRequestError(DauthError):
    """The service answered a request with a failure: its HTTP status and stable error code.

    ``error_code`` is the body's ``error`` member (decisions §2), ``None`` when it had none. Each call
    family has its own subclass.
    """

    _what = "request refused"

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__("%s (HTTP %d%s): %s" % (self._what, response_status, code_part, message))
        self.response_status = response_status
        self.error_code = error_code


class StatusRequestError(RefusedRequestError):
    """A login-status call (report or check) was answered with a failure."""

    _what = "login status request failed"


class GuestRequestError(RefusedRequestError):
    """A guest call (create, login, upgrade; docs/players.md) was answered with a failure.

    ``error_code`` is e.g. ``invalid_credentials`` (wrong secret), ``email_taken``, ``not_guest`` or
    ``rate_limited``.
    """

    _what = "guest request failed"


class ConsumptionError(RefusedRequestError):
    """A consumption record the service refused (4xx or 5xx); nothing was recorded."""

    _what = "consumption refused"


class DeviceFlowError(RefusedRequestError):
    """The device authorization grant ended without tokens.

    ``error_code``: ``access_denied`` (the player said no), ``expired_token`` (start again),
    ``invalid_client``, ``invalid_grant``, ``rate_limited``, ...
    """

    _what = "device authorization failed"


class ProviderRegistrationError(RefusedRequestError):
    """A content-provider registration (or the sign-in before it) the service refused; nothing was registered.

    ``error_code`` is the service's stable code, e.g. ``reauthentication_required`` (a login older than the
    service's ``STEP_UP_MAX_AGE``), ``not_client_owner``, ``cuid_taken``.
    """

    _what = "provider registration refused"


class FederationError(RefusedRequestError):
    """A federated sign-in or an identity call (docs/federation.md) the service refused.

    The codes a caller acts on have their own classes; others stay this class, e.g. ``identity_in_use``
    (409, linked to another account), ``unknown_provider`` (404), ``id_token_unsupported`` (400: an oauth2
    or steam provider), ``reauthentication_required`` (401: a console JWT older than the service's
    ``STEP_UP_MAX_AGE``), ``provider_unavailable`` (503), ``rate_limited`` (429).
    """

    _what = "federation request failed"


class InvalidIdTokenError(FederationError):
    """401 ``invalid_id_token``: the upstream id_token is not valid for that provider (signature, iss, aud, exp)."""


class AccountLinkRequiredError(FederationError):
    """409 ``account_exists_link_required``: an account with the upstream e-mail exists and is never
    linked automatically; the player signs in to it and links the identity there."""


class LastSignInMethodError(FederationError):
    """409 ``last_sign_in_method``: unlinking would leave the account with no way to sign in."""


class FirstPartyRequiredError(FederationError):
    """403 ``first_party_required``: a change to the account's ways in (link, unlink; decisions §9)
    takes only a fresh login JWT of the dauth console, never the app-bound JWT a game holds (a guest's
    own JWT may still link its first identity). Send the player to the dauth console to do it there."""


class IdTokenReplayedError(FederationError):
    """401 ``id_token_replayed``: the service accepts an upstream id_token once. Get a new one from the
    platform's SDK; retrying the same one is refused again."""


class PlatformRejectedError(FederationError):
    """401 ``platform_rejected``: the platform refused the credential of a platform sign-in (a Steam ticket
    for another app or identity, an expired EOS token, a stale or replayed Game Center signature, a used
    Play Games code). Get a new credential from the platform's SDK; never retry the same one."""


class PlatformBannedError(FederationError):
    """403 ``platform_banned``: the platform bans this account (Steam publisher ban, or VAC ban)."""


def federation_error(response_status: int, error_code: Optional[str], message: str) -> FederationError:
    """The typed error of a federation refusal."""
    kind = {
        "invalid_id_token": InvalidIdTokenError,
        "account_exists_link_required": AccountLinkRequiredError,
        "last_sign_in_method": LastSignInMethodError,
        "first_party_required": FirstPartyRequiredError,
        "id_token_replayed": IdTokenReplayedError,
        "platform_rejected": PlatformRejectedError,
        "platform_banned": PlatformBannedError,
    }.get(error_code or "", FederationError)
    return kind(response_status, error_code, message)


class MfaRequiredError(DauthError):
    """A sign-in's first credential (password, upstream id_token) was right, but the account has a second
    factor (docs/mfa.md): there is no session yet. Ask the player for their authenticator app's current
    code (or a recovery code) and call ``login_mfa(error.mfa_token, code)`` within ``expires_in`` seconds.

    ``methods`` lists the codes the second step accepts (``totp``, ``recovery_code``); ``created`` is a
    federated sign-in's (``None`` for a password sign-in). The ``mfa_token`` stays out of the message and
    the ``repr``, so logging the error does not log it.
    """

    def __init__(
        self, mfa_token: str, methods: Sequence[str], expires_in: Optional[int] = None, created: Optional[bool] = None
    ) -> None:
        super().__init__("mfa_required: the account has a second factor; send a code with login_mfa")
        self.__mfa_token = mfa_token
        self.methods = tuple(methods)
        self.expires_in = expires_in
        self.created = created

    @property
    def mfa_token(self) -> str:
        """Single use, 5 codes at most: the second step's ``mfa_token``."""
        return self.__mfa_token


class LoginMfaError(RefusedRequestError):
    """The second step of a sign-in (``POST /v1/dev-user/login/mfa``) was refused, e.g. ``rate_limited`` (429)."""

    _what = "second sign-in step refused"


class InvalidMfaCodeError(LoginMfaError):
    """401 ``invalid_mfa_code``: the code is wrong or already used. Ask again: an mfa_token takes 5 codes."""


class InvalidMfaTokenError(LoginMfaError):
    """401 ``invalid_mfa_token``: the mfa_token is unknown, expired, used, or ended after 5 codes. Sign in again."""


def login_mfa_error(response_status: int, error_code: Optional[str], message: str) -> LoginMfaError:
    """The typed error of a refused second step."""
    kind = {"invalid_mfa_code": InvalidMfaCodeError, "invalid_mfa_token": InvalidMfaTokenError}.get(
        error_code or "", LoginMfaError
    )
    return kind(response_status, error_code, message)


class SessionOperationError(RefusedRequestError):
    """A session operation (docs/session-keys.md) the service refused; nothing was signed.

    E.g. ``session_key_not_found`` (404: no active grant for this app), ``invalid_token`` (401),
    ``sponsorship_quota_exceeded`` (429).
    """

    _what = "session operation refused"


class OutsideSessionPolicyError(SessionOperationError):
    """403 ``outside_session_policy``: the call at ``call_index`` is outside the wallet policy the
    player granted the app (``reason``: e.g. ``call_not_allowed``, ``value_per_call``,
    ``value_per_day``, ``token_per_day``, ``expired``). Nothing was signed."""

    def __init__(self, response_status: int, message: str, call_index: Optional[int], reason: Optional[str]) -> None:
        super().__init__(response_status, "outside_session_policy", message)
        self.call_index = call_index
        self.reason = reason


OutsideSessionPolicy = OutsideSessionPolicyError
"""The name decisions §8 uses for the exception."""


def to_http_status(error: BaseException) -> int:
    """The HTTP status a backend should answer with when a slot-info call failed.

    Row by row as in the spec's table, plus ``wallet_required`` (409); the row for a cancelled or expired request context
    (499/504) belongs to Go.
    """
    if isinstance(error, ExpiredTokenError):
        return 401
    if isinstance(error, WalletRequiredError):  # before AuthorizeError, which it extends
        return 409
    if isinstance(error, CallbackTimeoutError):
        return 408
    if isinstance(error, AuthorizeError):
        return 502
    if isinstance(error, CallbackRejectedError):
        return 502
    if isinstance(error, ShutdownError):
        return 503
    if isinstance(error, MissingJwtError):
        return 400
    return 500
