"""The bot protocol over HTTP, stateless: every request carries the state it works on (Starlette + uvicorn).

``create_app()`` returns the ASGI app; ``balance-control serve --http`` runs it with uvicorn (``embedding.server``:
the connection limits). Each ``POST /v1/<command>`` takes the protocol message of that command (without ``cmd``) plus,
where the command needs a game, the ``state`` (``Game.to_dict()``), and for ``go`` the ``bot`` (a name from
``/v1/hello``; no paths over HTTP) and its ``bot_seed``. The reply is the protocol's reply; the commands that set or
change the position return the new ``state`` too. ``GET /openapi.json`` describes the API, ``GET /`` serves the
browser page and ``POST /v1/view`` (not a protocol command: embedding/page.py) gives the page what it shows of a
position.

Limits (docs/embedding.md, "Limits and guarantees"): a ``Content-Type: application/json`` body (415 otherwise) of
at most ``max_body`` bytes (413) that arrives within ``read_timeout_s`` (408); ``timeout_s`` seconds of work (503
``timeout``), which also caps ``go``'s ``movetime_ms``; the decisions of the bots that search or score every action
(``WORKER_BOTS``) run in a pool of worker processes (``embedding.pool``) with a bounded queue (503 ``busy`` and
``Retry-After`` beyond it), stopped when their time is up or their client has gone; at most ``max_headers`` request
headers (431). Every response carries ``X-Content-Type-Options: nosniff`` and a same-origin
``Content-Security-Policy``; cross-origin requests are refused by the browser unless ``cors_origins`` names the
origin. A response after which the connection cannot go on (408, 413, 431, 500) says ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bc_env.rules.errors import StateError

from .page import handle_view
from .pool import Abandoned, Busy, Expired, WorkerDied, WorkerPool
from .protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Session,
    engine_version,
    error_reply,
    request_id,
    schema,
)
from .wirejson import encode_bytes, loads

STATIC = Path(__file__).resolve().parent / "static"
#: The HTTP commands and what each needs besides its protocol message.
NEEDS_STATE = ("legal", "apply", "go", "state", "render")
HTTP_COMMANDS = ("new", "position", "legal", "apply", "go", "render")
#: The bots whose decision runs in a worker process: they search or score every legal action, so one decision can
#: take seconds. The random bot and the trained bots (one forward pass, shared by all requests) run in the service.
WORKER_BOTS = ("expert", "heuristic", "mcts")
STATUS = {
    "bad_json": 400,
    "bad_message": 400,
    "unknown_command": 404,
    "request_timeout": 408,
    "out_of_order": 409,
    "too_large": 413,
    "unsupported_media_type": 415,
    "too_many_headers": 431,
    "internal": 500,
    "busy": 503,
    "timeout": 503,
}
#: Statuses after which the connection is closed (the request may not have been read to its end, or the service
#: failed): the response says ``Connection: close`` so that a keep-alive client does not send into a closed socket.
CLOSE_AFTER = frozenset((408, 413, 431, 500))
#: Seconds a client refused with 503 ``busy`` is asked to wait (``Retry-After``).
RETRY_AFTER_S = 1
#: The page's policy: scripts, style sheets, images and API calls from the service's own origin only; nothing inline
#: (no inline script, ``<style>`` or ``style=`` attribute: the page sets styles through the CSSOM), no framing, no
#: plugins; ``blob:`` and ``data:`` images for what the page draws and saves itself.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("ascii")),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
#: Request headers: at most this many, of at most this many bytes (names and values) in all.
MAX_HEADERS = 100
MAX_HEADER_BYTES = 16 * 1024
log = logging.getLogger("uvicorn.error")
Reply = tuple[int, bytes]  # (HTTP status, the reply's JSON bytes)


def handle(cmd: str, body: Any) -> dict[str, Any]:
    """The reply to one stateless request: a fresh session, the position from the request, then the command."""
    if not isinstance(body, dict):
        return error_reply(None, cmd, "bad_message", f"the request body is a JSON object, not {type(body).__name__}")
    body = dict(body)
    ident = request_id(body)
    session = Session(allow_paths=False, require_hello=False, share_bots=True)
    state = body.pop("state", None) if cmd != "position" else None
    bot = body.pop("bot", None) if cmd == "go" else None
    bot_seed = body.pop("bot_seed", None) if cmd == "go" else None
    if cmd in NEEDS_STATE:
        if state is None:
            return error_reply(
                ident, cmd, "bad_message", "message: 'state' (the game state, Game.to_dict()) is required"
            )
        reply = session.handle({"cmd": "position", "state": state})
        if not reply["ok"]:
            return {**reply, "id": ident if reply["id"] is None else reply["id"], "cmd": cmd}
    elif state is not None:
        return error_reply(ident, cmd, "bad_message", f"message: '{cmd}' takes no 'state'")
    if cmd == "go":
        if bot is None:
            return error_reply(ident, cmd, "bad_message", "message: 'bot' (a name from /v1/hello) is required")
        message: dict[str, Any] = {"cmd": "bot", "name": bot}
        if bot_seed is not None:
            message["seed"] = bot_seed
        reply = session.handle(message)
        if not reply["ok"]:
            return {**reply, "id": ident, "cmd": cmd}
    reply = session.handle({**body, "cmd": cmd})
    if reply["ok"] and "game" in reply and session.game is not None:
        reply["state"] = session.game.to_dict()
    return reply


def status_of(reply: dict[str, Any]) -> int:
    return 200 if reply["ok"] else STATUS.get(reply["error"]["code"], 422)


def _parse(cmd: str, raw: bytes, movetime_cap_ms: int) -> Any:
    """The request body, strictly read (``wirejson.loads``, as ``jsonread.strict_loads``), with ``go``'s
    ``movetime_ms`` capped; or the error reply (a dict with ``ok: false``) if it cannot be read."""
    try:
        body = loads(raw, "body")
    except StateError as exc:
        return error_reply(None, cmd, "bad_json", f"not a JSON body: {str(exc)[:300]}")
    if cmd == "go" and isinstance(body, dict):
        movetime = body.get("movetime_ms")
        if isinstance(movetime, int) and not isinstance(movetime, bool):
            body["movetime_ms"] = min(movetime, movetime_cap_ms)
    return body


def answer(cmd: str, raw: bytes, movetime_cap_ms: int) -> tuple[int, bytes]:
    """``(status, reply as JSON bytes)`` for one request body: the job of a worker process, and of the service's
    own threads for the commands that stay there."""
    body = _parse(cmd, raw, movetime_cap_ms)
    reply = body if _is_error(body) else handle(cmd, body)
    return status_of(reply), encode_bytes(reply)


def _is_error(body: Any) -> bool:
    return isinstance(body, dict) and body.get("ok") is False and "error" in body and "cmd" in body


def _answer_here(cmd: str, raw: bytes, movetime_cap_ms: int, workers: bool) -> tuple[int, bytes] | None:
    """``answer`` in the service's own process, or None for a ``go`` of a bot in ``WORKER_BOTS`` when there are
    workers to run it."""
    body = _parse(cmd, raw, movetime_cap_ms)
    if _is_error(body):
        return status_of(body), encode_bytes(body)
    if workers and cmd == "go" and isinstance(body, dict) and body.get("bot") in WORKER_BOTS:
        return None
    reply = handle(cmd, body)
    return status_of(reply), encode_bytes(reply)


def _json_response(status: int, reply: dict[str, Any] | bytes, headers: dict[str, str] | None = None) -> Response:
    data = reply if isinstance(reply, bytes) else encode_bytes(reply)
    headers = dict(headers or {})
    if status in CLOSE_AFTER:
        headers["connection"] = "close"
    return Response(data, status_code=status, media_type="application/json", headers=headers)


def _error(cmd: str | None, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return _json_response(STATUS.get(code, 422), error_reply(None, cmd, code, message), headers)


def _json_content_type(value: str | None) -> bool:
    """``application/json``, with no charset or UTF-8: the only body a browser cannot send cross-origin without
    asking first (a CORS preflight), so a page elsewhere cannot make this service work."""
    if value is None:
        return False
    media, *params = value.split(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params:
        name, _, val = param.partition("=")
        if name.strip().lower() == "charset" and val.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


class Guard:
    """The outermost layer: at most ``max_headers`` request headers of ``max_header_bytes`` in all (431), the
    security headers on every response, and a JSON 500 with ``Connection: close`` (never a bare traceback page) for
    a defect anywhere inside."""

    def __init__(self, app: Any, max_headers: int = MAX_HEADERS, max_header_bytes: int = MAX_HEADER_BYTES) -> None:
        self.app = app
        self.max_headers = max_headers
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        count = len(scope["headers"])
        size = sum(len(name) + len(value) for name, value in scope["headers"])
        if count > self.max_headers or size > self.max_header_bytes:
            message = (
                f"{count} request headers of {size} bytes; the limits are {self.max_headers} headers "
                f"and {self.max_header_bytes} bytes"
            )
            await _error_response(send, 431, error_reply(None, None, "too_many_headers", message))
            return
        started = complete = False

        async def guarded(message: Any) -> None:
            nonlocal started, complete
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    if name.decode() not in headers:
                        headers.append(name.decode(), value.decode())
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                complete = True
            await send(message)

        try:
            await self.app(scope, receive, guarded)
        except Exception:
            log.exception("a defect in the service, answered with 500")
            if complete:
                return  # the 500 of the app's exception handler (``_defect``) has gone out, with Connection: close
            if started:
                raise  # half a response: uvicorn closes the connection
            await _error_response(send, 500, error_reply(None, None, "internal", "the service failed on this request"))


async def _error_response(send: Callable[[Any], Awaitable[None]], status: int, reply: dict[str, Any]) -> None:
    headers = [(b"content-type", b"application/json"), (b"connection", b"close"), *SECURITY_HEADERS]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": encode_bytes(reply)})


async def _defect(request: Request, exc: Exception) -> Response:
    """Starlette's handler of an exception from a route: a JSON 500 that closes the connection (its default is a
    text page without ``Connection: close``)."""
    return _json_response(500, error_reply(None, None, "internal", "the service failed on this request"))


async def _disconnected(receive: Callable[[], Awaitable[Any]]) -> None:
    """Completes when the client disconnects (call once the body has been read)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def check_seconds(**durations: Any) -> None:
    """ValueError unless every value is a number of seconds in (0, 3600] (the service's timeouts)."""
    for name, value in durations.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and 0 < value <= 3600):
            raise ValueError(f"{name} must be a number of seconds in (0, 3600], got {value!r}")


