"""Content consumption from a provider backend: build the payload, encrypt it, send it.

The two encrypted forms (docs/content-tokens.md, "Consumption payloads"):

- ``ctr``, the spec's form: hex(AES-256-CTR(key, iv, JSON text)) under the fixed 32-byte key and
  16-byte IV issued at provider registration.
- ``gcm``, the authenticated form: ``gcm1:`` + hex(iv ‖ ciphertext ‖ tag) under the 32-byte GCM key,
  a fresh 12-byte IV per message and the client id as additional data; the plaintext carries
  ``iat``. Prefer it: one known CTR plaintext reveals the key stream and lets anyone forge payloads.
"""

from __future__ import annotations

import base64
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Dict, Optional, Union
from urllib.parse import quote_plus, urlsplit

from .aes import ctr_transform, gcm_seal
from .api import ApiContext
from .envelope import decode_json
from .errors import ConsumptionError, MalformedResponseError
from .slot import SlotId
from .transport import Transport, urllib_transport

_DECIMAL = re.compile(r"^[1-9][0-9]*$")
CONSUME_PATH = "/v1/development-api/increase_used_content_token"


def gcm_aad(client_id: str) -> bytes:
    """The additional data every authenticated payload is bound to: its provider's client id."""
    return ("dauth/content-payload/v1:" + client_id).encode("utf-8")


def consumption_plaintext(
    client_id: str,
    user_dbkey: Union[SlotId, str],
    amount: Union[int, str],
    cuid: str,
    request_id: Optional[str] = None,
    iat: Optional[int] = None,
) -> bytes:
    """The payload's JSON text: ``{client_id, user_dbkey, amount, cuid, request_id?, iat?}`` with the
    slot id and the amount as decimal strings."""
    key = str(user_dbkey) if isinstance(user_dbkey, SlotId) else user_dbkey
    if not isinstance(key, str) or not _DECIMAL.match(key):
        raise ValueError("dauth: user_dbkey must be a slot id (decimal digits)")
    if isinstance(amount, bool) or not isinstance(amount, (int, str)) or not _DECIMAL.match(str(amount)):
        raise ValueError("dauth: amount must be a positive integer of base units")
    if not isinstance(cuid, str) or not cuid:
        raise ValueError("dauth: cuid is required")
    payload: Dict[str, Any] = {"client_id": client_id, "user_dbkey": key, "amount": str(amount), "cuid": cuid}
    if request_id is not None:
        payload["request_id"] = request_id
    if iat is not None:
        payload["iat"] = iat
    return json.dumps(payload, separators=(",", ":")).encode("utf-8")


def _key_bytes(text: Any, length: int, name: str) -> bytes:
    try:
        raw = bytes.fromhex(text) if isinstance(text, str) else b""
    except ValueError:
        raw = b""
    if len(raw) != length:
        raise ValueError("dauth: %s must be %d bytes of hex" % (name, length))
    return raw


@dataclass(frozen=True)
class ConsumptionResult:
    """The service's answer: ``included`` (on chain, with the new figures) or ``queued`` (HTTP 202)."""

    status: str
    cuid: str
    slot: str
    user_dbkey: str
    amount: str
    request_id: Optional[str] = None
    tx_hash: Optional[str] = None
    balance: Optional[str] = None
    used_balances: Optional[str] = None


