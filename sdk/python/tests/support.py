"""Loopback servers and the shared vectors for the tests."""

from __future__ import annotations

import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Tuple

VECTORS_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "vectors", "vectors.json")

with open(VECTORS_PATH, encoding="utf-8") as _file:
    VECTORS: Any = json.load(_file)


class RunningServer:
    def __init__(self, handler_class: type) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def quiet_handler(routes: Callable[[BaseHTTPRequestHandler, str], None]) -> type:
    """A handler class sending every request to ``routes(handler, method)``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            routes(self, "GET")

        def do_POST(self) -> None:
            routes(self, "POST")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def reply(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"") -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def capture(function: Callable[[], Any]) -> Tuple[Any, BaseException]:
    """Runs ``function`` and returns (result, None) or (None, the exception)."""
    try:
        return function(), None  # type: ignore[return-value]
    except BaseException as error:  # noqa: BLE001 - the tests inspect it
        return None, error
