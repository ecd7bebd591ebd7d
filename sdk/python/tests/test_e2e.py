"""End-to-end: the SDK against a live dauth, with the SDK's own callback handler on a real port.

``packages/sdk/test/e2e/liveServer.test.ts`` (``npm test``) starts the server, registers the app
and the user, and runs this module with the ``DAUTH_E2E_*`` variables below. Without
``DAUTH_E2E_URL`` the tests skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple
from urllib.parse import urlsplit

from dauth_sdk import (
    AsyncDauthClient,
    AuthorizeError,
    CallbackTimeoutError,
    ConsumptionError,
    ContentConsumer,
    DauthClient,
    EnvelopeError,
    ExpiredTokenError,
    ProviderRegistrationError,
    ShutdownError,
    WalletRequiredError,
    callback_handler_class,
    register_content_provider,
    to_http_status,
)

E2E = bool(os.environ.get("DAUTH_E2E_URL"))


def env(name: str) -> str:
    """A required variable: with DAUTH_E2E_URL set, a missing one is a failure, not a skip."""
    value = os.environ.get(name)
    if not value:
        raise AssertionError("%s must be set with DAUTH_E2E_URL" % name)
    return value


def serve(address: Tuple[str, int], handler_class: type) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(address, handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


def host_port(uri: str) -> Tuple[str, int]:
    parts = urlsplit(uri)
    return parts.hostname or "127.0.0.1", parts.port or 80


def get_json(url: str, token: str) -> Tuple[int, Dict[str, Any]]:
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def forged(jwt: str) -> str:
    """The JWT with the first character of its signature changed: well-formed, but not signed."""
    header, payload, signature = jwt.split(".")
    return "%s.%s.%s%s" % (header, payload, "B" if signature[0] == "A" else "A", signature[1:])


class GetOnlyRoute:
    """A route that knows only GET: the service's callback POST is answered 405."""

    def __init__(self, uri: str) -> None:
        self.path = urlsplit(uri).path
        self.posts: List[int] = []
        self._changed = threading.Condition()
        route = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(200 if urlsplit(self.path).path == route.path else 404)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                status = 405 if urlsplit(self.path).path == route.path else 404
                self._answer(status)
                with route._changed:
                    route.posts.append(status)
                    route._changed.notify_all()

            def _answer(self, status: int) -> None:
                self.send_response(status)
                if status == 405:
                    self.send_header("Allow", "GET")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = serve(host_port(uri), Handler)

    def wait_for_posts(self, count: int, timeout: float = 10.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self.posts) >= count, timeout)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Dispatcher:
    """Hands a callback to each client in turn until one knows its state (the same redirect URI
    serves the direct, the delayed and the asyncio clients)."""

    def __init__(self, *clients: Any) -> None:
        self.clients = list(clients)

    def handle_callback(self, fields: Any) -> str:
        for client in self.clients:
            outcome = client.handle_callback(fields)
            if outcome != "ignored":
                return outcome
        return "ignored"


def balance_of(base_url: str, slot: str, cuid: str) -> Tuple[int, int]:
    with urllib.request.urlopen("%s/v1/development-api/balance_adex/%s?cuid=%s" % (base_url, slot, cuid)) as answer:
        body = json.loads(answer.read())
    return int(body["balance"]), int(body["used_balances"])


