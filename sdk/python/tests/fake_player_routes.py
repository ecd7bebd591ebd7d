"""A loopback stand-in for the service's federation and session-operation routes (decisions §8).

It keeps state as the service does: identities keyed by (provider, subject), an account per identity,
the last way in never unlinked, a wallet policy checked call by call. Its id_tokens are opaque strings
registered with ``issue_id_token``; any other is refused 401 ``invalid_id_token``, as a token with a
wrong signature, ``aud`` or ``exp`` is by the service. An accepted id_token is spent: presented again it
is 401 ``id_token_replayed`` (decisions §9).

Login JWTs are ``jwt.<uuid>`` when bound to the app (what federated-login and a guest sign-in give a game)
and ``console.<uuid>`` when bound to ``dauth:console`` and fresh. Linking and unlinking take only the
console's (403 ``first_party_required``), except that a guest's own app-bound JWT may link while the
account is still a guest (its upgrade; decisions §9 "Ways in").

An account given a second factor (``enable_mfa``, docs/mfa.md) answers its password or federated sign-in
with ``{mfa_required, mfa_token, methods}`` and no token; ``POST /v1/dev-user/login/mfa`` takes a code
(each once), refuses a wrong one 401 ``invalid_mfa_code`` and ends the token after 5 codes or its use
(401 ``invalid_mfa_token``).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Set, Tuple
from urllib.parse import unquote

NAMES = {"google": "Google", "apple": "Apple", "discord": "Discord"}


class FakePlayerRoutes:
    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        self.id_tokens: Dict[str, Tuple[str, str, Optional[str]]] = {}
        self.identities: List[Dict[str, Any]] = []
        self.accounts: Dict[str, Dict[str, Any]] = {}
        self.spent_id_tokens: Set[str] = set()
        self.policies: Dict[str, Dict[str, Any]] = {}
        self.counter = 0
        self.mfa: Dict[str, Set[str]] = {}
        self.mfa_tokens: Dict[str, Dict[str, Any]] = {}
        self.passwords: Dict[str, Tuple[str, str]] = {}
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length) if length else b""
                with fake.lock:
                    fake.requests.append(
                        {"method": self.command, "path": self.path, "authorization": self.headers.get("Authorization"), "body": raw}
                    )
                    status, body = fake.route(self.command, self.path, self.headers.get("Authorization") or "", raw)
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def issue_id_token(self, provider: str, subject: str, email: Optional[str] = None) -> str:
        with self.lock:
            self.counter += 1
            token = "idt.%s.%s.%d" % (provider, subject, self.counter)
            self.id_tokens[token] = (provider, subject, email)
            return token

    def password_account(self, email: str) -> str:
        with self.lock:
            self.counter += 1
            uuid = "1%018d" % self.counter
            self.accounts[uuid] = {"email": email, "password": True}
            return "console." + uuid

    def password_login(self, email: str, password: str) -> str:
        """An e-mail and password account that signs in at ``login_devuser``: its uuid."""
        uuid = self.password_account(email)[len("console.") :]
        self.passwords[email] = (password, uuid)
        return uuid

    def enable_mfa(self, uuid: str, codes: List[str]) -> None:
        """Turns a second factor on for ``uuid``: its sign-ins take a second step with one of ``codes``."""
        self.mfa[uuid] = set(codes)

    def _sign_in(self, uuid: str, **extra: Any) -> Tuple[int, str]:
        if uuid not in self.mfa:
            return 200, json.dumps(dict({"success": True, "token": "jwt." + uuid, "uuid": uuid}, **extra))
        self.counter += 1
        token = "mfa.%d" % self.counter
        self.mfa_tokens[token] = {"uuid": uuid, "tries": 0}
        answer = {"success": True, "mfa_required": True, "mfa_token": token, "methods": ["totp", "recovery_code"], "expires_in": 300}
        return 200, json.dumps(dict(answer, **extra))

    def guest_account(self) -> str:
        """A guest account: its app-bound login JWT."""
        with self.lock:
            self.counter += 1
            uuid = "3%018d" % self.counter
            self.accounts[uuid] = {"email": None, "password": False, "guest": True}
            return "jwt." + uuid

    @staticmethod
    def console_login(uuid: str) -> str:
        """A fresh console sign-in (``dauth:console``) to the account ``uuid``: its login JWT."""
        return "console." + uuid

    @property
    def last(self) -> Dict[str, Any]:
        return self.requests[-1]

    def _view(self, identity: Dict[str, Any]) -> Dict[str, Any]:
        return {
            "id": identity["id"],
            "provider": identity["provider"],
            "provider_name": NAMES.get(identity["provider"], identity["provider"]),
            "subject": identity["subject"],
            "email": identity["email"],
            "created_at": "2026-11-26T12:00:00.000Z",
        }

    def _verify(self, body: Dict[str, Any]) -> Any:
        provider, token = body.get("provider"), body.get("id_token")
        claims = self.id_tokens.get(token) if isinstance(token, str) else None
        if not isinstance(provider, str) or claims is None or claims[0] != provider:
            return _error(401, "invalid_id_token")
        if token in self.spent_id_tokens:
            return _error(401, "id_token_replayed")
        known = next((i for i in self.identities if (i["provider"], i["subject"]) == claims[:2]), None)
        return claims, known

    def route(self, method: str, path: str, authorization: str, raw: bytes) -> Tuple[int, str]:
        body = json.loads(raw) if raw else {}
        bearer = authorization[len("Bearer ") :] if authorization.startswith("Bearer ") else ""
        first_party = bearer.startswith("console.")
        uuid = bearer.split(".", 1)[1] if bearer.startswith("jwt.") or first_party else ""
        if method == "POST" and path == "/v1/dev-user/federated-login":
            verified = self._verify(body)
            if isinstance(verified[0], int):
                return verified
            (provider, subject, email), known = verified
            if known:
                self.spent_id_tokens.add(body["id_token"])
                return self._sign_in(known["uuid"], created=False)
            if any(a["email"] is not None and a["email"] == email for a in self.accounts.values()):
                return _error(409, "account_exists_link_required")
            self.counter += 1
            created = "2%018d" % self.counter
            self.accounts[created] = {"email": email, "password": False}
            self.identities.append({"id": "idn_%d" % self.counter, "provider": provider, "subject": subject, "email": email, "uuid": created})
            self.spent_id_tokens.add(body["id_token"])
            # The uuid as a JSON number.
            return 200, '{"success":true,"token":"jwt.%s","uuid":%s,"created":true}' % (created, created)
        if method == "POST" and path == "/v1/dev-user/login_devuser":
            account = self.passwords.get(body.get("email"))
            if account is None or account[0] != body.get("password"):
                return _error(401, "invalid_credentials")
            return self._sign_in(account[1])
        if method == "POST" and path == "/v1/dev-user/login/mfa":
            pending = self.mfa_tokens.get(body.get("mfa_token"))
            if pending is None or pending["tries"] >= 5:
                return _error(401, "invalid_mfa_token")
            pending["tries"] += 1
            codes = self.mfa[pending["uuid"]]
            if body.get("code") not in codes:
                return _error(401, "invalid_mfa_code")
            codes.discard(body["code"])
            del self.mfa_tokens[body["mfa_token"]]
            return 200, json.dumps({"success": True, "token": "jwt." + pending["uuid"], "uuid": pending["uuid"]})
        if path.startswith("/v1/dev-user/identities"):
            if uuid not in self.accounts:
                return _error(401, "invalid_token")
            mine = [i for i in self.identities if i["uuid"] == uuid]
            if method == "GET":
                return 200, json.dumps({"identities": [self._view(i) for i in mine]})
            guest_upgrade = method == "POST" and self.accounts[uuid].get("guest", False)
            if not first_party and not guest_upgrade:
                return _error(403, "first_party_required")
            if method == "POST":
                verified = self._verify(body)
                if isinstance(verified[0], int):
                    return verified
                (provider, subject, email), known = verified
                if known:
                    return _error(409, "identity_in_use")
                self.counter += 1
                identity = {"id": "idn_%d" % self.counter, "provider": provider, "subject": subject, "email": email, "uuid": uuid}
                self.identities.append(identity)
                self.spent_id_tokens.add(body["id_token"])
                self.accounts[uuid]["guest"] = False
                return 201, json.dumps(self._view(identity))
            if method == "DELETE":
                wanted = unquote(path[len("/v1/dev-user/identities/") :])
                target = next((i for i in mine if i["id"] == wanted), None)
                if target is None:
                    return _error(404, "identity_not_found")
                if len(mine) == 1 and not self.accounts[uuid]["password"]:
                    return _error(409, "last_sign_in_method")
                self.identities.remove(target)
                return 200, json.dumps({"success": True})
        if method == "POST" and path == "/v1/wallet/session-operations":
            policy = self.policies.get(bearer)
            if policy is None:
                return _error(404, "session_key_not_found")
            results = []
            for index, call in enumerate(body.get("calls", [])):
                if not isinstance(call.get("value"), str):
                    return _error(400, "invalid_request", field="calls[%d].value" % index)
                reason = None
                if call["to"].lower() != policy["target"]:
                    reason = "call_not_allowed"
                elif int(call["value"]) > policy["max_per_call"]:
                    reason = "value_per_call"
                if reason:
                    details = {"call_index": index, "reason": reason}
                    if policy.get("spread"):
                        return _error(403, "outside_session_policy", **details)
                    return _error(403, "outside_session_policy", details=details)
                results.append({"call_index": index, "to": call["to"], "success": True})
            return 200, json.dumps({"user_op_hash": "0x" + "a" * 64, "tx_hash": "0x" + "b" * 64, "results": results})
        return _error(404, "not_found")


def _error(status: int, code: str, **extra: Any) -> Tuple[int, str]:
    return status, json.dumps(dict({"success": False, "error": code, "message": "refused: " + code}, **extra))
