"""End-to-end: platform sign-in inside the game against a live dauth (docs/federation.md).

``packages/sdk/test/e2e/platformLogin.test.ts`` starts the server with the four platform kinds pointing at
local fakes, registers an app and runs this module with ``DAUTH_E2E_URL``, ``DAUTH_E2E_CLIENT_ID``,
``DAUTH_E2E_CLIENT_SECRET``, ``DAUTH_E2E_REDIRECT_URI`` and ``DAUTH_E2E_PLATFORM_DESK`` (the fakes'
credential desk: ``GET {desk}/{kind}`` answers a fresh ``{provider, credential}``). Without it the tests
skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import json
import os
import time
import unittest
import urllib.request

from dauth_sdk import DauthClient, PlatformBannedError, PlatformRejectedError

E2E = bool(os.environ.get("DAUTH_E2E_URL")) and bool(os.environ.get("DAUTH_E2E_PLATFORM_DESK"))


def fresh(kind: str, query: str = "") -> dict:
    with urllib.request.urlopen(f"{os.environ['DAUTH_E2E_PLATFORM_DESK']}/{kind}?{query}", timeout=10) as r:
        return json.loads(r.read().decode("utf-8"))


@unittest.skipUnless(E2E, "DAUTH_E2E_PLATFORM_DESK is not set (packages/sdk/test/e2e/platformLogin.test.ts sets it)")
class PlatformE2E(unittest.TestCase):
    def test_each_kind_and_refusals(self) -> None:
        client = DauthClient(
            client_id=os.environ["DAUTH_E2E_CLIENT_ID"],
            client_secret=os.environ["DAUTH_E2E_CLIENT_SECRET"],
            redirect_uri=os.environ["DAUTH_E2E_REDIRECT_URI"],
            auth_server_url=os.environ["DAUTH_E2E_URL"],
        )
        stamp = str(time.time_ns())
        queries = {
            "steam_ticket": "steamid=7656119" + stamp[-10:],
            "epic": "sub=py" + stamp,
            "game_center": "team_player_id=T:_py" + stamp,
            "google_play_games": "player_id=py" + stamp,
        }
        try:
            for kind, query in queries.items():
                offer = fresh(kind, query)
                first = client.platform_login(offer["provider"], offer["credential"])
                self.assertTrue(first.created, kind)
                self.assertRegex(first.uuid, r"^\d+$")
                again = client.platform_login(offer["provider"], fresh(kind, query)["credential"])
                self.assertEqual((again.uuid, again.created), (first.uuid, False), kind)
                # Each credential is accepted once.
                with self.assertRaises(PlatformRejectedError) as caught:
                    client.platform_login(offer["provider"], offer["credential"])
                self.assertEqual(caught.exception.response_status, 401)
            steam_offer = fresh("steam_ticket", queries["steam_ticket"])
            signed_in = client.platform_login("steam_ticket", steam_offer["credential"])
            [steam] = client.list_identities(signed_in.token)
            self.assertEqual((steam.provider, steam.provider_name), ("steam", "Steam"))
            with self.assertRaises(PlatformBannedError) as banned:
                banned_offer = fresh("steam_ticket", "steamid=76561190000000001&banned")
                client.platform_login("steam_ticket", banned_offer["credential"])
            self.assertEqual(banned.exception.response_status, 403)
        finally:
            client.shutdown()


if __name__ == "__main__":
    unittest.main()
