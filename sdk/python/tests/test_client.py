"""get_slot_info against a loopback fake of the service, with the callback served by the SDK."""

from __future__ import annotations

import json
import threading
import time
import unittest
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from dauth_sdk import (
    AuthorizeError,
    CallbackRejectedError,
    CallbackTimeoutError,
    DauthClient,
    EnvelopeError,
    ExpiredTokenError,
    MissingJwtError,
    ShutdownError,
    WalletRequiredError,
    callback_handler_class,
    to_http_status,
)

from .fake_dauth import FakeDauth
from .support import RunningServer, capture, free_port, quiet_handler, reply


class ClientTestCase(unittest.TestCase):
    """Starts the fake service, an app serving the callback, and a client wired to both."""

    fake_options: dict = {}
    client_options: dict = {}

    def setUp(self) -> None:
        self.app = RunningServer(callback_handler_class(_Late(self), "/dauth/callback"))
        self.redirect_uri = self.app.url + "/dauth/callback"
        self.dauth = FakeDauth(self.redirect_uri, **self.fake_options)
        options = {
            "client_id": "client-1",
            "client_secret": "secret-1",
            "redirect_uri": self.redirect_uri,
            "auth_server_url": self.dauth.url,
        }
        options.update(self.client_options)
        self.client = DauthClient(**options)
        self.addCleanup(self.dauth.close)
        self.addCleanup(self.app.close)
        self.addCleanup(lambda: self.client.shutdown())

    def state_of_first_authorize(self) -> str:
        deadline = time.monotonic() + 5
        while not self.dauth.requests_to("/v1/oauth-meta/authorize"):
            if time.monotonic() > deadline:
                self.fail("no authorize request")
            time.sleep(0.01)
        return self.dauth.requests_to("/v1/oauth-meta/authorize")[0].query["state"][0]


class _Late:
    """Resolves the test's client at request time: the handler class needs it before it exists."""

    def __init__(self, test: ClientTestCase) -> None:
        self._test = test

    def handle_callback(self, fields):
        return self._test.client.handle_callback(fields)


class DelayedAuthorize(ClientTestCase):
    fake_options = {"authorize_delay": 1.5}

    def test_returns_the_slot_when_the_exchange_completes_before_authorizes_answer(self) -> None:
        started = time.monotonic()
        slot = self.client.get_slot_info("user-jwt")
        self.assertEqual((slot.access_token, slot.code), ("at-code-1", "code-1"))
        self.assertGreaterEqual(time.monotonic() - started, 1.45)
        # The race happened: get_token answered first, authorize about 1.5 s later.
        (token_path, token_at), (authorize_path, authorize_at) = self.dauth.answered_at
        self.assertEqual((token_path, authorize_path), ("/v1/oauth-meta/get_token", "/v1/oauth-meta/authorize"))
        self.assertGreaterEqual(authorize_at - token_at, 1.4)


class WalletRequired(ClientTestCase):
    def test_a_user_without_a_pin_wallet_is_wallet_required_409(self) -> None:
        with self.assertRaises(WalletRequiredError) as refused:
            self.client.get_slot_info("no-wallet-jwt")
        self.assertIsInstance(refused.exception, AuthorizeError)
        self.assertEqual(str(refused.exception), "AUTHORIZE_ERROR: wallet_required")
        self.assertEqual((refused.exception.response_status, refused.exception.envelope_code), (409, 409))
        self.assertEqual(to_http_status(refused.exception), 409)
        self.assertEqual(self.dauth.requests_to("/v1/oauth-meta/get_token"), [])


