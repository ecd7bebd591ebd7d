"""End-to-end: the SDK against a live dauth, with the SDK's own callback handler on a real port.

``packages/sdk/test/e2e/liveServer.test.ts`` (``npm test``) starts the server, registers the app
and the user, and runs this module with the ``DAUTH_E2E_*`` variables below. Without
``DAUTH_E2E_URL`` the tests skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

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
    AuthorizeError,
    CallbackTimeoutError,
    DauthClient,
    EnvelopeError,
    ExpiredTokenError,
    ShutdownError,
    callback_handler_class,
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
        # The SDK's own ready-made handler serves the registered redirect URI.
        cls.app = serve(
            host_port(cls.redirect_uri),
            callback_handler_class(cls.client, urlsplit(cls.redirect_uri).path),
        )
        cls.get_only_uri = env("DAUTH_E2E_GET_ONLY_URI")
        cls.get_only = GetOnlyRoute(cls.get_only_uri)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.shutdown()
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


if __name__ == "__main__":
    unittest.main()
