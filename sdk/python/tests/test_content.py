"""The content-consumption helper: the pure-Python AES against vectors from OpenSSL (Node's
crypto), and what ContentConsumer sends to a loopback stand-in of increase_used_content_token.
The live service accepts both forms in tests/test_e2e.py."""

from __future__ import annotations

import base64
import json
import time
import unittest
from http.server import BaseHTTPRequestHandler
from typing import Any, Dict, List, Tuple

from dauth_sdk import ConsumptionError, ContentConsumer, MalformedResponseError, SlotId, consumption_plaintext, gcm_aad
from dauth_sdk.aes import ctr_transform, gcm_seal

from .support import RunningServer, quiet_handler, reply

KEY = bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
PLAINTEXT = b'{"client_id":"c","user_dbkey":"1234567890123456789","amount":"5","cuid":"game-1"}'
SLOT = "1234567890123456789"
GCM_KEY = "1f" * 32
CTR_IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"


class PureAes(unittest.TestCase):
    def test_ctr_matches_openssl_including_the_counter_wrapping_past_all_ones(self) -> None:
        # node -e: createCipheriv('aes-256-ctr', KEY, iv).update(PLAINTEXT), the same vector as
        # packages/sdk/test/contentConsumer.test.ts.
        iv = bytes.fromhex("fffffffffffffffffffffffffffffffe")
        self.assertEqual(
            ctr_transform(KEY, iv, PLAINTEXT).hex(),
            "34bfd42e7c3fab769dc74c20011155c6171e5c52ad287bbaf8ad63b74f2742fdd75bc2b4a2f84eef277c7ef377259e63"
            "a92c3c71291b7274b5b9d8f2941c64c63b2c40a41a38f0ef5b815be51ee4f93135",
        )
        self.assertEqual(ctr_transform(KEY, iv, ctr_transform(KEY, iv, PLAINTEXT)), PLAINTEXT)

    def test_gcm_matches_openssl(self) -> None:
        sealed = gcm_seal(KEY, bytes.fromhex("cafebabefacedbaddecaf888"), PLAINTEXT, b"dauth/content-payload/v1:c")
        self.assertEqual(
            sealed.hex(),
            "dc058b1c8623bf0fc9f71e59eddaace22bc855bd703e6573525fc0324f55e3ec075aa73cb8bd3d3f730a4b6204f118ab"
            "3276f7c7dfa150d39898c2df09871128c618a9ab7a8bb13f1a4a5fb452f255ce8159ef1ecee104e082d1513d02390194e3",
        )

    def test_aes_256_fips_197_vector(self) -> None:
        from dauth_sdk.aes import Aes256

        key = bytes(range(32))
        block = bytes.fromhex("00112233445566778899aabbccddeeff")
        self.assertEqual(Aes256(key).encrypt_block(block).hex(), "8ea2b7ca516745bfeafc49904b496089")


class Service:
    """A loopback stand-in recording each request and answering ``answer``."""

    def __init__(self, status: int, body: Dict[str, Any]) -> None:
        self.received: List[Tuple[str, Dict[str, Any]]] = []

        def routes(handler: BaseHTTPRequestHandler, method: str) -> None:
            length = int(handler.headers.get("Content-Length") or 0)
            self.received.append((handler.headers.get("Authorization") or "", json.loads(handler.rfile.read(length))))
            reply(handler, status, json.dumps(body).encode())

        self.server = RunningServer(quiet_handler(routes))
        self.url = self.server.url


INCLUDED = {
    "success": True,
    "cuid": "game-1",
    "slot": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    "user_dbkey": SLOT,
    "amount": "5",
    "request_id": "r-1",
    "tx_hash": "0x" + "ab" * 32,
    "balance": "95",
    "used_balances": "5",
}


