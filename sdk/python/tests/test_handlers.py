"""The http.server and WSGI callback routes."""

from __future__ import annotations

import threading
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from socketserver import ThreadingMixIn
from typing import Any, List
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from dauth_sdk import DauthClient, callback_handler_class, respond_to_callback, wsgi_callback_app

from .fake_dauth import FakeDauth
from .support import RunningServer


class Recorder:
    """Stands in for the client. The routes answer before they call it, so reads wait for it."""

    def __init__(self) -> None:
        self._fields: List[Any] = []
        self._changed = threading.Condition()

    def handle_callback(self, fields: Any) -> str:
        with self._changed:
            self._fields.append(fields)
            self._changed.notify_all()
        return "ignored"

    def received(self, count: int) -> List[Any]:
        """The fields received, once there are ``count`` of them (or after a second)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._fields) >= count, timeout=1)
            return list(self._fields)


def post(url: str, body: bytes, content_type: str = "application/json") -> int:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class CallbackHandlerClass(unittest.TestCase):
    def setUp(self) -> None:
        self.recorder = Recorder()
        self.server = RunningServer(callback_handler_class(self.recorder, "/cb"))  # type: ignore[arg-type]
        self.addCleanup(self.server.close)

    def test_reads_json_form_and_query_carriers(self) -> None:
        # The route answers before it hands the fields on, so wait for each one before sending the next:
        # otherwise two callbacks may reach the recorder in either order.
        self.assertEqual(post(self.server.url + "/cb", b'{"success":1,"code":"c","state":"s"}'), 200)
        self.recorder.received(1)
        self.assertEqual(post(self.server.url + "/cb", b"success=1&code=f&state=t", "application/x-www-form-urlencoded"), 200)
        self.recorder.received(2)
        self.assertEqual(post(self.server.url + "/cb?success=1&code=q&state=u", b"", "text/plain"), 200)
        self.assertEqual(
            self.recorder.received(3),
            [
                {"success": 1, "code": "c", "state": "s"},
                {"success": "1", "code": "f", "state": "t"},
                {"success": "1", "code": "q", "state": "u"},
            ],
        )

    def test_accepts_post_only_and_only_at_its_path(self) -> None:
        self.assertEqual(get(self.server.url + "/cb?success=1&code=c&state=s"), 405)
        self.assertEqual(post(self.server.url + "/elsewhere", b"{}"), 404)
        self.assertEqual(self.recorder.received(0), [])

    def test_refuses_an_oversized_body_and_answers_200_to_garbage(self) -> None:
        self.assertEqual(post(self.server.url + "/cb", b"x" * 70_000), 413)
        self.assertEqual(post(self.server.url + "/cb", b"{not json"), 200)
        self.assertEqual(self.recorder.received(1), [{}])


class RespondToCallbackInsideAnApp(unittest.TestCase):
    def test_completes_a_slot_info_call_end_to_end(self) -> None:
        box = {}

        class App(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path == "/dauth/callback":
                    respond_to_callback(self, box["client"])
                else:
                    self.send_response(404)
                    self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        app = RunningServer(App)
        self.addCleanup(app.close)
        dauth = FakeDauth(app.url + "/dauth/callback")
        self.addCleanup(dauth.close)
        client = box["client"] = DauthClient("client-1", "secret-1", app.url + "/dauth/callback", auth_server_url=dauth.url)
        self.addCleanup(client.shutdown)

        slot = client.get_slot_info("user-jwt")
        self.assertEqual(slot.id.value, "1234567890123456789")
        self.assertEqual(dauth.wait_for_callback_statuses(1), [200])


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietWSGIRequestHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class WsgiCallbackApp(unittest.TestCase):
    def start(self, app) -> str:
        server = make_server("127.0.0.1", 0, app, server_class=_ThreadingWSGIServer, handler_class=_QuietWSGIRequestHandler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return "http://127.0.0.1:%d" % server.server_address[1]

    def test_completes_a_slot_info_call_end_to_end(self) -> None:
        box = {}
        url = self.start(lambda environ, start_response: wsgi_callback_app(box["client"])(environ, start_response))
        dauth = FakeDauth(url + "/cb")
        self.addCleanup(dauth.close)
        client = box["client"] = DauthClient("client-1", "secret-1", url + "/cb", auth_server_url=dauth.url)
        self.addCleanup(client.shutdown)

        slot = client.get_slot_info("user-jwt", timeout=5)
        self.assertEqual((slot.id.value, slot.id.kind), ("1234567890123456789", "number"))
        self.assertEqual(dauth.wait_for_callback_statuses(1), [200])

    def test_accepts_post_only_and_bounds_the_body(self) -> None:
        recorder = Recorder()
        url = self.start(wsgi_callback_app(recorder))  # type: ignore[arg-type]
        self.assertEqual(get(url + "/cb"), 405)
        self.assertEqual(post(url + "/cb", b"x" * 70_000), 413)
        self.assertEqual(post(url + "/cb", b"success=1&code=f&state=t", "application/x-www-form-urlencoded"), 200)
        self.assertEqual(recorder.received(1), [{"success": "1", "code": "f", "state": "t"}])


if __name__ == "__main__":
    unittest.main()
