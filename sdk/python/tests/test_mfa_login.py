"""Sign-ins of an account with a second factor (docs/mfa.md) against the loopback fake of the service's
routes: the first step raises ``MfaRequiredError``, never a session, and ``login_mfa`` is the second."""

from __future__ import annotations

import asyncio
import json
import unittest

from dauth_sdk import (
    AsyncDauthClient,
    DauthClient,
    InvalidMfaCodeError,
    InvalidMfaTokenError,
    LoginMfaError,
    LoginSession,
    MfaRequiredError,
    register_content_provider,
)

from .fake_player_routes import FakePlayerRoutes


class MfaLoginTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakePlayerRoutes()
        self.addCleanup(self.fake.close)
        self.client = DauthClient("game-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.fake.url)
        self.addCleanup(self.client.shutdown)

    def _mfa_account(self, subject: str, codes: list) -> str:
        uuid = self.client.federated_login("google", self.fake.issue_id_token("google", subject)).uuid
        self.fake.enable_mfa(uuid, codes)
        return uuid

    def test_federated_login_raises_mfa_required_and_login_mfa_gives_the_session(self) -> None:
        uuid = self._mfa_account("mfa-sub-1", ["123456"])
        with self.assertRaises(MfaRequiredError) as raised:
            self.client.federated_login("google", self.fake.issue_id_token("google", "mfa-sub-1"))
        error = raised.exception
        self.assertRegex(error.mfa_token, r"^mfa\.")
        self.assertEqual((error.methods, error.expires_in, error.created), (("totp", "recovery_code"), 300, False))
        # The mfa_token is a capability: logging the error must not print it.
        self.assertNotIn(error.mfa_token, str(error))
        self.assertNotIn(error.mfa_token, repr(error))

        session = self.client.login_mfa(error.mfa_token, "123456")
        last = self.fake.last
        self.assertEqual((last["method"], last["path"]), ("POST", "/v1/dev-user/login/mfa"))
        self.assertEqual(json.loads(last["body"]), {"mfa_token": error.mfa_token, "code": "123456"})
        self.assertEqual(session, LoginSession("jwt." + uuid, uuid))
        self.assertEqual(len(self.client.list_identities(session.token)), 1)

    def test_a_wrong_code_then_a_used_token_are_typed(self) -> None:
        self._mfa_account("mfa-sub-2", ["222222"])
        with self.assertRaises(MfaRequiredError) as raised:
            self.client.federated_login("google", self.fake.issue_id_token("google", "mfa-sub-2"))
        token = raised.exception.mfa_token
        with self.assertRaises(InvalidMfaCodeError) as wrong:
            self.client.login_mfa(token, "000000")
        self.assertIsInstance(wrong.exception, LoginMfaError)
        self.assertEqual((wrong.exception.response_status, wrong.exception.error_code), (401, "invalid_mfa_code"))
        self.client.login_mfa(token, "222222")
        with self.assertRaises(InvalidMfaTokenError) as used:
            self.client.login_mfa(token, "222222")
        self.assertEqual((used.exception.response_status, used.exception.error_code), (401, "invalid_mfa_token"))

    def test_after_five_codes_the_token_is_dead(self) -> None:
        self._mfa_account("mfa-sub-3", ["333333"])
        with self.assertRaises(MfaRequiredError) as raised:
            self.client.federated_login("google", self.fake.issue_id_token("google", "mfa-sub-3"))
        for i in range(5):
            with self.assertRaises(InvalidMfaCodeError):
                self.client.login_mfa(raised.exception.mfa_token, "00000%d" % i)
        with self.assertRaises(InvalidMfaTokenError):
            self.client.login_mfa(raised.exception.mfa_token, "333333")

    def test_bad_input_is_refused_before_sending(self) -> None:
        before = len(self.fake.requests)
        with self.assertRaises(ValueError):
            self.client.login_mfa("", "123456")
        with self.assertRaises(ValueError):
            self.client.login_mfa("mfa.1", "")
        self.assertEqual(len(self.fake.requests), before)

    def test_provider_registration_of_an_owner_with_a_second_factor_raises_and_registers_nothing(self) -> None:
        uuid = self.fake.password_login("owner@example.com", "owner-password-1")
        self.fake.enable_mfa(uuid, ["444444"])
        before = len(self.fake.requests)
        with self.assertRaises(MfaRequiredError) as raised:
            register_content_provider(
                client_id="game-1",
                cuid="cuid-1",
                release_per=10,
                owner_addr="0x" + "1" * 40,
                email="owner@example.com",
                password="owner-password-1",
                auth_server_url=self.fake.url,
            )
        self.assertEqual([r["path"] for r in self.fake.requests[before:]], ["/v1/dev-user/login_devuser"])
        self.assertIsNone(raised.exception.created)
        self.assertEqual(self.client.login_mfa(raised.exception.mfa_token, "444444"), LoginSession("jwt." + uuid, uuid))

    def test_the_async_client_has_the_second_step(self) -> None:
        uuid = self._mfa_account("mfa-sub-4", ["555555"])

        async def run() -> LoginSession:
            client = AsyncDauthClient("game-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.fake.url)
            try:
                try:
                    await client.federated_login("google", self.fake.issue_id_token("google", "mfa-sub-4"))
                except MfaRequiredError as error:
                    return await client.login_mfa(error.mfa_token, "555555")
                raise AssertionError("no MfaRequiredError")
            finally:
                client.shutdown()

        self.assertEqual(asyncio.run(run()), LoginSession("jwt." + uuid, uuid))


if __name__ == "__main__":
    unittest.main()
