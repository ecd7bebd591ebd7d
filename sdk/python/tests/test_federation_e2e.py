"""End-to-end: native federated sign-in and identities against a live dauth (docs/federation.md).

``packages/sdk/test/e2e/federation.test.ts`` starts the server with an OpenID Connect upstream, registers
an app, signs id_tokens and runs this module with ``DAUTH_E2E_URL``, ``DAUTH_E2E_CLIENT_ID``,
``DAUTH_E2E_CLIENT_SECRET``, ``DAUTH_E2E_REDIRECT_URI``, ``DAUTH_E2E_FED_PROVIDER``,
``DAUTH_E2E_FED_TOKEN_1`` and ``_2`` (two id_tokens of one new subject) and ``DAUTH_E2E_FED_BAD_TOKEN``
(another audience). Without ``DAUTH_E2E_URL`` the tests skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import os
import unittest

from dauth_sdk import DauthClient, FirstPartyRequiredError, InvalidIdTokenError

E2E = bool(os.environ.get("DAUTH_E2E_URL")) and bool(os.environ.get("DAUTH_E2E_FED_PROVIDER"))


@unittest.skipUnless(E2E, "DAUTH_E2E_FED_PROVIDER is not set (packages/sdk/test/e2e/federation.test.ts sets it)")
class FederationE2E(unittest.TestCase):
    def test_sign_in_list_and_refusals(self) -> None:
        provider = os.environ["DAUTH_E2E_FED_PROVIDER"]
        client = DauthClient(
            client_id=os.environ["DAUTH_E2E_CLIENT_ID"],
            client_secret=os.environ["DAUTH_E2E_CLIENT_SECRET"],
            redirect_uri=os.environ["DAUTH_E2E_REDIRECT_URI"],
            auth_server_url=os.environ["DAUTH_E2E_URL"],
        )
        try:
            first = client.federated_login(provider, os.environ["DAUTH_E2E_FED_TOKEN_1"])
            self.assertTrue(first.created)
            self.assertRegex(first.uuid, r"^\d+$")
            again = client.federated_login(provider, os.environ["DAUTH_E2E_FED_TOKEN_2"])
            self.assertEqual((again.uuid, again.created), (first.uuid, False))
            with self.assertRaises(InvalidIdTokenError) as caught:
                client.federated_login(provider, os.environ["DAUTH_E2E_FED_BAD_TOKEN"])
            self.assertEqual(caught.exception.response_status, 401)
            [only] = client.list_identities(first.token)
            self.assertEqual(only.provider, provider)
            # The game's token changes no way in (decisions §9): the console manages identities.
            with self.assertRaises(FirstPartyRequiredError):
                client.unlink_identity(first.token, only.id)
            self.assertEqual(len(client.list_identities(first.token)), 1)
        finally:
            client.shutdown()


if __name__ == "__main__":
    unittest.main()
