"""The asyncio client: ``AsyncDauthClient``, the awaitable twin of ``DauthClient``.

Standard library only. The wait for the callback is an asyncio future on the caller's loop, so a
timeout, a shutdown or a cancelled task ends the call at once. The HTTP requests themselves run on
worker threads (``asyncio.to_thread`` with the same urllib transport), because the standard library
has no asyncio HTTP client. ``handle_callback`` is thread-safe: call it from an asyncio server
(ASGI, ``asyncio.start_server``) or from a threaded one (``respond_to_callback``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Dict, List, Optional, Sequence

from . import api
from .callback import parse_callback
from .client import DEFAULT_CALLBACK_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DauthClient, StatusReport, _start_call
from .errors import CallbackRejectedError, CallbackTimeoutError, ShutdownError
from .federation import FederatedLogin, LinkedIdentity
from .mfa import LoginSession
from .sessions import CallLike, SessionOperationResult
from .slot import SlotInfo
from .transport import Transport


class _Pending:
    """A call waiting for its callback: ``waiting`` until claimed (the timeout then stops), then
    ``exchanging``; its future ends once, with a slot or an error."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.future: "asyncio.Future[SlotInfo]" = loop.create_future()
        self.claimed = False
        self.timer = loop.call_later(timeout, self.fail, CallbackTimeoutError())

    def fail(self, error: BaseException) -> None:
        """On the loop's thread only."""
        self.timer.cancel()
        if not self.future.done():
            self.future.set_exception(error)

    def resolve(self, slot: SlotInfo) -> None:
        if not self.future.done():
            self.future.set_result(slot)


