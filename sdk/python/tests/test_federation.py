"""Federated sign-in and identities (issue 26) against a loopback server speaking decisions §8's routes."""

from __future__ import annotations

import json
import unittest

from dauth_sdk import (
    AccountLinkRequiredError,
    DauthClient,
    FederationError,
    InvalidIdTokenError,
    LastSignInMethodError,
    LinkedIdentity,
)

from .fake_player_routes import FakePlayerRoutes


class FederationTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakePlayerRoutes()
        self.addCleanup(self.fake.close)
        self.client = DauthClient("game-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.fake.url)
        self.addCleanup(self.client.shutdown)

    def test_the_first_sign_in_creates_the_account_and_the_next_finds_it(self) -> None:
        id_token = self.fake.issue_id_token("apple", "apple-sub-1", "p1@privaterelay.example")
        first = self.client.federated_login("apple", id_token)
        last = self.fake.last
        self.assertEqual((last["method"], last["path"], last["authorization"]), ("POST", "/v1/dev-user/federated-login", None))
        self.assertEqual(json.loads(last["body"]), {"provider": "apple", "id_token": id_token, "client_id": "game-1"})
        self.assertTrue(first.created)
        self.assertRegex(first.uuid, r"^\d{19}$")
        again = self.client.federated_login("apple", self.fake.issue_id_token("apple", "apple-sub-1"))
        self.assertEqual((again.uuid, again.token, again.created), (first.uuid, first.token, False))

    def test_an_invalid_id_token_is_refused_and_nothing_is_created(self) -> None:
        with self.assertRaises(InvalidIdTokenError) as caught:
            self.client.federated_login("google", "forged.id.token")
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (401, "invalid_id_token"))
        with self.assertRaises(InvalidIdTokenError):
            self.client.federated_login("google", self.fake.issue_id_token("apple", "a-2"))
        self.assertEqual(self.fake.identities, [])

    def test_an_existing_email_needs_a_link_while_signed_in(self) -> None:
        login = self.fake.password_account("taken@example.com")
        id_token = self.fake.issue_id_token("google", "g-77", "taken@example.com")
        with self.assertRaises(AccountLinkRequiredError) as caught:
            self.client.federated_login("google", id_token)
        self.assertEqual(caught.exception.response_status, 409)
        self.assertEqual(self.client.list_identities(login), [])

        linked = self.client.link_identity(login, "google", id_token)
        last = self.fake.last
        self.assertEqual((last["method"], last["path"], last["authorization"]), ("POST", "/v1/dev-user/identities", "Bearer " + login))
        self.assertEqual(json.loads(last["body"]), {"provider": "google", "id_token": id_token})
        self.assertEqual(
            linked,
            LinkedIdentity(linked.id, "google", "Google", "g-77", "taken@example.com", "2026-11-26T12:00:00.000Z"),
        )
        self.assertEqual(self.client.list_identities(login), [linked])
        self.assertEqual(self.client.federated_login("google", self.fake.issue_id_token("google", "g-77")).token, login)

        with self.assertRaises(FederationError) as in_use:
            self.client.link_identity(self.fake.password_account("other@example.com"), "google", id_token)
        self.assertEqual(in_use.exception.error_code, "identity_in_use")
        self.assertNotIsInstance(in_use.exception, AccountLinkRequiredError)

        self.client.unlink_identity(login, linked.id)
        self.assertEqual((self.fake.last["method"], self.fake.last["path"]), ("DELETE", "/v1/dev-user/identities/" + linked.id))
        self.assertEqual(self.client.list_identities(login), [])

    def test_the_last_way_in_is_never_unlinked(self) -> None:
        created = self.client.federated_login("discord", self.fake.issue_id_token("discord", "d-1"))
        [only] = self.client.list_identities(created.token)
        self.assertEqual((only.provider_name, only.email), ("Discord", None))
        with self.assertRaises(LastSignInMethodError) as caught:
            self.client.unlink_identity(created.token, only.id)
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (409, "last_sign_in_method"))
        self.assertEqual(len(self.client.list_identities(created.token)), 1)
        with self.assertRaises(FederationError):
            self.client.unlink_identity(created.token, "../../x")
        self.assertEqual(self.fake.last["path"], "/v1/dev-user/identities/..%2F..%2Fx")


if __name__ == "__main__":
    unittest.main()
