"""register_content_provider against a loopback stand-in of the service's sign-in, payload_mode and
init_permission_provider routes: the strong defaults on an app's first provider, a later cuid left
alone, and refusals as ProviderRegistrationError. The TypeScript twin runs against a live dauth
(packages/sdk/test/e2e/providerRegistration.test.ts)."""

from __future__ import annotations

import json
import unittest
from http.server import BaseHTTPRequestHandler
from typing import Any, Dict, List, Optional, Tuple

from dauth_sdk import ProviderRegistrationError, register_content_provider

from .support import RunningServer, quiet_handler, reply

OWNER_ADDR = "0x00000000000000000000000000000000000d0a57"
TX = "0x" + "cd" * 32


class Service:
    """Records every request as (method, path, authorization, body); ``registered`` says whether the
    app already has a provider, ``refuse`` makes init_permission_provider answer that error."""

    def __init__(self, registered: bool = False, refuse: Optional[Tuple[int, str]] = None) -> None:
        self.received: List[Tuple[str, str, str, Optional[Dict[str, Any]]]] = []

        def routes(handler: BaseHTTPRequestHandler, method: str) -> None:
            length = int(handler.headers.get("Content-Length") or 0)
            body = json.loads(handler.rfile.read(length)) if length else None
            path = handler.path
            self.received.append((method, path, handler.headers.get("Authorization") or "", body))
            if path == "/v1/dev-user/login_devuser":
                if body == {"email": "dev@example.com", "password": "right", "client_id": "c1"}:
                    answer: Dict[str, Any] = {"success": True, "token": "fresh-jwt", "uuid": "1"}
                    reply(handler, 200, json.dumps(answer).encode())
                else:
                    reply(handler, 401, json.dumps({"success": False, "error": "invalid_credentials", "message": "no"}).encode())
            elif path.startswith("/v1/development-api/payload_mode?"):
                if registered:
                    answer = {"success": True, "client_id": "c1", "payload_mode": "ctr", "consume_auth": "none", "has_gcm_key": False}
                    reply(handler, 200, json.dumps(answer).encode())
                else:
                    answer = {"success": False, "error": "provider_not_registered", "message": "not yet"}
                    reply(handler, 404, json.dumps(answer).encode())
            elif path == "/v1/development-api/init_permission_provider":
                if refuse is not None:
                    reply(handler, refuse[0], json.dumps({"success": False, "error": refuse[1], "message": "refused"}).encode())
                    return
                assert body is not None
                answer = {
                    "success": True,
                    "tx_hash": TX,
                    "payload_mode": body.get("payload_mode", "ctr"),
                    "consume_auth": body.get("consume_auth", "none"),
                }
                if not registered:
                    answer.update(encryption_key="11" * 32, encryption_iv="22" * 16)
                    if answer["payload_mode"] != "ctr":
                        answer["gcm_key"] = "33" * 32
                reply(handler, 200, json.dumps(answer).encode())
            else:
                reply(handler, 404, b"{}")

        self.server = RunningServer(quiet_handler(routes))
        self.url = self.server.url


class RegisterContentProvider(unittest.TestCase):
    def service(self, **options: Any) -> Service:
        service = Service(**options)
        self.addCleanup(service.server.close)
        return service

    def test_the_first_provider_is_gcm_with_client_secret_signed_in_fresh(self) -> None:
        service = self.service()
        registration = register_content_provider(
            "c1", "game-1", 50, OWNER_ADDR, email="dev@example.com", password="right", auth_server_url=service.url
        )
        self.assertEqual(
            (registration.tx_hash, registration.payload_mode, registration.consume_auth),
            (TX, "gcm", "client_secret"),
        )
        self.assertEqual(
            (registration.encryption_key, registration.encryption_iv, registration.gcm_key), ("11" * 32, "22" * 16, "33" * 32)
        )
        self.assertNotIn("33" * 32, repr(registration))
        methods = [(method, path.split("?")[0], authorization) for method, path, authorization, _ in service.received]
        self.assertEqual(
            methods,
            [
                ("POST", "/v1/dev-user/login_devuser", ""),
                ("GET", "/v1/development-api/payload_mode", "Bearer fresh-jwt"),
                ("POST", "/v1/development-api/init_permission_provider", "Bearer fresh-jwt"),
            ],
        )
        self.assertEqual(
            service.received[2][3],
            {
                "client_id": "c1",
                "cuid": "game-1",
                "release_per": 50,
                "owner_addr": OWNER_ADDR,
                "payload_mode": "gcm",
                "consume_auth": "client_secret",
            },
        )

    def test_a_later_cuid_keeps_the_apps_settings_unless_given(self) -> None:
        service = self.service(registered=True)
        kept = register_content_provider("c1", "game-2", 10, OWNER_ADDR, login_token="jwt", auth_server_url=service.url)
        self.assertEqual((kept.payload_mode, kept.consume_auth, kept.encryption_key, kept.gcm_key), ("ctr", "none", None, None))
        self.assertNotIn("payload_mode", service.received[-1][3] or {})
        self.assertNotIn("consume_auth", service.received[-1][3] or {})
        named = register_content_provider(
            "c1",
            "game-3",
            10,
            OWNER_ADDR,
            login_token="jwt",
            payload_mode="ctr+gcm",
            consume_auth="client_secret",
            auth_server_url=service.url,
        )
        self.assertEqual((named.payload_mode, named.consume_auth), ("ctr+gcm", "client_secret"))
        # Both settings named: no need to ask for the current ones.
        self.assertEqual([path.split("?")[0] for _, path, _, _ in service.received[-1:]], ["/v1/development-api/init_permission_provider"])
        self.assertEqual(len(service.received), 3)

    def test_refusals_are_provider_registration_errors(self) -> None:
        stale = self.service(refuse=(401, "reauthentication_required"))
        with self.assertRaises(ProviderRegistrationError) as caught:
            register_content_provider("c1", "game-1", 50, OWNER_ADDR, login_token="old-jwt", auth_server_url=stale.url)
        self.assertEqual((caught.exception.response_status, caught.exception.error_code), (401, "reauthentication_required"))
        self.assertEqual(str(caught.exception), "provider registration refused (HTTP 401, reauthentication_required): refused")
        wrong = self.service()
        with self.assertRaises(ProviderRegistrationError) as login:
            register_content_provider("c1", "game-1", 50, OWNER_ADDR, email="dev@example.com", password="wrong", auth_server_url=wrong.url)
        self.assertEqual(login.exception.error_code, "invalid_credentials")
        self.assertEqual(len(wrong.received), 1)

    def test_bad_arguments_are_refused_before_sending(self) -> None:
        for kwargs in (
            dict(client_id="", cuid="g", release_per=1, owner_addr=OWNER_ADDR, login_token="j"),
            dict(client_id="c", cuid="g", release_per=101, owner_addr=OWNER_ADDR, login_token="j"),
            dict(client_id="c", cuid="g", release_per=True, owner_addr=OWNER_ADDR, login_token="j"),
            dict(client_id="c", cuid="g", release_per=1, owner_addr=OWNER_ADDR, login_token="j", payload_mode="ecb"),
            dict(client_id="c", cuid="g", release_per=1, owner_addr=OWNER_ADDR),
            dict(client_id="c", cuid="g", release_per=1, owner_addr=OWNER_ADDR, email="e", password="p", login_token="j"),
        ):
            with self.assertRaises(ValueError):
                register_content_provider(auth_server_url="http://127.0.0.1:9", **kwargs)  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
