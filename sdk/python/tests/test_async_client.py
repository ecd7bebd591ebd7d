"""AsyncDauthClient against the loopback fake of the service, the callback served by the SDK."""

from __future__ import annotations

import asyncio
import time
import unittest

from dauth_sdk import (
    AsyncDauthClient,
    AuthorizeError,
    CallbackTimeoutError,
    ExpiredTokenError,
    MissingJwtError,
    ShutdownError,
    WalletRequiredError,
    callback_handler_class,
    to_http_status,
)

from .fake_dauth import FakeDauth
from .support import RunningServer


class _Late:
    def __init__(self, test: "AsyncSetup") -> None:
        self._test = test

    def handle_callback(self, fields):
        return self._test.client.handle_callback(fields)


class AsyncSetup(unittest.TestCase):
    """The fake service, an app serving the callback, and an asyncio client wired to both."""

    fake_options: dict = {}

    def setUp(self) -> None:
        self.app = RunningServer(callback_handler_class(_Late(self), "/dauth/callback"))  # type: ignore[arg-type]
        self.redirect_uri = self.app.url + "/dauth/callback"
        self.dauth = FakeDauth(self.redirect_uri, **self.fake_options)
        self.client = AsyncDauthClient("client-1", "secret-1", self.redirect_uri, auth_server_url=self.dauth.url)
        self.addCleanup(self.dauth.close)
        self.addCleanup(self.app.close)
        self.addCleanup(self.client.shutdown)


class AsyncClientTest(AsyncSetup):
    def test_concurrent_calls_get_their_own_slots_then_refresh(self) -> None:
        async def run():
            slots = await asyncio.gather(*(self.client.get_slot_info("user-jwt") for _ in range(4)))
            refreshed = await self.client.refresh("rt-1")
            return slots, refreshed

        slots, refreshed = asyncio.run(run())
        self.assertEqual(sorted(slot.code for slot in slots), ["code-1", "code-2", "code-3", "code-4"])
        self.assertTrue(all(slot.id.value == "1234567890123456789" for slot in slots))
        self.assertEqual(refreshed.access_token, "at-refreshed")

    def test_errors_map_like_the_synchronous_client(self) -> None:
        async def error_of(jwt):
            try:
                await self.client.get_slot_info(jwt)
            except Exception as error:  # noqa: BLE001 - the test inspects it
                return error
            return None

        async def run():
            return [await error_of(jwt) for jwt in ("expired-jwt", "no-wallet-jwt", "")]

        expired, no_wallet, missing = asyncio.run(run())
        self.assertIsInstance(expired, ExpiredTokenError)
        self.assertIsInstance(no_wallet, WalletRequiredError)
        self.assertIsInstance(no_wallet, AuthorizeError)
        self.assertEqual((to_http_status(expired), to_http_status(no_wallet)), (401, 409))
        self.assertIsInstance(missing, MissingJwtError)

    def test_times_out_without_a_callback_and_shutdown_ends_a_pending_call(self) -> None:
        self.dauth.callback = "none"

        async def run():
            started = time.monotonic()
            with self.assertRaises(CallbackTimeoutError):
                await self.client.get_slot_info("user-jwt", timeout=0.3)
            waited = time.monotonic() - started
            pending = asyncio.ensure_future(self.client.get_slot_info("user-jwt", timeout=30))
            while len(self.dauth.requests_to("/v1/oauth-meta/authorize")) < 2:
                await asyncio.sleep(0.01)
            started = time.monotonic()
            self.client.shutdown()
            with self.assertRaises(ShutdownError):
                await pending
            return waited, time.monotonic() - started

        waited, after_shutdown = asyncio.run(run())
        self.assertGreaterEqual(waited, 0.29)
        self.assertLess(waited, 2.0)
        self.assertLess(after_shutdown, 1.0)

    def test_a_cancelled_task_forgets_its_call(self) -> None:
        self.dauth.callback = "none"

        async def run():
            task = asyncio.ensure_future(self.client.get_slot_info("user-jwt", timeout=30))
            while not self.dauth.requests_to("/v1/oauth-meta/authorize"):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        asyncio.run(run())
        self.assertEqual(self.client._pending, {})


class AsyncDelayedAuthorize(AsyncSetup):
    fake_options = {"authorize_delay": 1.5}

    def test_returns_the_slot_when_the_exchange_completes_before_authorizes_answer(self) -> None:
        started = time.monotonic()
        slot = asyncio.run(self.client.get_slot_info("user-jwt"))
        self.assertEqual(slot.access_token, "at-code-1")
        self.assertGreaterEqual(time.monotonic() - started, 1.45)
        (token_path, token_at), (authorize_path, authorize_at) = self.dauth.answered_at
        self.assertEqual((token_path, authorize_path), ("/v1/oauth-meta/get_token", "/v1/oauth-meta/authorize"))
        self.assertGreaterEqual(authorize_at - token_at, 1.4)


if __name__ == "__main__":
    unittest.main()
