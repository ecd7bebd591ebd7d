"""The second step of a sign-in for an account with a second factor (docs/mfa.md)."""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

from .api import ApiContext
from .errors import MalformedResponseError, MfaRequiredError, login_mfa_error
from .service import ServiceRefusal, call_service, id_member, text_member


class LoginSession(NamedTuple):
    """A sign-in's session: a login JWT (bound as the first step was) and the account's uuid."""

    token: str
    uuid: str


def raise_if_mfa_required(answer: Mapping[str, Any], status: int = 200) -> None:
    """Raises ``MfaRequiredError`` for the first of two steps (``mfa_required: true``): such an answer has
    no token, and reading it as a session would not be signed in."""
    if answer.get("mfa_required") is not True:
        return
    token, methods = answer.get("mfa_token"), answer.get("methods")
    if not isinstance(token, str) or not token or not isinstance(methods, list) or not all(isinstance(m, str) for m in methods):
        raise MalformedResponseError("mfa_required without mfa_token or methods", status)
    expires_in, created = answer.get("expires_in"), answer.get("created")
    raise MfaRequiredError(
        token,
        methods,
        expires_in if isinstance(expires_in, int) and not isinstance(expires_in, bool) else None,
        created if isinstance(created, bool) else None,
    )


def _refuse(refusal: ServiceRefusal) -> Exception:
    return login_mfa_error(refusal.response_status, refusal.error_code, refusal.message)


def login_mfa(context: ApiContext, mfa_token: str, code: str) -> LoginSession:
    """``POST /v1/dev-user/login/mfa {mfa_token, code}``: the second step, the session."""
    if not isinstance(mfa_token, str) or not mfa_token:
        raise ValueError("dauth: mfa_token is required")
    if not isinstance(code, str) or not code:
        raise ValueError("dauth: code is required")
    obj = call_service(
        context, "POST", "/v1/dev-user/login/mfa", _refuse, body={"mfa_token": mfa_token, "code": code}, require_success=True
    )
    what = "second sign-in step result"
    return LoginSession(text_member(obj, "token", what), id_member(obj, "uuid", what))