def create_app(
    *,
    timeout_s: float = 10.0,
    max_body: int = MAX_MESSAGE_BYTES,
    read_timeout_s: float = 10.0,
    workers: int = 2,
    queue: int = 4,
    cors_origins: tuple[str, ...] = (),
    max_headers: int = MAX_HEADERS,
) -> Any:
    """The ASGI app: ``/v1/*`` (JSON), ``/openapi.json``, the page at ``/`` and its files under ``/static``.

    ``workers``: processes for the decisions of ``WORKER_BOTS`` (0: decide in the service's threads, unstoppable);
    ``queue``: requests that may wait for one. ``cors_origins``: origins (``https://example.org``) whose pages may
    call the API (default none: only pages of the service's own origin)."""
    check_seconds(timeout_s=timeout_s, read_timeout_s=read_timeout_s)
    movetime_cap_ms = max(1, int(timeout_s * 1000))
    pool = WorkerPool(answer, workers, queue) if workers > 0 else None
    # The work done in the service's own process (every request but the searches the workers take) is short: it runs
    # in one thread, request after request. Forty threads taking turns under the interpreter lock every 5 ms made
    # each request's latency that of many (p99 over a second under 48 clients). Without workers the searches run
    # here too, in Starlette's thread pool, so that one search does not hold up every other request.
    single = ThreadPoolExecutor(1, thread_name_prefix="bc-http") if pool is not None else None

    def _in_thread(work: Callable[[bytes], Reply | None], raw: bytes) -> Awaitable[Reply | None]:
        if single is None:
            return run_in_threadpool(work, raw)
        return asyncio.get_running_loop().run_in_executor(single, work, raw)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if pool is not None:
            await pool.start()
        try:
            yield
        finally:
            if pool is not None:
                await pool.close()
            if single is not None:
                single.shutdown(wait=False, cancel_futures=True)

    async def read_body(request: Request) -> bytes | Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body):
            return _error(None, "too_large", f"request body over {max_body} bytes")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + read_timeout_s
        chunks, size = [], 0
        stream = request.stream().__aiter__()
        while True:
            try:
                chunk = await asyncio.wait_for(stream.__anext__(), timeout=max(0.0, deadline - loop.time()))
            except StopAsyncIteration:
                return b"".join(chunks)
            except TimeoutError:
                return _error(None, "request_timeout", f"the request body did not arrive within {read_timeout_s:g} s")
            except ClientDisconnect:
                return _error(None, "request_timeout", "the client went away before sending its body")
            size += len(chunk)
            if size > max_body:
                return _error(None, "too_large", f"request body over {max_body} bytes")
            chunks.append(chunk)

    async def post(request: Request, cmd: str, work: Callable[[bytes], tuple[int, bytes] | None]) -> Response:
        """A JSON ``POST``: the content type, the body within its limits, then ``work(raw body)`` in a thread within
        ``timeout_s`` -> ``(status, reply bytes)``, or None to run ``answer(cmd, raw, ...)`` in a worker process."""
        if not _json_content_type(request.headers.get("content-type")):
            got = request.headers.get("content-type", "none")[:64]
            wanted = "the body must be Content-Type: application/json"
            return _error(cmd, "unsupported_media_type", f"{wanted}, not {got!r}")
        raw = await read_body(request)
        if isinstance(raw, Response):
            return raw
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        try:
            here = await asyncio.wait_for(_in_thread(work, raw), timeout=timeout_s)
            if here is None:
                assert pool is not None
                gone = asyncio.ensure_future(_disconnected(request.receive))
                try:
                    here = await pool.run((cmd, raw, movetime_cap_ms), deadline, gone)
                finally:
                    gone.cancel()
        except TimeoutError:
            return _error(cmd, "timeout", f"the request took longer than {timeout_s:g} s")
        except Expired:
            return _error(cmd, "timeout", f"the request took longer than {timeout_s:g} s (stopped)")
        except Busy:
            busy = f"all {pool.workers if pool else 0} workers are busy and {pool.queue if pool else 0} requests wait"
            return _error(cmd, "busy", busy + "; retry later", {"retry-after": str(RETRY_AFTER_S)})
        except Abandoned:
            return _error(cmd, "request_timeout", "the client went away; its request was stopped")
        except WorkerDied as exc:
            return _error(cmd, "internal", str(exc))
        status, data = here
        return _json_response(status, data)

    async def command(request: Request) -> Response:
        cmd = request.path_params["cmd"]
        if cmd not in HTTP_COMMANDS:
            return _error(None, "unknown_command", f"no command {cmd[:64]!r}; see /openapi.json")
        return await post(request, cmd, partial(_answer_here, cmd, movetime_cap_ms=movetime_cap_ms, workers=bool(pool)))

    async def hello(request: Request) -> Response:
        return _json_response(200, Session(require_hello=False).handle({"cmd": "hello"}))

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_spec())

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")

    async def page_view(request: Request) -> Response:
        """The browser page's view of a position (embedding/page.py): the limits of the commands apply."""

        def work(raw: bytes) -> tuple[int, bytes]:
            body = _parse("view", raw, 0)
            reply = body if _is_error(body) else handle_view(body)
            return status_of(reply), encode_bytes(reply)

        return await post(request, "view", work)

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/openapi.json", openapi),
        Route("/v1/view", page_view, methods=["POST"]),
        Route("/v1/hello", hello, methods=["GET"]),
        Route("/v1/{cmd}", command, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = []
    if cors_origins:
        methods, headers = ["GET", "POST"], ["content-type"]
        middleware.append(
            Middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=methods, allow_headers=headers)
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan, exception_handlers={Exception: _defect})
    app.state.pool = pool
    return Guard(app, max_headers)