class HappyPath(ClientTestCase):
    def test_returns_the_slot_with_its_19_digit_id_exact(self) -> None:
        slot = self.client.get_slot_info("user-jwt")
        self.assertEqual((slot.id.value, slot.id.kind), ("1234567890123456789", "number"))
        self.assertEqual(slot.access_token, "at-code-1")
        self.assertEqual((slot.refresh_token, slot.expires_in, slot.tr_cnt, slot.code), ("rt-1", 3600, 0, "code-1"))

        authorize = self.dauth.requests_to("/v1/oauth-meta/authorize")[0]
        self.assertEqual(authorize.authorization, "Bearer user-jwt")
        self.assertEqual(authorize.query["respose_type"], ["code"])
        self.assertNotIn("response_type", authorize.query)
        self.assertRegex(authorize.query["state"][0], r"^[A-Za-z0-9_-]{43}$")
        token = json.loads(self.dauth.requests_to("/v1/oauth-meta/get_token")[0].body)
        self.assertEqual(
            token,
            {"client_id": "client-1", "client_secret": "secret-1", "grant_type": "authorization_code", "code": "code-1"},
        )
        self.assertEqual(self.dauth.wait_for_callback_statuses(1), [200])

    def test_matches_concurrent_calls_by_state(self) -> None:
        with ThreadPoolExecutor(max_workers=5) as pool:
            slots = list(pool.map(lambda _: self.client.get_slot_info("user-jwt"), range(5)))
        states = {request.query["state"][0] for request in self.dauth.requests_to("/v1/oauth-meta/authorize")}
        self.assertEqual(len(states), 5)
        self.assertEqual(len({slot.code for slot in slots}), 5)


class ImportedSlot(ClientTestCase):
    fake_options = {"slot_id_json": '"9223372036854775808"'}

    def test_keeps_an_imported_id_as_a_decimal_string(self) -> None:
        slot = self.client.get_slot_info("user-jwt")
        self.assertEqual((slot.id.value, slot.id.kind), ("9223372036854775808", "string"))


class SlowExchange(ClientTestCase):
    fake_options = {"token_delay": 0.4}

    def test_answers_the_callback_before_the_exchange_finishes(self) -> None:
        with ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(self.client.get_slot_info, "user-jwt")
            self.assertEqual(self.dauth.wait_for_callback_statuses(1), [200])
            # Had the route waited for the exchange, the call would have ended before its answer.
            self.assertFalse(call.done())
            call.result()


class NoCallback(ClientTestCase):
    fake_options = {"callback": "none"}

    def test_times_out_when_no_callback_comes(self) -> None:
        started = time.monotonic()
        _, error = capture(lambda: self.client.get_slot_info("user-jwt", timeout=0.3))
        self.assertIsInstance(error, CallbackTimeoutError)
        self.assertEqual(str(error), "authorize callback timeout")
        self.assertEqual(to_http_status(error), 408)
        self.assertGreaterEqual(time.monotonic() - started, 0.29)

    def test_ignores_an_unknown_state_and_the_call_times_out(self) -> None:
        with ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(self.client.get_slot_info, "user-jwt", 0.5)
            self.state_of_first_authorize()
            request = urllib.request.Request(
                self.redirect_uri,
                data=json.dumps({"success": 1, "code": "stolen", "state": "not-pending"}).encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=5) as answer:
                self.assertEqual(answer.status, 200)
            self.assertEqual(self.client.handle_callback({"success": 1, "code": "x", "state": "other"}), "ignored")
            with self.assertRaises(CallbackTimeoutError):
                call.result()
        self.assertEqual(self.dauth.requests_to("/v1/oauth-meta/get_token"), [])

    def test_a_replayed_callback_cannot_change_the_outcome(self) -> None:
        with ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(self.client.get_slot_info, "user-jwt")
            state = self.state_of_first_authorize()
            # A code the fake never issued: the exchange fails with 570...
            self.assertEqual(self.client.handle_callback({"success": 1, "code": "unknown", "state": state}), "exchanging")
            # ...and a replay for the same state is ignored.
            self.assertEqual(self.client.handle_callback({"success": 0, "state": state}), "ignored")
            with self.assertRaises(EnvelopeError) as caught:
                call.result()
            self.assertEqual(caught.exception.code, 570)

    def test_shutdown_fails_pending_calls_and_refuses_later_ones(self) -> None:
        with ThreadPoolExecutor(max_workers=2) as pool:
            calls = [pool.submit(self.client.get_slot_info, jwt) for jwt in ("a", "b")]
            deadline = time.monotonic() + 5
            while len(self.dauth.requests_to("/v1/oauth-meta/authorize")) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            started = time.monotonic()
            self.client.shutdown()
            for call in calls:
                error = call.exception(timeout=5)
                self.assertIsInstance(error, ShutdownError)
                self.assertEqual(to_http_status(error), 503)
            self.assertLess(time.monotonic() - started, 1)
        self.assertTrue(self.client.is_shut_down)
        with self.assertRaises(ShutdownError):
            self.client.get_slot_info("c")
        self.assertEqual(self.client.handle_callback({"success": 1, "code": "x", "state": "y"}), "ignored")


