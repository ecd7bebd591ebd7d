"""Session operations (issue 27) against a loopback server speaking decisions §8's route."""

from __future__ import annotations

import asyncio
import json
import unittest

from dauth_sdk import (
    AsyncDauthClient,
    DauthClient,
    OutsideSessionPolicy,
    OutsideSessionPolicyError,
    SessionCall,
    SessionOperationError,
)

from .fake_player_routes import FakePlayerRoutes

GEM = "0x00000000000000000000000000000000000000a1"
ELSEWHERE = "0x00000000000000000000000000000000000000b2"


class SessionOperationsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakePlayerRoutes()
        self.addCleanup(self.fake.close)
        self.fake.policies["nested"] = {"target": GEM, "max_per_call": 100}
        self.fake.policies["spread"] = {"target": GEM, "max_per_call": 100, "spread": True}
        self.client = DauthClient("game-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.fake.url)
        self.addCleanup(self.client.shutdown)

    def test_sends_the_calls_with_the_access_token_and_reads_the_result(self) -> None:
        result = self.client.session_operations(
            "nested", [SessionCall(GEM, 100, "0xa9059cbb"), {"to": GEM, "value": "7"}, SessionCall(GEM)]
        )
        last = self.fake.last
        self.assertEqual((last["path"], last["authorization"]), ("/v1/wallet/session-operations", "Bearer nested"))
        self.assertEqual(
            json.loads(last["body"]),
            {
                "calls": [
                    {"to": GEM, "value": "100", "data": "0xa9059cbb"},
                    {"to": GEM, "value": "7", "data": "0x"},
                    {"to": GEM, "value": "0", "data": "0x"},
                ]
            },
        )
        self.assertEqual(result.user_op_hash, "0x" + "a" * 64)
        self.assertEqual(result.tx_hash, "0x" + "b" * 64)
        self.assertEqual(result.results[2], {"call_index": 2, "to": GEM, "success": True})

    def test_a_batch_hiding_a_forbidden_call_is_outside_the_policy(self) -> None:
        for token in ("nested", "spread"):
            with self.subTest(details=token):
                with self.assertRaises(OutsideSessionPolicy) as caught:
                    self.client.session_operations(token, [SessionCall(GEM, 1), SessionCall(ELSEWHERE)])
                error = caught.exception
                self.assertIsInstance(error, SessionOperationError)
                self.assertEqual(
                    (error.response_status, error.error_code, error.call_index, error.reason),
                    (403, "outside_session_policy", 1, "call_not_allowed"),
                )
                with self.assertRaises(OutsideSessionPolicyError) as over:
                    self.client.session_operations(token, [SessionCall(GEM, 101)])
                self.assertEqual((over.exception.call_index, over.exception.reason), (0, "value_per_call"))

    def test_no_grant_is_session_key_not_found(self) -> None:
        with self.assertRaises(SessionOperationError) as caught:
            self.client.session_operations("no-grant", [SessionCall(GEM)])
        self.assertNotIsInstance(caught.exception, OutsideSessionPolicyError)
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (404, "session_key_not_found"))

    def test_bad_input_is_refused_before_anything_is_sent(self) -> None:
        bad = [
            ("", [SessionCall(GEM)]),
            ("nested", []),
            ("nested", [SessionCall("0x1234")]),
            ("nested", [SessionCall(GEM, -1)]),
            ("nested", [SessionCall(GEM, True)]),
            ("nested", [SessionCall(GEM, "1e18")]),
            ("nested", [SessionCall(GEM, 0, "a9059cbb")]),
            ("nested", [SessionCall(GEM, 0, "0xabc")]),
            ("nested", "not a list"),
        ]
        for token, calls in bad:
            with self.subTest(calls=calls):
                with self.assertRaises(ValueError):
                    self.client.session_operations(token, calls)  # type: ignore[arg-type]
        self.assertEqual(self.fake.requests, [])

    def test_the_async_client_runs_the_same_call(self) -> None:
        async def run() -> None:
            client = AsyncDauthClient("game-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.fake.url)
            try:
                result = await client.session_operations("nested", [SessionCall(GEM, 5)])
                self.assertEqual(len(result.results), 1)
                with self.assertRaises(OutsideSessionPolicyError):
                    await client.session_operations("nested", [SessionCall(ELSEWHERE)])
                login = await client.federated_login("apple", self.fake.issue_id_token("apple", "s-1"))
                self.assertTrue(login.created)
            finally:
                client.shutdown()

        asyncio.run(run())


if __name__ == "__main__":
    unittest.main()
