"""End-to-end: guest create, login and upgrade against a live dauth (docs/players.md).

``packages/sdk/test/e2e/guests.test.ts`` starts the server, registers an app and runs this module with
``DAUTH_E2E_URL``, ``DAUTH_E2E_CLIENT_ID``, ``DAUTH_E2E_CLIENT_SECRET`` and ``DAUTH_E2E_REDIRECT_URI``.
Without ``DAUTH_E2E_URL`` the tests skip, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import os
import secrets
import unittest

from dauth_sdk import DauthClient, GuestRequestError

E2E = bool(os.environ.get("DAUTH_E2E_URL"))


@unittest.skipUnless(E2E, "DAUTH_E2E_URL is not set (packages/sdk/test/e2e/guests.test.ts sets it)")
class GuestE2E(unittest.TestCase):
    def test_create_login_upgrade(self) -> None:
        client = DauthClient(
            client_id=os.environ["DAUTH_E2E_CLIENT_ID"],
            client_secret=os.environ["DAUTH_E2E_CLIENT_SECRET"],
            redirect_uri=os.environ["DAUTH_E2E_REDIRECT_URI"],
            auth_server_url=os.environ["DAUTH_E2E_URL"],
        )
        try:
            guest = client.create_guest()
            self.assertRegex(guest.uuid, r"^\d+$")
            self.assertEqual(len(guest.guest_secret), 43)
            session = client.guest_login(guest.uuid, guest.guest_secret)
            self.assertEqual(session.uuid, guest.uuid)
            email = "py-%s@example.com" % secrets.token_hex(4)
            self.assertEqual(client.upgrade_guest(session.token, email, "correct horse battery"), guest.uuid)
            with self.assertRaises(GuestRequestError) as caught:
                client.guest_login(guest.uuid, guest.guest_secret)
            self.assertEqual(caught.exception.response_status, 401)
            self.assertEqual(caught.exception.error_code, "invalid_credentials")
        finally:
            client.shutdown()


if __name__ == "__main__":
    unittest.main()
