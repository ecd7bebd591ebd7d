"""refresh, logout and the login-status reports."""

from __future__ import annotations

import json
import logging
import unittest

from dauth_sdk import (
    DauthClient,
    EnvelopeError,
    HttpResponse,
    MalformedResponseError,
    StatusRequestError,
    urllib_transport,
)

from .fake_dauth import FakeDauth
from .support import free_port


class TokensAndStatus(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dauth = FakeDauth("http://127.0.0.1:1/cb")
        cls.logger = logging.getLogger("dauth_sdk.tests")
        cls.client = DauthClient(
            "client-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=cls.dauth.url, logger=cls.logger
        )

    @classmethod
    def tearDownClass(cls) -> None:
        cls.dauth.close()

    def test_refresh_exchanges_a_refresh_token_and_keeps_the_id_exact(self) -> None:
        slot = self.client.refresh("rt-1")
        self.assertEqual((slot.id.value, slot.access_token), ("1234567890123456789", "at-refreshed"))
        body = json.loads(self.dauth.requests_to("/v1/oauth-meta/get_token")[-1].body)
        self.assertEqual(
            body,
            {"client_id": "client-1", "client_secret": "secret-1", "grant_type": "refresh_token", "refresh_token": "rt-1"},
        )
        with self.assertRaises(EnvelopeError) as caught:
            self.client.refresh("stale")
        self.assertEqual(caught.exception.code, 510)

    def test_logout_posts_with_the_access_token(self) -> None:
        self.client.logout("at-1")
        self.assertEqual(self.dauth.requests_to("/v1/oauth-meta/user/logout")[-1].authorization, "Bearer at-1")

    def test_logout_refuses_a_string_code(self) -> None:
        def string_code(method, url, headers, body, timeout):
            urllib_transport(method, url, headers, body, timeout)
            return HttpResponse(200, b'{"code":"1","message":"success","data":[]}')

        client = DauthClient("client-1", "secret-1", "http://127.0.0.1:1/cb", auth_server_url=self.dauth.url, transport=string_code)
        with self.assertRaises(MalformedResponseError):
            client.logout("at-1")

    def test_reports_login_and_logout(self) -> None:
        login = self.client.report_login("at-good", "42")
        self.assertTrue(login.ok)
        self.assertEqual((login.status.status, login.status.user_id), ("logged_in", "42"))
        logout = self.client.report_logout("at-good", "42")
        self.assertEqual((logout.status.status, logout.status.transfer_enabled), ("logged_out", True))
        request = self.dauth.requests_to("/v1/oauth/status/logout")[-1]
        self.assertEqual(request.authorization, "Bearer at-good")
        self.assertEqual(json.loads(request.body), {"user_id": "42", "client_id": "client-1"})

    def test_a_refused_report_is_returned_and_logged_never_raised(self) -> None:
        with self.assertLogs(self.logger, level="WARNING") as logs:
            report = self.client.report_login("at-bad", "42")
        self.assertFalse(report.ok)
        self.assertIsInstance(report.error, StatusRequestError)
        self.assertEqual((report.error.response_status, report.error.error_code), (401, "invalid_token"))
        self.assertEqual(len(logs.records), 1)
        self.assertIn("reporting login failed", logs.output[0])
        self.assertNotIn("at-bad", logs.output[0])

    def test_an_unreachable_service_never_raises_into_the_logout_path(self) -> None:
        offline = DauthClient("c", "s", "http://127.0.0.1:1/cb", auth_server_url="http://127.0.0.1:%d" % free_port(), logger=self.logger)
        with self.assertLogs(self.logger, level="WARNING"):
            report = offline.report_logout("at-good", "42")
        self.assertFalse(report.ok)

    def test_check_status_returns_the_result_and_raises_on_failure(self) -> None:
        status = self.client.check_status("at-good", "42")
        self.assertEqual((status.status, status.transfer_enabled, status.user_id), ("logged_out", True, "42"))
        self.assertEqual(self.dauth.requests_to("/v1/oauth/status/check")[-1].query["client_id"], ["client-1"])
        with self.assertRaises(StatusRequestError):
            self.client.check_status("at-bad", "42")


if __name__ == "__main__":
    unittest.main()
