"""The device authorization grant (RFC 8628): start, poll honouring interval and slow_down, refusals.

A loopback HTTP server plays the service's two endpoints with RFC 8628's answers in a scripted order;
the live-server suite (packages/sdk/test/e2e/deviceFlow.test.ts) runs the TypeScript SDK against dauth.
"""

from __future__ import annotations

import base64
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple

from dauth_sdk import DEVICE_CODE_GRANT_TYPE, DauthClient, DeviceFlowError


class ScriptedDevice:
    """Answers /oauth/device_authorization once, then /oauth/token from ``polls`` in order."""

    def __init__(self, polls: List[Tuple[int, Dict[str, Any]]]) -> None:
        self.polls = list(polls)
        self.requests: List[Tuple[str, str, Dict[str, Any]]] = []
        script = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                script.requests.append((self.path, self.headers.get("Authorization", ""), body))
                if self.path == "/oauth/device_authorization":
                    status, answer = 200, {
                        "device_code": "dc-1",
                        "user_code": "BCDF-GHJK",
                        "verification_uri": "http://dauth.test/device",
                        "verification_uri_complete": "http://dauth.test/device?user_code=BCDF-GHJK",
                        "expires_in": 600,
                        "interval": 2,
                    }
                else:
                    status, answer = script.polls.pop(0)
                data = json.dumps(answer).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def pending() -> Tuple[int, Dict[str, Any]]:
    return 400, {"success": False, "error": "authorization_pending", "error_description": "keep polling"}


def slow_down(interval: int) -> Tuple[int, Dict[str, Any]]:
    return 400, {"success": False, "error": "slow_down", "interval": interval, "error_description": "slow"}


TOKENS = (
    200,
    {
        "success": True,
        "access_token": "at",
        "token_type": "Bearer",
        "expires_in": 3600,
        "user_id": "42",
        "refresh_token": "rt",
        "id_token": "h.p.s",
    },
)


class DeviceFlow(unittest.TestCase):
    def run_flow(self, polls: List[Tuple[int, Dict[str, Any]]]) -> Tuple[ScriptedDevice, Any, List[float]]:
        service = ScriptedDevice(polls)
        self.addCleanup(service.close)
        client = DauthClient("launcher", "s3cret", "http://127.0.0.1:1/cb", auth_server_url=service.url)
        start = client.start_device_authorization(scope="openid")
        self.assertEqual((start.user_code, start.interval, start.expires_in), ("BCDF-GHJK", 2, 600))
        waits: List[float] = []
        try:
            result: Any = client.poll_device_token(start, sleep=waits.append)
        except DeviceFlowError as error:
            result = error
        return service, result, waits

    def test_polls_while_pending_and_returns_the_tokens(self) -> None:
        service, tokens, waits = self.run_flow([pending(), pending(), TOKENS])
        self.assertEqual((tokens.access_token, tokens.refresh_token, tokens.id_token), ("at", "rt", "h.p.s"))
        self.assertEqual(waits, [2, 2, 2])
        path, authorization, body = service.requests[1]
        self.assertEqual(path, "/oauth/token")
        self.assertEqual(authorization, "Basic " + base64.b64encode(b"launcher:s3cret").decode("ascii"))
        self.assertEqual(body, {"grant_type": DEVICE_CODE_GRANT_TYPE, "device_code": "dc-1"})
        self.assertEqual(service.requests[0][2], {"scope": "openid"})

    def test_slow_down_adds_five_seconds_for_every_later_poll(self) -> None:
        _, tokens, waits = self.run_flow([pending(), slow_down(7), pending(), slow_down(12), TOKENS])
        self.assertEqual(tokens.user_id, "42")
        self.assertEqual(waits, [2, 2, 7, 7, 12])

    def test_denied_and_expired_end_with_device_flow_error(self) -> None:
        for error in ("access_denied", "expired_token"):
            _, result, _ = self.run_flow([pending(), (400, {"error": error, "error_description": error})])
            self.assertIsInstance(result, DeviceFlowError)
            self.assertEqual((result.error_code, result.response_status), (error, 400))

    def test_a_start_without_scope_sends_none(self) -> None:
        service = ScriptedDevice([])
        self.addCleanup(service.close)
        client = DauthClient("launcher", "s3cret", "http://127.0.0.1:1/cb", auth_server_url=service.url)
        start = client.start_device_authorization()
        self.assertEqual(service.requests[0][2], {})
        self.assertEqual(start.device_code, "dc-1")


if __name__ == "__main__":
    unittest.main()