class Rejected(ClientTestCase):
    fake_options = {"callback": "reject"}

    def test_fails_with_callback_rejected(self) -> None:
        _, error = capture(lambda: self.client.get_slot_info("user-jwt"))
        self.assertIsInstance(error, CallbackRejectedError)
        self.assertEqual(to_http_status(error), 502)


class AuthorizeFailures(ClientTestCase):
    def test_expired_jwt(self) -> None:
        _, error = capture(lambda: self.client.get_slot_info("expired-jwt"))
        self.assertIsInstance(error, ExpiredTokenError)
        self.assertEqual(to_http_status(error), 401)

    def test_redirect_uri_mismatch(self) -> None:
        self.dauth.redirect_uri = "http://127.0.0.1:1/registered/"
        _, error = capture(lambda: self.client.get_slot_info("user-jwt"))
        self.assertIsInstance(error, AuthorizeError)
        self.assertEqual((error.reason, error.response_status, error.envelope_code), ("redirect_uri mismatch", 401, 401))
        self.assertEqual(to_http_status(error), 502)

    def test_unreachable_service(self) -> None:
        client = DauthClient("c", "s", "http://127.0.0.1:1/cb", auth_server_url="http://127.0.0.1:%d" % free_port())
        _, error = capture(lambda: client.get_slot_info("user-jwt"))
        self.assertIsInstance(error, AuthorizeError)
        self.assertEqual(to_http_status(error), 502)

    def test_missing_jwt(self) -> None:
        for jwt in ("", "   ", None, 42):
            with self.subTest(jwt=jwt):
                _, error = capture(lambda: self.client.get_slot_info(jwt))  # type: ignore[arg-type]
                self.assertIsInstance(error, MissingJwtError)
                self.assertEqual(to_http_status(error), 400)
        self.assertEqual(self.dauth.requests, [])

    def test_refuses_a_timeout_that_is_not_positive(self) -> None:
        for timeout in (0, -1, float("nan"), True):
            with self.subTest(timeout=timeout), self.assertRaises(ValueError):
                self.client.get_slot_info("j", timeout)


class WrongSecret(ClientTestCase):
    client_options = {"client_secret": "wrong"}

    def test_fails_with_410(self) -> None:
        _, error = capture(lambda: self.client.get_slot_info("user-jwt"))
        self.assertIsInstance(error, EnvelopeError)
        self.assertEqual((error.code, to_http_status(error)), (410, 500))


def _token_case(code: int, message: str) -> type:
    class EnvelopeCode(ClientTestCase):
        fake_options = {"token_response": (200, ('{"code":%d,"message":"%s","data":[]}' % (code, message)).encode())}

        def test_fails_with_the_envelope_code(self) -> None:
            _, error = capture(lambda: self.client.get_slot_info("user-jwt"))
            self.assertIsInstance(error, EnvelopeError)
            self.assertEqual((error.code, error.service_message, to_http_status(error)), (code, message, 500))

    EnvelopeCode.__name__ = EnvelopeCode.__qualname__ = "EnvelopeCode%d" % code
    return EnvelopeCode


EnvelopeCode410 = _token_case(410, "client mismatch")
EnvelopeCode510 = _token_case(510, "code expired")
EnvelopeCode570 = _token_case(570, "unregistered")


