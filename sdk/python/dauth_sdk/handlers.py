"""Callback routes for ``http.server`` and WSGI.

Both answer 200 as soon as the body is read and then hand the fields to the client, which
exchanges the code on a detached thread. Serve them from a threaded server (``ThreadingHTTPServer``,
or a WSGI server with threads): ``get_slot_info`` blocks one thread while the callback arrives on
another.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterable, List, Optional, Tuple
from urllib.parse import urlsplit

from .callback import callback_fields
from .client import DauthClient

# A callback is three short fields; anything much larger is not one.
MAX_CALLBACK_BYTES = 64 * 1024


def respond_to_callback(handler: BaseHTTPRequestHandler, client: DauthClient) -> str:
    """Serves the callback from inside your handler's ``do_POST``.

    Reads the body, answers (200, or 413 for an oversized body) and hands the fields to the client.
    Returns the client's outcome, or ``"ignored"``.
    """
    try:
        length = int(handler.headers.get("Content-Length") or 0)
    except ValueError:
        length = 0
    if length > MAX_CALLBACK_BYTES:
        handler.send_response(413)
        handler.send_header("Content-Length", "0")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        return "ignored"
    body = handler.rfile.read(length) if length > 0 else b""
    handler.send_response(200)
    handler.send_header("Content-Length", "0")
    handler.end_headers()
    fields = callback_fields(body, handler.headers.get("Content-Type"), urlsplit(handler.path).query)
    return client.handle_callback(fields)


def callback_handler_class(client: DauthClient, path: str) -> type:
    """A ready-made ``BaseHTTPRequestHandler`` class serving only the callback at ``path``.

    POST is accepted; other methods at ``path`` get 405 (the service sends POST) and other paths
    404. For a server that also has other routes, call ``respond_to_callback`` from your own class.
    """

    class CallbackHandler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if urlsplit(self.path).path != path:
                self._answer(404)
            else:
                respond_to_callback(self, client)

        def do_GET(self) -> None:
            self._answer(405 if urlsplit(self.path).path == path else 404)

        do_PUT = do_DELETE = do_PATCH = do_GET

        def _answer(self, status: int) -> None:
            self.send_response(status)
            if status == 405:
                self.send_header("Allow", "POST")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            # The query of a callback may carry the state and code; keep them out of stderr.
            pass

    return CallbackHandler


StartResponse = Callable[[str, List[Tuple[str, str]]], Any]


def wsgi_callback_app(client: DauthClient) -> Callable[[dict, StartResponse], Iterable[bytes]]:
    """A WSGI application for the callback route: mount it at the path of ``redirect_uri``."""

    def app(environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST":
            start_response("405 Method Not Allowed", [("Allow", "POST"), ("Content-Length", "0")])
            return [b""]
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_CALLBACK_BYTES:
            start_response("413 Payload Too Large", [("Content-Length", "0")])
            return [b""]
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        start_response("200 OK", [("Content-Length", "0")])
        content_type: Optional[str] = environ.get("CONTENT_TYPE")
        client.handle_callback(callback_fields(body, content_type, environ.get("QUERY_STRING", "")))
        return [b""]

    return app
