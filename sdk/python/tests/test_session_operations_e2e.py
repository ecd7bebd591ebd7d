"""End-to-end: session operations against a live dauth on its embedded chain (docs/session-keys.md).

``packages/sdk/test/e2e/sessionOperations.test.ts`` starts the server, sets the app's wallet policy, has a
player grant it with the PIN and runs this module with ``DAUTH_E2E_URL``, the app's credentials,
``DAUTH_E2E_ACCESS_TOKEN`` (the player's access token for the app), ``DAUTH_E2E_SESSION_TO`` and
``DAUTH_E2E_SESSION_DATA`` (an allowed call) and ``DAUTH_E2E_SESSION_FORBIDDEN_TO``. Without
``DAUTH_E2E_URL`` the tests skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import os
import unittest

from dauth_sdk import DauthClient, OutsideSessionPolicyError, SessionCall

E2E = bool(os.environ.get("DAUTH_E2E_URL")) and bool(os.environ.get("DAUTH_E2E_ACCESS_TOKEN"))


@unittest.skipUnless(E2E, "DAUTH_E2E_ACCESS_TOKEN is not set (packages/sdk/test/e2e/sessionOperations.test.ts sets it)")
class SessionOperationsE2E(unittest.TestCase):
    def test_within_and_outside_the_policy(self) -> None:
        client = DauthClient(
            client_id=os.environ["DAUTH_E2E_CLIENT_ID"],
            client_secret=os.environ["DAUTH_E2E_CLIENT_SECRET"],
            redirect_uri=os.environ["DAUTH_E2E_REDIRECT_URI"],
            auth_server_url=os.environ["DAUTH_E2E_URL"],
        )
        try:
            access_token, to = os.environ["DAUTH_E2E_ACCESS_TOKEN"], os.environ["DAUTH_E2E_SESSION_TO"]
            allowed = SessionCall(to, 0, os.environ["DAUTH_E2E_SESSION_DATA"])
            done = client.session_operations(access_token, [allowed])
            self.assertRegex(done.user_op_hash, r"^0x[0-9a-f]{64}$")
            self.assertRegex(done.tx_hash or "", r"^0x[0-9a-f]{64}$")
            with self.assertRaises(OutsideSessionPolicyError) as caught:
                client.session_operations(access_token, [allowed, SessionCall(os.environ["DAUTH_E2E_SESSION_FORBIDDEN_TO"])])
            self.assertEqual((caught.exception.response_status, caught.exception.call_index), (403, 1))
            self.assertIsInstance(caught.exception.reason, str)
        finally:
            client.shutdown()


if __name__ == "__main__":
    unittest.main()
