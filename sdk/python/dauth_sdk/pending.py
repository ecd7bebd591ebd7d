"""The in-process registry of slot-info calls waiting for their callback, keyed by ``state``.

A request is ``waiting`` until its callback is claimed, then ``exchanging`` while the code is
exchanged (the timeout no longer applies), and complete once it has a result or an error. The
result only counts once authorize has also answered, so that an authorize failure is never
hidden by a callback that raced ahead of it.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Dict, Optional

from .errors import CallbackTimeoutError, ShutdownError
from .slot import SlotInfo


class PendingRequest:
    def __init__(self, state: str, deadline: float) -> None:
        self.state = state
        self._deadline = deadline
        self._condition = threading.Condition()
        self._phase = "waiting"
        self._authorized = False
        self._slot: Optional[SlotInfo] = None
        self._error: Optional[BaseException] = None

    def claim(self) -> bool:
        """Takes the callback: True once, while waiting; False for a duplicate or a finished call."""
        with self._condition:
            late = time.monotonic() >= self._deadline
            if self._phase != "waiting" or self._error is not None or late:
                return False
            self._phase = "exchanging"
            return True

    def authorized(self) -> None:
        with self._condition:
            self._authorized = True
            self._condition.notify_all()

    def resolve(self, slot: SlotInfo) -> None:
        with self._condition:
            if self._error is None and self._slot is None:
                self._slot = slot
                self._condition.notify_all()

    def fail(self, error: BaseException) -> None:
        """Fails the request unless it already ended; the first failure wins."""
        with self._condition:
            if self._error is None and not (self._slot is not None and self._authorized):
                self._error = error
                self._condition.notify_all()

    def wait(self) -> SlotInfo:
        """Blocks until the request ends; raises its error, or ``CallbackTimeoutError`` when no
        callback was claimed before the deadline."""
        with self._condition:
            while True:
                if self._error is not None:
                    raise self._error
                if self._slot is not None and self._authorized:
                    return self._slot
                if self._phase == "waiting":
                    remaining = self._deadline - time.monotonic()
                    if remaining <= 0:
                        self._error = CallbackTimeoutError()
                        continue
                    self._condition.wait(remaining)
                else:
                    self._condition.wait()


class PendingRequests:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: Dict[str, PendingRequest] = {}
        self._closed = False

    def open(self, state: str, timeout: float) -> PendingRequest:
        """Registers a request; raises ``ShutdownError`` once ``close_all`` ran, so that a call
        racing a shutdown is either refused here or failed by it."""
        request = PendingRequest(state, time.monotonic() + timeout)
        with self._lock:
            if self._closed:
                raise ShutdownError()
            if state in self._requests:
                raise RuntimeError("duplicate pending state")
            self._requests[state] = request
        return request

    def get(self, state: str) -> Optional[PendingRequest]:
        with self._lock:
            return self._requests.get(state)

    def close(self, state: str) -> None:
        with self._lock:
            self._requests.pop(state, None)

    def close_all(self, make_error: Callable[[], BaseException]) -> None:
        """Refuses new requests and fails every open one, each with its own exception (they are
        raised in different threads)."""
        with self._lock:
            self._closed = True
            requests = list(self._requests.values())
        for request in requests:
            request.fail(make_error())