class AsyncDauthClient:
    """Turns a user's login JWT into slot information, with awaitable calls.

    Same arguments and errors as ``DauthClient``; one instance per process. ``async with`` shuts
    it down on leaving the block.
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
        # The synchronous client validates the configuration and does the non-waiting calls.
        self._sync = DauthClient(
            client_id, client_secret, redirect_uri, auth_server_url, transport, request_timeout, logger
        )
        self.client_id = self._sync.client_id
        self.redirect_uri = self._sync.redirect_uri
        self.auth_server_url = self._sync.auth_server_url
        self._lock = threading.Lock()
        self._pending: Dict[str, _Pending] = {}
        self._shut_down = False

    def __repr__(self) -> str:
        return "AsyncDauthClient(client_id=%r, redirect_uri=%r, auth_server_url=%r)" % (
            self.client_id,
            self.redirect_uri,
            self.auth_server_url,
        )

    async def __aenter__(self) -> "AsyncDauthClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.shutdown()

    @property
    def is_shut_down(self) -> bool:
        return self._shut_down

    async def get_slot_info(self, jwt: Optional[str], timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> SlotInfo:
        """Runs authorize, waits for the callback carrying this call's ``state``, exchanges its
        code and returns the slot. Errors as ``DauthClient.get_slot_info``."""
        state, timeout = _start_call(self._shut_down, jwt, timeout)
        pending = _Pending(asyncio.get_running_loop(), timeout)
        # Registered before authorize: the callback may arrive before authorize's answer does.
        with self._lock:
            if self._shut_down:
                pending.timer.cancel()
                raise ShutdownError()
            self._pending[state] = pending
        try:
            # The requests themselves are the synchronous twin's, run on a worker thread.
            authorize = asyncio.ensure_future(
                asyncio.to_thread(self._sync._send_authorize, state, jwt)  # noqa: SLF001
            )
            await asyncio.wait({authorize, pending.future}, return_when=asyncio.FIRST_COMPLETED)
            if pending.future.done() and pending.future.exception() is not None:
                # A timeout or shutdown ends the call even while authorize is in flight.
                authorize.add_done_callback(_retrieve)
                return pending.future.result()
            # Authorize answered, or the slot arrived first: the slot counts once authorize has
            # answered too, so that an authorize failure is never hidden by a callback racing it.
            await authorize
            return await pending.future
        finally:
            with self._lock:
                self._pending.pop(state, None)
            pending.timer.cancel()

    def handle_callback(self, fields: Any) -> str:
        """Handles the fields of a callback POST; call it after answering 200. Thread-safe; the
        code is exchanged in a detached task. Returns ``"exchanging"``, ``"rejected"`` or
        ``"ignored"``."""
        if self._shut_down:
            return "ignored"
        callback = parse_callback(fields)
        if callback is None:
            return "ignored"
        with self._lock:
            pending = self._pending.get(callback.state)
            if pending is None or pending.claimed or pending.future.done():
                return "ignored"
            pending.claimed = True
        pending.loop.call_soon_threadsafe(pending.timer.cancel)
        if not callback.success or callback.code is None:
            pending.loop.call_soon_threadsafe(pending.fail, CallbackRejectedError())
            return "rejected"
        asyncio.run_coroutine_threadsafe(self._exchange(pending, callback.code), pending.loop)
        return "exchanging"

    async def _exchange(self, pending: _Pending, code: str) -> None:
        try:
            slot = await asyncio.to_thread(self._sync._exchange_code, code)  # noqa: SLF001
        except Exception as error:
            pending.fail(error)
        else:
            pending.resolve(slot)

    def shutdown(self) -> None:
        """Fails every pending call with ``shutdown`` and refuses later slot-info calls."""
        with self._lock:
            self._shut_down = True
            pendings = list(self._pending.values())
        self._sync.shutdown()
        for pending in pendings:
            pending.loop.call_soon_threadsafe(pending.fail, ShutdownError())

    async def refresh(self, refresh_token: str) -> SlotInfo:
        """Exchanges a refresh token for fresh slot information."""
        return await asyncio.to_thread(self._sync.refresh, refresh_token)

    async def logout(self, access_token: str) -> None:
        """Revokes the token pair of ``access_token`` and sets the status to ``logged_out``."""
        await asyncio.to_thread(self._sync.logout, access_token)

    async def federated_login(self, provider: str, id_token: str) -> FederatedLogin:
        """Native sign-in with an upstream ``id_token``; see ``DauthClient.federated_login``."""
        return await asyncio.to_thread(self._sync.federated_login, provider, id_token)

    async def platform_login(self, provider: str, credential: Dict[str, Any]) -> FederatedLogin:
        """Platform sign-in relaying a game's credential; see ``DauthClient.platform_login``."""
        return await asyncio.to_thread(self._sync.platform_login, provider, credential)

    async def login_mfa(self, mfa_token: str, code: str) -> LoginSession:
        """The second step of a sign-in that raised ``MfaRequiredError``; see ``DauthClient.login_mfa``."""
        return await asyncio.to_thread(self._sync.login_mfa, mfa_token, code)

    async def list_identities(self, login_token: str) -> List[LinkedIdentity]:
        """The upstream identities linked to the account of ``login_token``."""
        return await asyncio.to_thread(self._sync.list_identities, login_token)

    async def link_identity(self, login_token: str, provider: str, id_token: str) -> LinkedIdentity:
        """Links an upstream identity to the signed-in account."""
        return await asyncio.to_thread(self._sync.link_identity, login_token, provider, id_token)

    async def unlink_identity(self, login_token: str, identity_id: str) -> None:
        """Unlinks an identity; ``FirstPartyRequiredError``, ``LastSignInMethodError`` as ``DauthClient``."""
        await asyncio.to_thread(self._sync.unlink_identity, login_token, identity_id)

    async def session_operations(self, access_token: str, calls: Sequence[CallLike]) -> SessionOperationResult:
        """Acts for the player within the granted wallet policy; see ``DauthClient.session_operations``."""
        return await asyncio.to_thread(self._sync.session_operations, access_token, calls)

    async def report_login(self, access_token: str, user_id: str) -> StatusReport:
        """Reports that the user logged in to this app. Never raises; see ``StatusReport``."""
        return await asyncio.to_thread(self._sync.report_login, access_token, user_id)

    async def report_logout(self, access_token: str, user_id: str) -> StatusReport:
        """Reports that the user logged out."""
        return await asyncio.to_thread(self._sync.report_logout, access_token, user_id)

    async def check_status(self, access_token: str, user_id: str) -> api.LoginStatus:
        """Reads the user's login status; raises on failure, unlike the reports."""
        return await asyncio.to_thread(self._sync.check_status, access_token, user_id)


def _retrieve(task: "asyncio.Future[Any]") -> None:
    # The call already ended; read the late authorize outcome so asyncio does not log it.
    if not task.cancelled():
        task.exception()
