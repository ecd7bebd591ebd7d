"""A complete game backend on http.server: the game client posts the user's dauth login JWT to
/login, the backend turns it into slot information and keeps the tokens server-side.

    DAUTH_CLIENT_ID=... DAUTH_CLIENT_SECRET=... \\
    DAUTH_REDIRECT_URI=http://127.0.0.1:3000/dauth/callback python3 examples/backend.py
"""

import base64
import json
import os
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from dauth_sdk import DauthClient, DauthError, respond_to_callback, to_http_status

dauth = DauthClient(
    client_id=os.environ["DAUTH_CLIENT_ID"],
    client_secret=os.environ["DAUTH_CLIENT_SECRET"],
    # Must equal the registered redirect_uri exactly, and reach this process.
    redirect_uri=os.environ["DAUTH_REDIRECT_URI"],
    auth_server_url=os.environ.get("DAUTH_URL", "http://127.0.0.1:8080"),
)
CALLBACK_PATH = urlsplit(dauth.redirect_uri).path

# Tokens stay on the server; the game client only sees the slot id. Use a real store in production.
sessions = {}
sessions_lock = threading.Lock()


def user_id_of(jwt):
    """The user id is the ``sub`` of the login JWT; the service checks it against the access token."""
    payload = jwt.split(".")[1]
    return str(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"])


class Backend(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path == CALLBACK_PATH:
            # The service POSTs the authorization callback here.
            respond_to_callback(self, dauth)
        elif self.path == "/login":
            self.login(self.read_json())
        elif self.path == "/logout":
            self.logout(self.read_json())
        else:
            self.send_json(404, {"error": "not found"})

    def login(self, body):
        jwt = body.get("jwt")
        try:
            slot = dauth.get_slot_info(jwt)
        except DauthError as error:
            return self.send_json(to_http_status(error), {"error": str(error)})
        user_id = user_id_of(jwt)
        with sessions_lock:
            sessions[slot.id.value] = (slot, user_id)
        # Never blocks the login: a failed report is logged and returned, not raised.
        dauth.report_login(slot.access_token, user_id)
        # The id as a decimal string: exact in every client language.
        self.send_json(200, {"slot_id": slot.id.value, "nickname": slot.token_nickname})

    def logout(self, body):
        with sessions_lock:
            session = sessions.pop(str(body.get("slot_id")), None)
        if session is None:
            return self.send_json(404, {"error": "unknown slot"})
        slot, user_id = session
        dauth.report_logout(slot.access_token, user_id)
        try:
            dauth.logout(slot.access_token)
        except DauthError as error:
            print("logout failed:", error)
        self.send_json(200, {"logged_out": True})

    def read_json(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "3000"))
    # Threaded: a login blocks its thread while the callback arrives on another.
    server = ThreadingHTTPServer(("127.0.0.1", port), Backend)

    def stop(*_):
        # Pending logins fail with "shutdown" (503) instead of hanging until their timeout.
        dauth.shutdown()
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    print("game backend on http://127.0.0.1:%d" % port)
    server.serve_forever()