class ContentConsumer:
    """Records content consumption from a provider backend (never from a browser or app).

    :param client_id: the provider's app, the client its ``cuid`` is registered to.
    :param form: ``"ctr"`` (spec) or ``"gcm"`` (authenticated).
    :param key: hex, 32 bytes: the CTR key, or the ``gcm_key`` of ``payload_mode``.
    :param iv: hex, 16 bytes; CTR only.
    :param client_secret: when given, every call carries HTTP Basic client authentication
        (``client_id:client_secret``), which a provider with ``consume_auth: client_secret`` requires.
    """

    def __init__(
        self,
        client_id: str,
        form: str,
        key: str,
        iv: Optional[str] = None,
        client_secret: Optional[str] = None,
        auth_server_url: Optional[str] = None,
        transport: Optional[Transport] = None,
        request_timeout: float = 15.0,
    ) -> None:
        if not isinstance(client_id, str) or not client_id:
            raise ValueError("dauth: client_id is required")
        if form not in ("ctr", "gcm"):
            raise ValueError('dauth: form must be "ctr" or "gcm"')
        self.client_id = client_id
        self.form = form
        self.__key = _key_bytes(key, 32, "key")
        self.__iv = _key_bytes(iv, 16, "iv") if form == "ctr" else b""
        self.__authorization: Optional[str] = None
        if client_secret is not None:
            if not isinstance(client_secret, str) or not client_secret:
                raise ValueError("dauth: client_secret, when given, must be a non-empty string")
            # RFC 6749 §2.3.1: each part form-encoded, then id:secret in base64.
            pair = "%s:%s" % (quote_plus(client_id), quote_plus(client_secret))
            self.__authorization = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        base = auth_server_url or "http://127.0.0.1:8080"
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("dauth: auth_server_url must be an http or https URL")
        self._api = ApiContext(
            base_url=base.rstrip("/"), transport=transport or urllib_transport, request_timeout=request_timeout
        )

    def __repr__(self) -> str:
        # Spelled out so that the key and the secret never show in logs or tracebacks.
        return "ContentConsumer(client_id=%r, form=%r)" % (self.client_id, self.form)

    def encrypt(
        self, user_dbkey: Union[SlotId, str], amount: Union[int, str], cuid: str, request_id: Optional[str] = None
    ) -> str:
        """The ``encrypted_message`` for a record, as ``record`` would send it."""
        if self.form == "ctr":
            plaintext = consumption_plaintext(self.client_id, user_dbkey, amount, cuid, request_id)
            return ctr_transform(self.__key, self.__iv, plaintext).hex()
        plaintext = consumption_plaintext(self.client_id, user_dbkey, amount, cuid, request_id, int(time.time()))
        iv = os.urandom(12)
        return "gcm1:" + (iv + gcm_seal(self.__key, iv, plaintext, gcm_aad(self.client_id))).hex()

    def record(
        self, user_dbkey: Union[SlotId, str], amount: Union[int, str], cuid: str, request_id: Optional[str] = None
    ) -> ConsumptionResult:
        """Deducts ``amount`` from the slot's content tokens and adds it to ``used_balances``.

        :raises ConsumptionError: the service refused the record; nothing changed.
        :raises RequestFailedError: no answer came; retry with the same ``request_id``.
        """
        body = json.dumps(
            {"encrypted_message": self.encrypt(user_dbkey, amount, cuid, request_id), "client_id": self.client_id}
        ).encode("utf-8")
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if self.__authorization is not None:
            headers["Authorization"] = self.__authorization
        response = self._api.send_raw("POST", CONSUME_PATH, headers, body)
        try:
            parsed = decode_json(response.body)
        except ValueError:
            raise MalformedResponseError("body is not JSON", response.status) from None
        answer = parsed if isinstance(parsed, dict) else {}

        def text(name: str) -> Optional[str]:
            value = answer.get(name)
            return value if isinstance(value, str) else None

        if response.status not in (200, 202) or answer.get("success") is not True:
            raise ConsumptionError(response.status, text("error"), text("message") or "no error message")
        result = ConsumptionResult(
            status="queued" if response.status == 202 else "included",
            cuid=text("cuid") or "",
            slot=text("slot") or "",
            user_dbkey=text("user_dbkey") or "",
            amount=text("amount") or "",
            request_id=text("request_id"),
            tx_hash=text("tx_hash"),
            balance=text("balance"),
            used_balances=text("used_balances"),
        )
        if result.status == "included" and (result.tx_hash is None or result.used_balances is None):
            raise MalformedResponseError("an included record without tx_hash or used_balances", response.status)
        return result
