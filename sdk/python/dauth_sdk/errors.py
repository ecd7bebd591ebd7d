"""The SDK's exceptions and the spec's error-mapping table.

Each exception carries the exact message the spec's table ("Backend integration error mapping")
names, so logs read like the spec.
"""

from __future__ import annotations

from typing import Optional

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


class StatusRequestError(DauthError):
    """A login-status call (report or check) was answered with a failure."""

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__(
            "login status request failed (HTTP %d%s): %s" % (response_status, code_part, message)
        )
        self.response_status = response_status
        self.error_code = error_code


class GuestRequestError(DauthError):
    """A guest call (create, login, upgrade; docs/players.md) was answered with a failure.

    ``error_code`` is e.g. ``invalid_credentials`` (wrong secret), ``email_taken``, ``not_guest`` or
    ``rate_limited``.
    """

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__("guest request failed (HTTP %d%s): %s" % (response_status, code_part, message))
        self.response_status = response_status
        self.error_code = error_code


class ConsumptionError(DauthError):
    """A consumption record the service refused (4xx or 5xx); nothing was recorded."""

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__("consumption refused (HTTP %d%s): %s" % (response_status, code_part, message))
        self.response_status = response_status
        self.error_code = error_code


class DeviceFlowError(DauthError):
    """The device authorization grant ended without tokens.

    ``error_code``: ``access_denied`` (the player said no), ``expired_token`` (start again),
    ``invalid_client``, ``invalid_grant``, ``rate_limited``, ...
    """

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__("device authorization failed (HTTP %d%s): %s" % (response_status, code_part, message))
        self.response_status = response_status
        self.error_code = error_code


class ProviderRegistrationError(DauthError):
    """A content-provider registration (or the sign-in before it) the service refused; nothing was registered.

    ``error_code`` is the service's stable code, e.g. ``reauthentication_required`` (a login older than the
    service's ``STEP_UP_MAX_AGE``), ``not_client_owner``, ``cuid_taken``.
    """

    def __init__(self, response_status: int, error_code: Optional[str], message: str) -> None:
        code_part = ", " + error_code if error_code else ""
        super().__init__("provider registration refused (HTTP %d%s): %s" % (response_status, code_part, message))
        self.response_status = response_status
        self.error_code = error_code

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