class Consumer(unittest.TestCase):
    def service(self, status: int, body: Dict[str, Any]) -> Service:
        service = Service(status, body)
        self.addCleanup(service.server.close)
        return service

    def test_ctr_form_with_the_plaintext_client_id_and_no_authorization(self) -> None:
        service = self.service(200, INCLUDED)
        consumer = ContentConsumer("client-1", "ctr", key=KEY.hex(), iv=CTR_IV, auth_server_url=service.url)
        result = consumer.record(SlotId(SLOT, "number"), 5, "game-1", request_id="r-1")
        self.assertEqual((result.status, result.tx_hash, result.balance, result.used_balances), ("included", INCLUDED["tx_hash"], "95", "5"))
        authorization, body = service.received[0]
        self.assertEqual((authorization, body["client_id"]), ("", "client-1"))
        plaintext = ctr_transform(KEY, bytes.fromhex(CTR_IV), bytes.fromhex(body["encrypted_message"]))
        self.assertEqual(
            json.loads(plaintext),
            {"client_id": "client-1", "user_dbkey": SLOT, "amount": "5", "cuid": "game-1", "request_id": "r-1"},
        )
        self.assertNotIn(KEY.hex(), repr(consumer))

    def test_gcm_form_with_http_basic_client_authentication(self) -> None:
        service = self.service(202, dict(INCLUDED, status="queued"))
        consumer = ContentConsumer("client 1", "gcm", key=GCM_KEY, client_secret="s3cr:t", auth_server_url=service.url)
        before = int(time.time())
        self.assertEqual(consumer.record(SLOT, "5", "game-1").status, "queued")
        consumer.record(SLOT, "5", "game-1")
        basic = "Basic " + base64.b64encode(b"client+1:s3cr%3At").decode()
        self.assertEqual([authorization for authorization, _ in service.received], [basic, basic])
        messages = [body["encrypted_message"] for _, body in service.received]
        self.assertNotEqual(messages[0], messages[1])  # a fresh IV per message
        raw = bytes.fromhex(messages[0][len("gcm1:") :])
        iv, sealed = raw[:12], raw[12:]
        # Re-sealing the decrypted plaintext under the same IV and AAD gives the same bytes and tag.
        keystream_plaintext = ctr_transform(
            bytes.fromhex(GCM_KEY), iv + b"\0\0\0\2", sealed[:-16]
        )
        payload = json.loads(keystream_plaintext)
        self.assertEqual(gcm_seal(bytes.fromhex(GCM_KEY), iv, keystream_plaintext, gcm_aad("client 1")), sealed)
        self.assertNotEqual(gcm_seal(bytes.fromhex(GCM_KEY), iv, keystream_plaintext, gcm_aad("client 2")), sealed)
        self.assertEqual(
            {k: payload[k] for k in ("client_id", "user_dbkey", "amount", "cuid")},
            {"client_id": "client 1", "user_dbkey": SLOT, "amount": "5", "cuid": "game-1"},
        )
        self.assertTrue(before <= payload["iat"] <= int(time.time()))

    def test_a_refusal_is_a_consumption_error_and_a_truncated_success_malformed(self) -> None:
        refused = self.service(409, {"success": False, "error": "insufficient_balance", "message": "Not enough content tokens"})
        with self.assertRaises(ConsumptionError) as caught:
            ContentConsumer("c", "gcm", key=GCM_KEY, auth_server_url=refused.url).record(SLOT, 1, "g")
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (409, "insufficient_balance"))
        self.assertEqual(str(caught.exception), "consumption refused (HTTP 409, insufficient_balance): Not enough content tokens")
        truncated = self.service(200, {"success": True})
        with self.assertRaises(MalformedResponseError):
            ContentConsumer("c", "gcm", key=GCM_KEY, auth_server_url=truncated.url).record(SLOT, 1, "g")

    def test_bad_key_material_and_bad_records_are_refused_before_sending(self) -> None:
        service = self.service(200, INCLUDED)
        with self.assertRaises(ValueError):
            ContentConsumer("c", "ctr", key=KEY.hex(), iv="ab")
        with self.assertRaises(ValueError):
            ContentConsumer("c", "gcm", key="zz" * 32)
        with self.assertRaises(ValueError):
            ContentConsumer("c", "cbc", key=GCM_KEY)
        consumer = ContentConsumer("c", "gcm", key=GCM_KEY, auth_server_url=service.url)
        for record in ((("12a", 1, "g")), (SLOT, 0, "g"), (SLOT, "1.5", "g"), (SLOT, True, "g"), (SLOT, 1, "")):
            with self.assertRaises(ValueError):
                consumer.record(*record)
        self.assertEqual(service.received, [])
        self.assertEqual(
            consumption_plaintext("c", SLOT, 5, "game-1"),
            PLAINTEXT,
        )


if __name__ == "__main__":
    unittest.main()
