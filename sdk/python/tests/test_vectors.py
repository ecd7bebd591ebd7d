"""The shared vectors (sdk/vectors/vectors.json): envelopes, authorize answers, callbacks, error table."""

from __future__ import annotations

import json
import unittest
from http.server import BaseHTTPRequestHandler

from dauth_sdk import (
    AuthorizeError,
    CallbackRejectedError,
    CallbackTimeoutError,
    EnvelopeError,
    ExpiredTokenError,
    MalformedResponseError,
    MissingJwtError,
    ShutdownError,
    SlotId,
    parse_callback,
    read_slot_envelope,
    to_http_status,
    urllib_transport,
)
from dauth_sdk.api import ApiContext, authorize

from .support import VECTORS, RunningServer, quiet_handler, reply


def plain(slot) -> dict:
    """A SlotInfo in the vectors' form: the id as digits plus kind, absent fields left out."""
    fields = {"id": slot.id.value, "id_kind": slot.id.kind}
    for key in ("access_token", "refresh_token", "expires_in", "content_address", "token_nickname", "tr_cnt", "code"):
        value = getattr(slot, key)
        if value is not None:
            fields[key] = value
    return fields


class EnvelopeVectors(unittest.TestCase):
    def test_every_envelope_vector(self) -> None:
        for vector in VECTORS["envelopes"]:
            with self.subTest(vector["name"]):
                body = vector["body"].encode("utf-8")
                expected = vector["expect"]
                if expected["outcome"] == "slot":
                    self.assertEqual(plain(read_slot_envelope(body, vector["http_status"])), expected["slot"])
                elif expected["outcome"] == "envelope_error":
                    with self.assertRaises(EnvelopeError) as caught:
                        read_slot_envelope(body, vector["http_status"])
                    self.assertEqual(caught.exception.code, expected["code"])
                else:
                    with self.assertRaises(MalformedResponseError):
                        read_slot_envelope(body, vector["http_status"])

    def test_the_19_digit_id_survives_a_round_trip(self) -> None:
        for literal, kind in (("1234567890123456789", "number"), ('"1234567890123456789"', "string")):
            body = '{"code":1,"message":"success","data":[{"id":%s,"access_token":"a"}]}' % literal
            slot = read_slot_envelope(body.encode(), 200)
            self.assertEqual((slot.id.value, slot.id.kind), ("1234567890123456789", kind))
            # Written back out with json.dumps, read back in: same digits, same kind.
            again = json.dumps({"code": 1, "message": "success", "data": [{"id": slot.id.to_json(), "access_token": "a"}]})
            self.assertIn(literal, again)
            self.assertEqual(read_slot_envelope(again.encode(), 200).id, slot.id)
            self.assertEqual(int(slot.id), 1234567890123456789)

    def test_slot_ids_come_only_from_exact_values(self) -> None:
        self.assertEqual(SlotId.from_json(9999999999999999999), SlotId("9999999999999999999", "number"))
        self.assertIsNone(SlotId.from_json(1.2345678901234568e18))
        self.assertIsNone(SlotId.from_json(True))
        self.assertIsNone(SlotId.from_json(-1))
        self.assertIsNone(SlotId.from_json("١٢"))  # Arabic-Indic digits are not decimal ASCII
        with self.assertRaises(ValueError):
            SlotId("12", "float")


class AuthorizeVectors(unittest.TestCase):
    current = (200, b"")

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = RunningServer(quiet_handler(lambda handler, _method: reply(handler, *cls.current)))

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.close()

    def test_every_authorize_vector(self) -> None:
        context = ApiContext(base_url=self.server.url, transport=urllib_transport, request_timeout=5.0)
        errors = {"expired_token": ExpiredTokenError, "authorize_error": AuthorizeError}
        for vector in VECTORS["authorize"]:
            with self.subTest(vector["name"]):
                type(self).current = (vector["http_status"], vector["body"].encode("utf-8"))
                call = lambda: authorize(context, "c", "http://127.0.0.1:1/cb", "s", "j")  # noqa: E731
                if vector["expect"] == "accepted":
                    self.assertIsNone(call())
                else:
                    with self.assertRaises(errors[vector["expect"]]):
                        call()


class CallbackVectors(unittest.TestCase):
    def test_every_callback_vector(self) -> None:
        for vector in VECTORS["callbacks"]:
            with self.subTest(vector["name"]):
                parsed = parse_callback(json.loads(vector["body"]))
                expected = vector["expect"]
                if expected is None:
                    self.assertIsNone(parsed)
                else:
                    self.assertIsNotNone(parsed)
                    actual = {"state": parsed.state, "success": parsed.success}
                    if parsed.code is not None:
                        actual["code"] = parsed.code
                    self.assertEqual(actual, expected)


class ErrorMappingTable(unittest.TestCase):
    EXAMPLES = {
        "expired_token": ExpiredTokenError,
        "callback_timeout": CallbackTimeoutError,
        "authorize_error": lambda: AuthorizeError("redirect_uri mismatch", 401, 401),
        "callback_rejected": CallbackRejectedError,
        "shutdown": ShutdownError,
        "missing_jwt": MissingJwtError,
        "envelope_error": lambda: EnvelopeError("get_token", 510, "code expired"),
        "malformed_response": lambda: MalformedResponseError("envelope code is not a number", 200),
        "other": lambda: RuntimeError("boom"),
    }

    def test_row_by_row(self) -> None:
        rows = [row for row in VECTORS["error_mapping"] if "only" not in row]
        self.assertEqual({row["error"] for row in rows}, set(self.EXAMPLES))
        for row in rows:
            with self.subTest(row["error"]):
                error = self.EXAMPLES[row["error"]]()
                self.assertEqual(to_http_status(error), row["status"])
                if "message" in row:
                    self.assertTrue(str(error).startswith(row["message"]), str(error))


if __name__ == "__main__":
    unittest.main()
