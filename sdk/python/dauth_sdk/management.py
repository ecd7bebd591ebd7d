"""The organization's management API for a service account (docs/machines.md, docs/players.md).

``ManagementClient`` gets a client_credentials token at ``/oauth/token`` (HTTP Basic with the service
account's ``sa_…`` id and secret), keeps it until a minute before it expires, and calls the players
directory and pre-generation with it. A 401 gets a fresh token once.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import quote, urlencode

from .transport import Transport, urllib_transport


class ManagementError(Exception):
    """A refused management call: the HTTP ``status`` and the service's ``code`` (``insufficient_scope``, …)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class ManagementClient:
    def __init__(
        self,
        auth_server_url: str,
        client_id: str,
        client_secret: str,
        org_id: str,
        scopes: Optional[List[str]] = None,
        transport: Transport = urllib_transport,
        timeout: float = 10.0,
    ) -> None:
        self._base = auth_server_url.rstrip("/")
        self._client_id = client_id
        self._client_secret = client_secret
        self._org_id = org_id
        self._scopes = scopes
        self._transport = transport
        self._timeout = timeout
        self._token: Optional[str] = None
        self._token_until = 0.0

    def list_players(
        self,
        client_id: str,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        q: Optional[str] = None,
    ) -> Dict[str, Any]:
        """One page: ``{"players": [...], "next_cursor": str | None}``; ``q`` is a user_id, address or e-mail."""
        params = {k: v for k, v in (("limit", limit), ("cursor", cursor), ("q", q)) if v is not None}
        suffix = "?" + urlencode(params) if params else ""
        return self._call("GET", "%s/players%s" % (self._app_path(client_id), suffix))[1]

    def all_players(self, client_id: str, page_size: int = 200) -> Iterator[Dict[str, Any]]:
        """Every player of the app, page after page."""
        cursor: Optional[str] = None
        while True:
            page = self.list_players(client_id, limit=page_size, cursor=cursor)
            for player in page["players"]:
                yield player
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def get_player(self, client_id: str, user_id: str) -> Dict[str, Any]:
        return self._call("GET", "%s/players/%s" % (self._app_path(client_id), quote(user_id, safe="")))[1]

    def revoke_player(self, client_id: str, user_id: str) -> int:
        """Ends the player's grant for the app; answers how many grants were revoked."""
        path = "%s/players/%s/revoke" % (self._app_path(client_id), quote(user_id, safe=""))
        return int(self._call("POST", path, {})[1]["revoked_grants"])

    def pregenerate_player(
        self,
        client_id: str,
        email: Optional[str] = None,
        provider: Optional[str] = None,
        subject: Optional[str] = None,
    ) -> Dict[str, Any]:
        """``{"user_id", "wallet_address", "created"}`` for an e-mail or a platform identity."""
        if (email is None) == (provider is None or subject is None):
            raise ValueError("give either email or provider and subject")
        body: Dict[str, Any] = (
            {"email": email} if email is not None else {"platform": {"provider": provider, "subject": subject}}
        )
        status, answer = self._call("POST", "%s/players/pregenerate" % self._app_path(client_id), body)
        return {"user_id": answer["user_id"], "wallet_address": answer["wallet_address"], "created": status == 201}

    def _app_path(self, client_id: str) -> str:
        return "/v1/orgs/%s/apps/%s" % (quote(self._org_id, safe=""), quote(client_id, safe=""))

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None):
        for attempt in range(2):
            headers = {"authorization": "Bearer " + self._access_token(renew=attempt > 0), "accept": "application/json"}
            data = None
            if body is not None:
                headers["content-type"] = "application/json"
                data = json.dumps(body).encode("utf-8")
            response = self._transport(method, self._base + path, headers, data, self._timeout)
            parsed = _parse(response.body)
            if response.status == 401 and attempt == 0:
                continue
            if response.status >= 400:
                raise _refusal(response.status, parsed)
            return response.status, parsed
        raise AssertionError("unreachable")

    def _access_token(self, renew: bool) -> str:
        if not renew and self._token is not None and self._token_until > time.time():
            return self._token
        form = {"grant_type": "client_credentials"}
        if self._scopes:
            form["scope"] = " ".join(self._scopes)
        pair = "%s:%s" % (quote(self._client_id, safe=""), quote(self._client_secret, safe=""))
        headers = {
            "authorization": "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii"),
            "content-type": "application/x-www-form-urlencoded",
            "accept": "application/json",
        }
        response = self._transport(
            "POST", self._base + "/oauth/token", headers, urlencode(form).encode("ascii"), self._timeout
        )
        parsed = _parse(response.body)
        if response.status != 200:
            raise _refusal(response.status, parsed)
        self._token = str(parsed["access_token"])
        self._token_until = time.time() + max(0, int(parsed["expires_in"]) - 60)
        return self._token


def _parse(body: bytes) -> Dict[str, Any]:
    try:
        parsed = json.loads(body.decode("utf-8"))
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _refusal(status: int, body: Dict[str, Any]) -> ManagementError:
    return ManagementError(status, str(body.get("error", "http_error")), str(body.get("message", "HTTP %d" % status)))
