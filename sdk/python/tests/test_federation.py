"""Federated sign-in and identities (issue 26) against a loopback server speaking decisions §8's routes."""

from __future__ import annotations

import json
import unittest

from dauth_sdk import (
    AccountLinkRequiredError,
    DauthClient,
    FederationError,
    FirstPartyRequiredError,
    IdTokenReplayedError,
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
        self.assertEqual(self.client.federated_login("google", self.fake.issue_id_token("google", "g-77")).uuid, login[len("console.") :])

        with self.assertRaises(FederationError) as in_use:
            self.client.link_identity(self.fake.password_account("other@example.com"), "google", self.fake.issue_id_token("google", "g-77"))
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
            self.client.unlink_identity(self.fake.console_login(created.uuid), only.id)
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (409, "last_sign_in_method"))
        self.assertEqual(len(self.client.list_identities(created.token)), 1)
        with self.assertRaises(FederationError):
            self.client.unlink_identity(created.token, "../../x")
        self.assertEqual(self.fake.last["path"], "/v1/dev-user/identities/..%2F..%2Fx")

    def test_changing_the_ways_in_with_the_games_jwt_is_first_party_required_and_changes_nothing(self) -> None:
        created = self.client.federated_login("apple", self.fake.issue_id_token("apple", "apple-fp-1"))
        [only] = self.client.list_identities(created.token)
        id_token = self.fake.issue_id_token("google", "g-fp-1")
        with self.assertRaises(FirstPartyRequiredError) as linking:
            self.client.link_identity(created.token, "google", id_token)
        self.assertIsInstance(linking.exception, FederationError)
        self.assertEqual((linking.exception.response_status, linking.exception.error_code), (403, "first_party_required"))
        with self.assertRaises(FirstPartyRequiredError):
            self.client.unlink_identity(created.token, only.id)
        self.assertEqual(self.client.list_identities(created.token), [only])
        # The player does it at the console; the refused id_token was not spent.
        self.client.link_identity(self.fake.console_login(created.uuid), "google", id_token)
        self.assertEqual(len(self.client.list_identities(created.token)), 2)

    def test_a_guests_own_jwt_links_its_first_identity_then_no_more(self) -> None:
        guest = self.fake.guest_account()
        self.client.link_identity(guest, "discord", self.fake.issue_id_token("discord", "d-guest"))
        with self.assertRaises(FirstPartyRequiredError):
            self.client.link_identity(guest, "google", self.fake.issue_id_token("google", "g-guest"))
        self.assertEqual(len(self.client.list_identities(guest)), 1)

    def test_an_id_token_presented_again_is_id_token_replayed(self) -> None:
        id_token = self.fake.issue_id_token("apple", "apple-replay")
        first = self.client.federated_login("apple", id_token)
        with self.assertRaises(IdTokenReplayedError) as caught:
            self.client.federated_login("apple", id_token)
        self.assertIsInstance(caught.exception, FederationError)
        self.assertNotIsInstance(caught.exception, InvalidIdTokenError)
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (401, "id_token_replayed"))
        link_token = self.fake.issue_id_token("google", "g-replay")
        self.client.link_identity(self.fake.console_login(first.uuid), "google", link_token)
        with self.assertRaises(IdTokenReplayedError):
            self.client.link_identity(self.fake.console_login(first.uuid), "google", link_token)
        # A new id_token from the platform signs in.
        again = self.client.federated_login("apple", self.fake.issue_id_token("apple", "apple-replay"))
        self.assertEqual((again.uuid, again.created), (first.uuid, False))


if __name__ == "__main__":
    unittest.main()
