"""The README's example backend (examples/backend.py), run as its own process against the fake."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

from .fake_dauth import FakeDauth
from .support import free_port

ROOT = os.path.join(os.path.dirname(__file__), "..")
# A login JWT whose payload is {"sub":"42"}; the fake service does not check signatures.
JWT = "h.%s.s" % base64.urlsafe_b64encode(b'{"sub":"42"}').decode().rstrip("=")


class ExampleBackend(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        port = free_port()
        cls.base_url = "http://127.0.0.1:%d" % port
        cls.dauth = FakeDauth(cls.base_url + "/dauth/callback")
        env = dict(
            os.environ,
            PYTHONPATH=ROOT,
            DAUTH_CLIENT_ID="client-1",
            DAUTH_CLIENT_SECRET="secret-1",
            DAUTH_REDIRECT_URI=cls.base_url + "/dauth/callback",
            DAUTH_URL=cls.dauth.url,
            PORT=str(port),
        )
        cls.process = subprocess.Popen(
            [sys.executable, "-u", os.path.join(ROOT, "examples", "backend.py")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = cls.process.stdout.readline()
        if not line.startswith("game backend on"):
            cls.tearDownClass()
            raise RuntimeError("the example did not start: %r" % line)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.process.send_signal(signal.SIGTERM)
        try:
            cls.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            cls.process.kill()
            cls.process.wait()
        cls.process.stdout.close()
        cls.dauth.close()

    def post(self, path: str, body: dict):
        request = urllib.request.Request(
            self.base_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            with error:
                return error.code, json.loads(error.read())

    def test_logs_a_user_in_and_out(self) -> None:
        self.assertEqual(self.post("/login", {"jwt": JWT}), (200, {"slot_id": "1234567890123456789", "nickname": "neo"}))
        self.assertEqual(json.loads(self.dauth.requests_to("/v1/oauth/status/login")[-1].body), {"user_id": "42", "client_id": "client-1"})
        self.assertEqual(self.post("/logout", {"slot_id": "1234567890123456789"}), (200, {"logged_out": True}))
        self.assertEqual(len(self.dauth.requests_to("/v1/oauth-meta/user/logout")), 1)

    def test_the_readme_opens_with_the_quick_start_verbatim(self) -> None:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme, open(
            os.path.join(ROOT, "examples", "quickstart.py"), encoding="utf-8"
        ) as source:
            text, quick = readme.read(), source.read().rstrip("\n")
        self.assertLessEqual(len(quick.split("\n")), 15)
        self.assertTrue(text[text.index("```") :].startswith("```python\n" + quick + "\n```"))

    def test_answers_failures_with_the_mapped_status(self) -> None:
        self.assertEqual(self.post("/login", {}), (400, {"error": "missing jwt"}))
        self.assertEqual(self.post("/login", {"jwt": "expired-jwt"}), (401, {"error": "EXPIRED_TOKEN"}))


if __name__ == "__main__":
    unittest.main()
