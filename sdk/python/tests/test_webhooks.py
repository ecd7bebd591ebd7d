"""Webhook verification against deliveries signed by the standardwebhooks npm package
(sdk/vectors/webhooks.json; PyPI is not reachable here, so the npm library's output is the reference)."""

from __future__ import annotations

import json
import unittest
from pathlib import Path

from dauth_sdk.webhooks import WebhookVerificationError, verify_webhook

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "vectors" / "webhooks.json").read_text("utf-8"))


class WebhookVectorsTest(unittest.TestCase):
    def test_every_vector(self) -> None:
        self.assertGreaterEqual(len(VECTORS["deliveries"]), 20)
        for vector in VECTORS["deliveries"]:
            with self.subTest(vector["name"]):
                verify = lambda: verify_webhook(  # noqa: E731
                    vector["body"], vector["headers"], vector["secrets"], now=lambda: vector["now"]
                )
                if vector["expect"]["valid"]:
                    event = verify()
                    self.assertEqual(event.id, vector["headers"]["webhook-id"])
                    self.assertEqual(event.type, vector["expect"]["type"])
                    self.assertEqual(event.data, vector["expect"]["data"])
                else:
                    with self.assertRaises(WebhookVerificationError):
                        verify()

    def test_header_case_and_bytes_body(self) -> None:
        vector = VECTORS["deliveries"][0]
        titled = {k.title(): v for k, v in vector["headers"].items()}
        event = verify_webhook(vector["body"].encode(), titled, vector["secrets"][0], now=lambda: vector["now"])
        self.assertEqual(event.data["client_id"], "c0ffee")


if __name__ == "__main__":
    unittest.main()