@unittest.skipUnless(E2E, "DAUTH_E2E_URL is not set (packages/sdk/test/e2e/liveServer.test.ts sets it)")
class LiveServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.url = env("DAUTH_E2E_URL")
        cls.user_id = env("DAUTH_E2E_USER_ID")
        cls.jwt = env("DAUTH_E2E_JWT")
        cls.slot_id = env("DAUTH_E2E_SLOT_ID")
        cls.timeout = int(env("DAUTH_E2E_TIMEOUT_MS")) / 1000.0
        cls.client_id = env("DAUTH_E2E_CLIENT_ID")
        cls.redirect_uri = env("DAUTH_E2E_REDIRECT_URI")
        cls.client = DauthClient(
            client_id=cls.client_id,
            client_secret=env("DAUTH_E2E_CLIENT_SECRET"),
            redirect_uri=cls.redirect_uri,
            auth_server_url=cls.url,
        )
        # Through a proxy that holds authorize's answer back while the callback goes out.
        cls.delayed = DauthClient(
            client_id=cls.client_id,
            client_secret=env("DAUTH_E2E_CLIENT_SECRET"),
            redirect_uri=cls.redirect_uri,
            auth_server_url=env("DAUTH_E2E_DELAYED_URL"),
        )
        cls.dispatcher = Dispatcher(cls.client, cls.delayed)
        # The SDK's own ready-made handler serves the registered redirect URI.
        cls.app = serve(
            host_port(cls.redirect_uri),
            callback_handler_class(cls.dispatcher, urlsplit(cls.redirect_uri).path),  # type: ignore[arg-type]
        )
        cls.get_only_uri = env("DAUTH_E2E_GET_ONLY_URI")
        cls.get_only = GetOnlyRoute(cls.get_only_uri)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.shutdown()
        cls.delayed.shutdown()
        cls.app.shutdown()
        cls.app.server_close()
        cls.get_only.close()

    def get_only_client(self) -> DauthClient:
        client = DauthClient(
            client_id=env("DAUTH_E2E_GET_ONLY_CLIENT_ID"),
            client_secret=env("DAUTH_E2E_GET_ONLY_CLIENT_SECRET"),
            redirect_uri=self.get_only_uri,
            auth_server_url=self.url,
        )
        self.addCleanup(client.shutdown)
        return client

    def validate(self, token: str) -> Tuple[int, Dict[str, Any]]:
        return get_json(self.url + "/v1/oauth/validate", token)

    def test_slot_info_exact_id_second_call_refresh_and_logout(self) -> None:
        first = self.client.get_slot_info(self.jwt)
        # 19 digits, beyond 2**53: the id the service recorded, digit for digit, as a JSON number.
        self.assertEqual((first.id.value, first.id.kind), (self.slot_id, "number"))
        self.assertEqual(len(first.id.value), 19)
        self.assertEqual(int(first.id), int(self.slot_id))
        self.assertEqual(first.content_address, env("DAUTH_E2E_CONTENT_ADDRESS"))
        self.assertEqual(first.token_nickname, env("DAUTH_E2E_NICKNAME"))
        self.assertEqual((first.tr_cnt, first.expires_in), (0, 3600))
        self.assertRegex(first.code or "", r"^[A-Za-z0-9_-]{43}$")
        status, body = self.validate(first.access_token)
        self.assertEqual(status, 200)
        self.assertEqual((body["user_id"], body["client_id"]), (self.user_id, self.client_id))

        second = self.client.get_slot_info(self.jwt)
        self.assertEqual(second.id, first.id)
        self.assertNotEqual(second.access_token, first.access_token)

        refreshed = self.client.refresh(first.refresh_token or "")
        self.assertEqual(refreshed.id, first.id)
        self.assertNotEqual(refreshed.access_token, first.access_token)
        self.assertNotEqual(refreshed.refresh_token, first.refresh_token)
        self.assertEqual(self.validate(refreshed.access_token)[0], 200)

        self.client.logout(refreshed.access_token)
        self.assertEqual(self.validate(refreshed.access_token)[0], 401)
        with self.assertRaises(EnvelopeError) as revoked:
            self.client.refresh(refreshed.refresh_token or "")
        self.assertEqual(revoked.exception.code, 510)
        # Only that pair: the second call's token still works.
        self.assertEqual(self.validate(second.access_token)[0], 200)

    def test_status_reports_are_reflected_by_the_check(self) -> None:
        slot = self.client.get_slot_info(self.jwt)
        login = self.client.report_login(slot.access_token, self.user_id)
        self.assertTrue(login.ok, login.error)
        self.assertEqual(self.client.check_status(slot.access_token, self.user_id).status, "logged_in")
        logout = self.client.report_logout(slot.access_token, self.user_id)
        self.assertTrue(logout.ok, logout.error)
        self.assertIs(logout.status and logout.status.transfer_enabled, True)
        checked = self.client.check_status(slot.access_token, self.user_id)
        self.assertEqual((checked.status, checked.transfer_enabled), ("logged_out", True))

    def test_expired_jwt_is_401_and_an_invalid_one_502(self) -> None:
        with self.assertRaises(ExpiredTokenError) as expired:
            self.client.get_slot_info(env("DAUTH_E2E_EXPIRED_JWT"))
        self.assertEqual(to_http_status(expired.exception), 401)
        with self.assertRaises(AuthorizeError) as invalid:
            self.client.get_slot_info(forged(self.jwt))
        self.assertEqual((invalid.exception.response_status, invalid.exception.envelope_code), (401, 401))
        self.assertEqual(to_http_status(invalid.exception), 502)

    def test_get_only_callback_route_times_out_408(self) -> None:
        client = self.get_only_client()
        posts_before = len(self.get_only.posts)
        started = time.monotonic()
        with self.assertRaises(CallbackTimeoutError) as timed_out:
            client.get_slot_info(self.jwt, timeout=self.timeout)
        waited = time.monotonic() - started
        self.assertEqual(str(timed_out.exception), "authorize callback timeout")
        self.assertEqual(to_http_status(timed_out.exception), 408)
        self.assertGreaterEqual(waited, self.timeout - 0.05)
        # Well below the 15 s default: the call's own timeout ended it.
        self.assertLess(waited, self.timeout + 3.0)
        # The service sent the callback once, and the route refused it.
        self.assertEqual(self.get_only.posts[posts_before:], [405])

    def test_shutdown_fails_a_pending_call_503(self) -> None:
        client = self.get_only_client()
        posts_before = len(self.get_only.posts)
        outcome: List[BaseException] = []

        def call() -> None:
            try:
                client.get_slot_info(self.jwt, timeout=30)
            except BaseException as error:  # noqa: BLE001 - the test inspects it
                outcome.append(error)

        caller = threading.Thread(target=call)
        caller.start()
        # Authorize accepted and the callback refused: the call now only waits.
        self.assertTrue(self.get_only.wait_for_posts(posts_before + 1))
        started = time.monotonic()
        client.shutdown()
        caller.join(5)
        self.assertFalse(caller.is_alive())
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertEqual(len(outcome), 1)
        self.assertIsInstance(outcome[0], ShutdownError)
        self.assertEqual(to_http_status(outcome[0]), 503)
        with self.assertRaises(ShutdownError):
            client.get_slot_info(self.jwt)
        self.assertEqual(len(self.get_only.posts), posts_before + 1)

    def async_client(self, url: str) -> AsyncDauthClient:
        client = AsyncDauthClient(
            client_id=self.client_id,
            client_secret=env("DAUTH_E2E_CLIENT_SECRET"),
            redirect_uri=self.redirect_uri,
            auth_server_url=url,
        )
        self.dispatcher.clients.append(client)
        self.addCleanup(self.dispatcher.clients.remove, client)
        self.addCleanup(client.shutdown)
        return client

    def test_the_slot_comes_back_when_the_exchange_beats_a_delayed_authorize(self) -> None:
        delay = int(env("DAUTH_E2E_DELAY_MS")) / 1000.0
        started = time.monotonic()
        slot = self.delayed.get_slot_info(self.jwt)
        self.assertGreaterEqual(time.monotonic() - started, delay - 0.05)
        self.assertEqual(slot.id.value, self.slot_id)
        self.assertEqual(self.validate(slot.access_token)[0], 200)

        async def run() -> Any:
            return await self.async_client(env("DAUTH_E2E_DELAYED_URL")).get_slot_info(self.jwt)

        started = time.monotonic()
        slot = asyncio.run(run())
        self.assertGreaterEqual(time.monotonic() - started, delay - 0.05)
        self.assertEqual(slot.id.value, self.slot_id)
        self.assertEqual(self.validate(slot.access_token)[0], 200)

    def test_asyncio_client_slot_info_refresh_and_errors(self) -> None:
        client = self.async_client(self.url)

        async def run() -> None:
            first, second = await asyncio.gather(client.get_slot_info(self.jwt), client.get_slot_info(self.jwt))
            self.assertEqual((first.id.value, second.id.value), (self.slot_id, self.slot_id))
            self.assertNotEqual(first.access_token, second.access_token)
            refreshed = await client.refresh(first.refresh_token or "")
            self.assertEqual(refreshed.id, first.id)
            with self.assertRaises(ExpiredTokenError):
                await client.get_slot_info(env("DAUTH_E2E_EXPIRED_JWT"))
            with self.assertRaises(WalletRequiredError):
                await client.get_slot_info(env("DAUTH_E2E_NO_WALLET_JWT"))

        asyncio.run(run())

    def test_a_user_without_a_pin_wallet_is_wallet_required_409(self) -> None:
        with self.assertRaises(WalletRequiredError) as refused:
            self.client.get_slot_info(env("DAUTH_E2E_NO_WALLET_JWT"))
        self.assertIsInstance(refused.exception, AuthorizeError)
        self.assertEqual(refused.exception.reason, "wallet_required")
        self.assertEqual((refused.exception.response_status, refused.exception.envelope_code), (409, 409))
        self.assertEqual(to_http_status(refused.exception), 409)

    def test_consumption_ctr_and_gcm_with_and_without_client_authentication(self) -> None:
        cuid, slot_id = env("DAUTH_E2E_CONTENT_CUID"), env("DAUTH_E2E_CONTENT_SLOT_ID")
        slot = env("DAUTH_E2E_CONTENT_SLOT_ADDRESS")
        client_id = env("DAUTH_E2E_CONTENT_CLIENT_ID")
        forms = {
            "ctr": {"key": env("DAUTH_E2E_CONTENT_CTR_KEY"), "iv": env("DAUTH_E2E_CONTENT_CTR_IV")},
            "gcm": {"key": env("DAUTH_E2E_CONTENT_GCM_KEY")},
        }
        for form, keys in forms.items():
            balance, used = balance_of(self.url, slot, cuid)
            consumer = ContentConsumer(client_id, form, auth_server_url=self.url, **keys)
            first = consumer.record(slot_id, 7, cuid, request_id="py-%s-1" % form)
            self.assertEqual((first.status, first.user_dbkey, first.amount), ("included", slot_id, "7"))
            self.assertEqual((first.balance, first.used_balances), (str(balance - 7), str(used + 7)))
            self.assertRegex(first.tx_hash or "", r"^0x[0-9a-f]{64}$")
            # The same request_id again counts once.
            again = consumer.record(slot_id, 7, cuid, request_id="py-%s-1" % form)
            self.assertEqual(again.tx_hash, first.tx_hash)
            authenticated = ContentConsumer(
                client_id, form, client_secret=env("DAUTH_E2E_CONTENT_CLIENT_SECRET"), auth_server_url=self.url, **keys
            )
            self.assertEqual(authenticated.record(slot_id, "3", cuid).used_balances, str(used + 10))
            with self.assertRaises(ConsumptionError) as refused:
                consumer.record(slot_id, "999999999", cuid)
            self.assertEqual((refused.exception.response_status, refused.exception.error_code), (409, "insufficient_balance"))
            wrong = ContentConsumer(client_id, form, auth_server_url=self.url, **dict(keys, key="ab" * 32))
            with self.assertRaises(ConsumptionError) as forged_payload:
                wrong.record(slot_id, 1, cuid)
            self.assertEqual((forged_payload.exception.response_status, forged_payload.exception.error_code), (401, "invalid_payload"))
            self.assertEqual(balance_of(self.url, slot, cuid), (balance - 10, used + 10))


    def test_register_content_provider_is_gcm_with_client_secret_for_the_first_cuid(self) -> None:
        client_id = env("DAUTH_E2E_PROVIDER_CLIENT_ID")
        owner = {"email": env("DAUTH_E2E_PROVIDER_EMAIL"), "password": env("DAUTH_E2E_PROVIDER_PASSWORD")}
        owner_addr = "0x00000000000000000000000000000000000b0b0b"
        cuid = "py-e2e-%d" % time.time_ns()
        first = register_content_provider(client_id, cuid, 50, owner_addr, auth_server_url=self.url, request_timeout=30, **owner)
        self.assertEqual((first.payload_mode, first.consume_auth), ("gcm", "client_secret"))
        self.assertRegex(first.tx_hash, r"^0x[0-9a-f]{64}$")
        self.assertRegex(first.gcm_key or "", r"^[0-9a-f]{64}$")
        self.assertRegex(first.encryption_key or "", r"^[0-9a-f]{64}$")
        self.assertRegex(first.encryption_iv or "", r"^[0-9a-f]{32}$")
        # A later cuid keeps the app's settings and issues no keys.
        second = register_content_provider(client_id, cuid + "-2", 50, owner_addr, auth_server_url=self.url, request_timeout=30, **owner)
        self.assertEqual((second.payload_mode, second.consume_auth, second.gcm_key, second.encryption_key), ("gcm", "client_secret", None, None))
        # Someone else's login JWT: refused, nothing registered.
        with self.assertRaises(ProviderRegistrationError) as refused:
            register_content_provider(client_id, cuid + "-3", 50, owner_addr, login_token=env("DAUTH_E2E_JWT"), auth_server_url=self.url)
        self.assertEqual((refused.exception.response_status, refused.exception.error_code), (403, "not_client_owner"))

if __name__ == "__main__":
    unittest.main()
