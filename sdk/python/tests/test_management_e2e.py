"""End-to-end: a service account's management client against a live dauth (docs/machines.md).

``packages/sdk/test/e2e/management.test.ts`` starts the server, makes an app, a player who granted it
and a service account, and runs this module with ``DAUTH_E2E_URL``, ``DAUTH_E2E_ORG``,
``DAUTH_E2E_SA_ID``, ``DAUTH_E2E_SA_SECRET``, ``DAUTH_E2E_CLIENT_ID`` and ``DAUTH_E2E_PLAYER``.
Without ``DAUTH_E2E_URL`` the tests skip.
"""

from __future__ import annotations

import os
import secrets
import unittest

from dauth_sdk import ManagementClient, ManagementError

E2E = bool(os.environ.get("DAUTH_E2E_URL")) and bool(os.environ.get("DAUTH_E2E_SA_ID"))


@unittest.skipUnless(E2E, "DAUTH_E2E_URL is not set (packages/sdk/test/e2e/management.test.ts sets it)")
class ManagementE2E(unittest.TestCase):
    def client(self, scopes=None) -> ManagementClient:
        return ManagementClient(
            auth_server_url=os.environ["DAUTH_E2E_URL"],
            client_id=os.environ["DAUTH_E2E_SA_ID"],
            client_secret=os.environ["DAUTH_E2E_SA_SECRET"],
            org_id=os.environ["DAUTH_E2E_ORG"],
            scopes=scopes,
        )

    def test_players_and_pregeneration(self) -> None:
        app = os.environ["DAUTH_E2E_CLIENT_ID"]
        player = os.environ["DAUTH_E2E_PLAYER"]
        management = self.client()
        self.assertIn(player, [p["user_id"] for p in management.all_players(app, page_size=1)])
        self.assertEqual(management.get_player(app, player)["user_id"], player)
        email = "py-%s@example.com" % secrets.token_hex(4)
        made = management.pregenerate_player(app, email=email)
        self.assertTrue(made["created"])
        self.assertRegex(made["wallet_address"], r"^0x[0-9a-fA-F]{40}$")
        self.assertEqual(management.pregenerate_player(app, email=email.upper()), dict(made, created=False))
        with self.assertRaises(ManagementError) as caught:
            self.client(scopes=["players:read"]).revoke_player(app, player)
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "insufficient_scope"))


if __name__ == "__main__":
    unittest.main()