def _components() -> dict[str, Any]:
    """The protocol schema's definitions as OpenAPI components (OpenAPI 3.1 schemas are JSON Schema)."""
    text = json.dumps(schema()["$defs"]).replace('"#/$defs/', '"#/components/schemas/')
    defs: dict[str, Any] = json.loads(text)
    return defs


def openapi_spec() -> dict[str, Any]:
    defs = _components()

    def body_schema(cmd: str) -> dict[str, Any]:
        base = json.loads(json.dumps(defs[f"request_{cmd}"]))
        props = base["properties"]
        props.pop("cmd", None)
        base["required"] = [r for r in base.get("required", []) if r != "cmd"]
        base.pop("oneOf", None)  # position: either state or config + seed (+ actions); checked by the handler
        if cmd in NEEDS_STATE:
            props["state"] = {"$ref": "#/components/schemas/state"}
            base["required"].append("state")
        if cmd == "go":
            props["bot"] = {"type": "string", "description": "a bot name from /v1/hello"}
            props["bot_seed"] = {"$ref": "#/components/schemas/seed"}
            base["required"].append("bot")
        return base

    reply = {"$ref": "#/components/schemas/reply"}
    paths: dict[str, Any] = {
        "/v1/hello": {
            "get": {
                "summary": "protocol and engine versions, bots, presets and limits",
                "responses": {
                    "200": {"description": "the hello reply", "content": {"application/json": {"schema": reply}}}
                },
            }
        }
    }
    for cmd in HTTP_COMMANDS:
        paths[f"/v1/{cmd}"] = {
            "post": {
                "summary": defs[f"request_{cmd}"].get("description", cmd),
                "requestBody": {"required": True, "content": {"application/json": {"schema": body_schema(cmd)}}},
                "responses": {
                    "200": {"description": "the protocol reply, with 'state' after a change of position",
                            "content": {"application/json": {"schema": reply}}},
                    "400": {"description": "bad JSON or a message that breaks the schema"},
                    "409": {"description": "out of order"},
                    "413": {"description": "request body too large"},
                    "408": {"description": "the body did not arrive in time, or the client went away"},
                    "415": {"description": "the body is not Content-Type: application/json"},
                    "422": {"description": "refused by the engine (illegal action, bad state, unknown bot, budget)"},
                    "431": {"description": "too many request headers"},
                    "503": {"description": "busy (with Retry-After), or the request took longer than the service's "
                                           "time limit (timeout)"},
                },
            }
        }  # fmt: skip
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "balance-control bot service",
            "version": f"{PROTOCOL_VERSION}.0 (engine {engine_version()})",
            "description": "The bot protocol (docs/protocol.md) over HTTP, stateless: the state travels in the "
            "request.",
        },
        "paths": paths,
        "components": {"schemas": defs},
    }