class GetOnlyCallbackRoute(unittest.TestCase):
    def test_the_service_post_gets_405_and_the_call_times_out(self) -> None:
        def routes(handler, method):
            # The mistake under test: the callback route only answers GET.
            reply(handler, 200 if method == "GET" else 405)

        app = RunningServer(quiet_handler(routes))
        self.addCleanup(app.close)
        redirect_uri = app.url + "/dauth/callback"
        dauth = FakeDauth(redirect_uri)
        self.addCleanup(dauth.close)
        client = DauthClient("client-1", "secret-1", redirect_uri, auth_server_url=dauth.url)

        with self.assertRaises(CallbackTimeoutError):
            client.get_slot_info("user-jwt", timeout=0.5)
        self.assertEqual(dauth.wait_for_callback_statuses(1), [405])
        self.assertEqual(dauth.requests_to("/v1/oauth-meta/get_token"), [])


class ShutdownInFlight(unittest.TestCase):
    def test_stops_a_call_whose_authorize_is_still_in_flight(self) -> None:
        release = threading.Event()

        def never_answer(handler, _method):
            release.wait(10)
            reply(handler, 500)

        silent = RunningServer(quiet_handler(never_answer))
        self.addCleanup(silent.close)
        self.addCleanup(release.set)
        client = DauthClient("c", "s", "http://127.0.0.1:1/cb", auth_server_url=silent.url)
        with ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(client.get_slot_info, "user-jwt")
            time.sleep(0.1)
            client.shutdown()
            self.assertIsInstance(call.exception(timeout=2), ShutdownError)

    def test_fails_a_call_whose_exchange_is_in_flight(self) -> None:
        app_box = {}
        app = RunningServer(callback_handler_class(_Box(app_box), "/cb"))
        self.addCleanup(app.close)
        dauth = FakeDauth(app.url + "/cb", token_delay=3)
        self.addCleanup(dauth.close)
        client = app_box["client"] = DauthClient("client-1", "secret-1", app.url + "/cb", auth_server_url=dauth.url)
        with ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(client.get_slot_info, "user-jwt")
            deadline = time.monotonic() + 5
            while not dauth.requests_to("/v1/oauth-meta/get_token") and time.monotonic() < deadline:
                time.sleep(0.01)
            client.shutdown()
            self.assertIsInstance(call.exception(timeout=1), ShutdownError)


class _Box:
    def __init__(self, box: dict) -> None:
        self._box = box

    def handle_callback(self, fields):
        return self._box["client"].handle_callback(fields)


class Configuration(unittest.TestCase):
    def test_requires_credentials_and_http_urls(self) -> None:
        valid = {"client_id": "c", "client_secret": "s", "redirect_uri": "https://game.example/cb/"}
        for change, pattern in (
            ({"client_id": ""}, "client_id"),
            ({"client_secret": None}, "client_secret"),
            ({"redirect_uri": "game.example/cb"}, "redirect_uri"),
            ({"redirect_uri": "ftp://game.example/cb"}, "redirect_uri"),
            ({"auth_server_url": "http://x/?a=1"}, "auth_server_url"),
            ({"request_timeout": 0}, "request_timeout"),
        ):
            with self.subTest(change=change), self.assertRaisesRegex(ValueError, pattern):
                DauthClient(**dict(valid, **change))

    def test_defaults_and_keeps_redirect_uri_byte_for_byte(self) -> None:
        client = DauthClient("c", "s", "HTTPS://Game.example:443/cb/")
        self.assertEqual(client.auth_server_url, "http://127.0.0.1:8080")
        self.assertEqual(client.redirect_uri, "HTTPS://Game.example:443/cb/")
        self.assertEqual(DauthClient("c", "s", "https://g/cb", "https://dauth.example//").auth_server_url, "https://dauth.example")

    def test_never_shows_the_secret(self) -> None:
        client = DauthClient("c", "very-secret-value", "https://g/cb")
        self.assertNotIn("very-secret-value", repr(client))
        self.assertNotIn("very-secret-value", str(client))

    def test_context_manager_shuts_down(self) -> None:
        with DauthClient("c", "s", "https://g/cb") as client:
            pass
        self.assertTrue(client.is_shut_down)


if __name__ == "__main__":
    unittest.main()
