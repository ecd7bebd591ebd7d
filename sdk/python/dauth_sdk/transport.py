"""The HTTP transport the SDK calls the service with.

A transport is any callable ``(method, url, headers, body, timeout) -> HttpResponse``. It returns
every answer it receives, whatever its status (the envelope's ``code`` decides, not the status),
and raises an exception only when no answer came. Inject one to add a proxy, tracing or retries.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Callable, Mapping, NamedTuple, Optional


class HttpResponse(NamedTuple):
    status: int
    body: bytes


Transport = Callable[[str, str, Mapping[str, str], Optional[bytes], float], HttpResponse]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # urllib would repeat the request at the new location with the Authorization header, even on
    # another host. The service's backend routes never redirect, so a redirect is answered as is.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[override]
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def urllib_transport(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: Optional[bytes],
    timeout: float,
) -> HttpResponse:
    """The default transport, on ``urllib.request``."""
    request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
    try:
        with _opener.open(request, timeout=timeout) as response:
            return HttpResponse(response.status, response.read())
    except urllib.error.HTTPError as error:
        # A 4xx or 5xx is still an answer, and its body holds the envelope.
        with error:
            return HttpResponse(error.code, error.read())
