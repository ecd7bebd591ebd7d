"""End-to-end: ``verify_webhook`` on a delivery a live dauth sent (docs/webhooks.md).

``packages/sdk/test/e2e/liveWebhooks.test.ts`` has a live dauth deliver ``grant.created`` to a receiver and
runs this module with ``DAUTH_E2E_HOOK_FILE`` (the delivery's headers and raw body), ``DAUTH_E2E_HOOK_SECRET``
(the endpoint's secret), ``DAUTH_E2E_HOOK_CLIENT_ID`` and ``DAUTH_E2E_HOOK_USER_ID``. Without
``DAUTH_E2E_URL`` the test skips, so ``sdk/test.sh`` alone still passes.
"""

from __future__ import annotations

import json
import os
import unittest

from dauth_sdk import WebhookVerificationError, verify_webhook

E2E = bool(os.environ.get("DAUTH_E2E_URL")) and bool(os.environ.get("DAUTH_E2E_HOOK_FILE"))


@unittest.skipUnless(E2E, "DAUTH_E2E_HOOK_FILE is not set (packages/sdk/test/e2e/liveWebhooks.test.ts sets it)")
class WebhookE2E(unittest.TestCase):
    def test_a_live_delivery(self) -> None:
        with open(os.environ["DAUTH_E2E_HOOK_FILE"], encoding="utf-8") as file:
            delivery = json.load(file)
        secret = os.environ["DAUTH_E2E_HOOK_SECRET"]
        event = verify_webhook(delivery["body"].encode("utf-8"), delivery["headers"], secret)
        self.assertEqual(event.type, "grant.created")
        self.assertEqual(event.id, delivery["headers"]["Webhook-Id"])
        self.assertEqual(event.data["client_id"], os.environ["DAUTH_E2E_HOOK_CLIENT_ID"])
        self.assertEqual(event.data["user_id"], os.environ["DAUTH_E2E_HOOK_USER_ID"])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(delivery["body"].replace("grant.created", "grant.revoked"), delivery["headers"], secret)


if __name__ == "__main__":
    unittest.main()
