"""A loopback stand-in for the dauth service's backend-integration routes.

Written to the contract the SDK is built against (authorize, the callback POST, get_token, logout,
login status). The end-to-end suite against a live server replaces it; tests only use ``url``.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

SLOT_TEMPLATE = (
    '{"id":%s,"access_token":"at-%s","refresh_token":"rt-1","expires_in":3600,'
    '"content_address":"0x5fbdb2315678afecb367f032d93f642f64180aa3","token_nickname":"neo",'
    '"tr_cnt":0,"code":"%s"}'
)


class Recorded:
    def __init__(self, method: str, path: str, query: Dict[str, List[str]], authorization: Optional[str], body: bytes):
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body


class FakeDauth:
    def __init__(
        self,
        redirect_uri: str,
        client_id: str = "client-1",
        client_secret: str = "secret-1",
        callback: str = "success",
        slot_id_json: str = "1234567890123456789",
        token_delay: float = 0.0,
        token_response: Optional[Tuple[int, bytes]] = None,
        authorize_delay: float = 0.0,
    ) -> None:
        self.redirect_uri = redirect_uri
        self.client_id = client_id
        self.client_secret = client_secret
        self.callback = callback  # "success", "reject" or "none"
        self.slot_id_json = slot_id_json
        self.token_delay = token_delay
        self.token_response = token_response
        # Holds authorize's answer back: the callback goes out first, and the answer follows once
        # the code was exchanged and authorize_delay has passed (a slow network, a loaded service).
        self.authorize_delay = authorize_delay
        self._exchanged: Dict[str, threading.Event] = {}
        # (path, time.monotonic()) of each answer, to show the order of a race.
        self.answered_at: List[Tuple[str, float]] = []
        self.requests: List[Recorded] = []
        self.callback_statuses: List[int] = []
        self.callback_answered = threading.Condition()
        self._codes: Dict[str, str] = {}
        self._counter = 0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._route(self, "GET")

            def do_POST(self) -> None:
                fake._route(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def requests_to(self, path: str) -> List[Recorded]:
        return [request for request in self.requests if request.path == path]

    def wait_for_callback_statuses(self, count: int, timeout: float = 5.0) -> List[int]:
        with self.callback_answered:
            self.callback_answered.wait_for(lambda: len(self.callback_statuses) >= count, timeout)
            return list(self.callback_statuses)

    def _route(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        recorded = Recorded(method, url.path, parse_qs(url.query), handler.headers.get("Authorization"), body)
        with self._lock:
            self.requests.append(recorded)
        route = (method, url.path)
        if route == ("GET", "/v1/oauth-meta/authorize"):
            return self._authorize(handler, recorded)
        if route == ("POST", "/v1/oauth-meta/get_token"):
            return self._get_token(handler, recorded)
        if route == ("POST", "/v1/oauth-meta/user/logout"):
            return _reply(handler, 200, b'{"code":1,"message":"success","data":[]}')
        if route == ("POST", "/v1/oauth/status/login"):
            return self._status(handler, recorded, "logged_in")
        if route in (("POST", "/v1/oauth/status/logout"), ("GET", "/v1/oauth/status/check")):
            return self._status(handler, recorded, "logged_out")
        _reply(handler, 404, b'{"success":false,"error":"not_found","message":"no such route"}')

    def _authorize(self, handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        query = request.query
        jwt = (request.authorization or "").replace("Bearer ", "", 1)
        if not jwt:
            return _reply(handler, 401, b'{"code":401,"message":"missing bearer token","data":[]}')
        if jwt == "expired-jwt":
            return _reply(handler, 401, b'{"code":401,"message":"EXPIRED_TOKEN","data":[]}')
        if jwt == "no-wallet-jwt":
            # As the service renders it (docs/backend-integration.md): the message is the identifier.
            return _reply(handler, 409, b'{"code":409,"message":"wallet_required","data":[]}')
        if "response_type" in query or query.get("respose_type") != ["code"]:
            return _reply(handler, 400, b'{"code":400,"message":"respose_type must be code","data":[]}')
        if query.get("client_id") != [self.client_id] or query.get("redirect_uri") != [self.redirect_uri]:
            return _reply(handler, 401, b'{"code":401,"message":"redirect_uri mismatch"}')
        state = query.get("state", [""])[0]
        with self._lock:
            self._counter += 1
            code = "code-%d" % self._counter
            self._codes[code] = "issued"
            exchanged = self._exchanged[code] = threading.Event()
        if self.authorize_delay:
            threading.Thread(target=self._send_callback, args=(state, code), daemon=True).start()
            exchanged.wait(5)
            time.sleep(self.authorize_delay)
            with self._lock:
                self.answered_at.append((request.path, time.monotonic()))
            return _reply(handler, 200, b'{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}')
        _reply(handler, 200, b'{"code":1,"message":{"res":"ok","status_code":200,"status_msg":"slot ready"},"data":[]}')
        # After answering, as the service does.
        threading.Thread(target=self._send_callback, args=(state, code), daemon=True).start()

    def _send_callback(self, state: str, code: str) -> None:
        if self.callback == "none":
            return
        payload = {"success": 1, "code": code, "state": state} if self.callback == "success" else {"success": 0, "code": "", "state": state}
        request = urllib.request.Request(
            self.redirect_uri,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = -1
        with self.callback_answered:
            self.callback_statuses.append(status)
            self.callback_answered.notify_all()

    def _get_token(self, handler: BaseHTTPRequestHandler, request: Recorded) -> None:
        if self.token_delay:
            time.sleep(self.token_delay)
        if self.token_response is not None:
            return _reply(handler, *self.token_response)
        body = json.loads(request.body)

        def failure(code: int, message: str) -> None:
            _reply(handler, 200, json.dumps({"code": code, "message": message, "data": []}).encode())

        if body.get("client_id") != self.client_id:
            return failure(570, "unregistered")
        if body.get("client_secret") != self.client_secret:
            return failure(410, "client mismatch")
        if body.get("grant_type") == "refresh_token":
            if body.get("refresh_token") != "rt-1":
                return failure(510, "refresh token expired")
            return _reply(handler, 200, self._slot_body("refreshed"))
        code = body.get("code", "")
        with self._lock:
            state = self._codes.get(code)
            if state == "issued":
                self._codes[code] = "used"
        if state is None:
            return failure(570, "unregistered")
        if state == "used":
            return failure(510, "code expired")
        _reply(handler, 200, self._slot_body(code))
        with self._lock:
            self.answered_at.append((request.path, time.monotonic()))
            self._exchanged[code].set()

    def _slot_body(self, code: str) -> bytes:
        # Written by hand, like the service writes it: a raw 19-digit number.
        slot = SLOT_TEMPLATE % (self.slot_id_json, code, code)
        return ('{"code":1,"message":"success","data":[%s]}' % slot).encode()

    def _status(self, handler: BaseHTTPRequestHandler, request: Recorded, status: str) -> None:
        if request.authorization != "Bearer at-good":
            return _reply(handler, 401, b'{"success":false,"error":"invalid_token","message":"token is not valid"}')
        user_id = request.query.get("user_id", [None])[0] or json.loads(request.body)["user_id"]
        body = {
            "success": True,
            "message": "status " + status,
            "user_id": user_id,
            "status": status,
            "transfer_enabled": status == "logged_out",
            "timestamp": "2025-01-01T00:00:00.000Z",
        }
        _reply(handler, 200, json.dumps(body).encode())


def _reply(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
