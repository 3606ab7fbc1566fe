"""``balance-control serve --http``: the app of ``embedding.http`` under uvicorn, with the connection limits.

uvicorn's own settings, and what each guarantees (uvicorn with its pure-Python ``h11`` HTTP parser):

* ``timeout_keep_alive``: a keep-alive connection idle that long after a response is closed;
* ``h11_max_incomplete_event_size``: a request line plus headers that arrive in pieces and grow past
  ``MAX_HEADER_BYTES`` before they are complete are answered 400 and the connection closed (this bounds the memory
  of a connection); headers that arrive complete are checked by ``embedding.http.Guard``: more than
  ``MAX_HEADERS`` or more than ``MAX_HEADER_BYTES`` in all get 431;
* ``limit_concurrency``: beyond ``max_connections`` open connections (or requests in progress) a request is answered
  503 at once, so memory stays bounded under a flood of connections;
* ``timeout_graceful_shutdown``: on SIGTERM/Ctrl-C requests in progress get that long to finish.

uvicorn has no timeout for reading a request's headers (its keep-alive timer stops at the first byte received), so
:class:`HeaderTimeoutH11Protocol` adds one: from the moment a connection opens or finishes a response, the next
request's headers must be complete within ``read_timeout_s``, however slowly they trickle in; otherwise the
connection is closed (with a 408 if part of a request arrived). The body's deadline is the app's (408).

``processes`` > 1 (``serve --http --processes N``): N service processes accept on the same listening socket (the
kernel hands each new connection to one of them), under uvicorn's own supervisor (``uvicorn.supervisors.Multiprocess``,
as ``uvicorn --workers N``): a process that dies or stops answering its health check is replaced, and SIGTERM or
Ctrl-C stops them all. Each process has its own search workers, queue and connection limit. The service is
stateless, so any process answers any request.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors import Multiprocess

from .http import MAX_HEADER_BYTES, check_seconds, create_app
from .pool import WorkerPool

_TIMEOUT_408 = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class HeaderTimeoutH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the headers of each request (set ``read_timeout_s`` on a
    subclass: :func:`protocol_class`)."""

    read_timeout_s = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a request's headers are complete
            self._cancel_header_timer()

    def on_response_complete(self) -> None:
        cycle = self.cycle
        super().on_response_complete()
        if self.cycle is not cycle:  # a pipelined request was already waiting
            self._cancel_header_timer()
        elif not self.transport.is_closing():
            self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.read_timeout_s, self._header_timeout)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.conn.trailing_data[0] and self.conn.our_state in (h11.IDLE, h11.DONE):
            self.transport.write(_TIMEOUT_408)  # part of a request came, not all of its headers
        self.transport.close()


def protocol_class(read_timeout_s: float) -> type[HeaderTimeoutH11Protocol]:
    return type("HeaderTimeoutH11Protocol", (HeaderTimeoutH11Protocol,), {"read_timeout_s": read_timeout_s})


class ServiceConfig(uvicorn.Config):
    """uvicorn's configuration of the service. It can be pickled (the supervisor starts each process of
    ``processes`` with it): the app and the protocol class are made in the process that serves, by ``load``."""

    def __init__(self, app_options: dict[str, Any], read_timeout_s: float, **kwargs: Any) -> None:
        super().__init__("embedding.http:create_app", http="h11", **kwargs)
        self.app_options, self.read_timeout_s = app_options, read_timeout_s

    def load(self) -> None:
        self.app = create_app(read_timeout_s=self.read_timeout_s, **self.app_options)
        self.http = protocol_class(self.read_timeout_s)
        super().load()


def config(
    host: str = "127.0.0.1",
    port: int = 8017,
    *,
    timeout_s: float = 10.0,
    read_timeout_s: float = 10.0,
    keep_alive_s: float = 5.0,
    workers: int = 2,
    queue: int = 4,
    max_connections: int = 256,
    cors_origins: tuple[str, ...] = (),
    processes: int = 1,
) -> ServiceConfig:
    """The uvicorn configuration of the service (``uvicorn.Server(config(...)).run()`` for one process)."""
    options = {"timeout_s": timeout_s, "workers": workers, "queue": queue, "cors_origins": cors_origins}
    check_seconds(timeout_s=timeout_s, read_timeout_s=read_timeout_s)  # the app's checks, before any process starts
    if workers > 0:
        WorkerPool.check(workers, queue)
    return ServiceConfig(
        options,
        read_timeout_s,
        host=host,
        port=port,
        log_level="warning",
        timeout_keep_alive=keep_alive_s,  # a float works: it goes to loop.call_later
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        limit_concurrency=max_connections,
        timeout_graceful_shutdown=5,
        loop="asyncio",  # not uvloop even where it is installed: it makes the pool's pipes non-blocking
        # (embedding.pool reads a worker's answer whole once the pipe is readable)
        proxy_headers=False,  # no proxy is trusted: the service reads no client address (and skips a middleware)
        workers=processes,
    )


def serve(host: str, port: int, sockets: list[socket.socket] | None = None, **options: Any) -> None:
    """Run the service; ``sockets``: listening sockets made beforehand (``serve --http`` binds first, so that it
    can print the real address, also under ``--port 0``). ``processes`` (in ``options``): see the module's doc."""
    cfg = config(host, port, **options)
    if cfg.workers > 1:
        Multiprocess(cfg, sockets=sockets if sockets is not None else [cfg.bind_socket()]).run()
    else:
        uvicorn.Server(cfg).run(sockets=sockets)
