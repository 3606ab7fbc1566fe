"""The bot protocol over HTTP, stateless: every request carries the state it works on (Starlette + uvicorn).

``create_app()`` returns the ASGI app; ``balance-control serve --http`` runs it with uvicorn. Each ``POST
/v1/<command>`` takes the protocol message of that command (without ``cmd``) plus, where the command needs a
game, the ``state`` (``Game.to_dict()``), and for ``go`` the ``bot`` (a name from ``/v1/hello``; no paths over
HTTP) and its ``bot_seed``. The reply is the protocol's reply; the commands that set or change the position
return the new ``state`` too. ``GET /openapi.json`` describes the API, ``GET /`` serves the browser page and
``POST /v1/view`` (not a protocol command: embedding/page.py) gives the page what it shows of a position.

Limits: a request body of at most ``max_body`` bytes (413 otherwise) and ``timeout_s`` seconds of work (503
otherwise); the ``movetime_ms`` of ``go`` is capped by it.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .page import handle_view
from .protocol import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, Session, engine_version, error_reply, request_id, schema

STATIC = Path(__file__).resolve().parent / "static"
#: The HTTP commands and what each needs besides its protocol message.
NEEDS_STATE = ("legal", "apply", "go", "state", "render")
HTTP_COMMANDS = ("new", "position", "legal", "apply", "go", "render")
STATUS = {
    "bad_json": 400,
    "bad_message": 400,
    "unknown_command": 404,
    "too_large": 413,
    "out_of_order": 409,
    "timeout": 503,
    "internal": 500,
}


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


def create_app(*, timeout_s: float = 10.0, max_body: int = MAX_MESSAGE_BYTES) -> Starlette:
    """The ASGI app: ``/v1/*`` (JSON), ``/openapi.json``, the page at ``/`` and its files under ``/static``."""

    async def read_body(request: Request) -> bytes | None:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body):
            return None
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    def respond(reply: dict[str, Any]) -> JSONResponse:
        status = 200
        if not reply["ok"]:
            status = STATUS.get(reply["error"]["code"], 422)
        return JSONResponse(reply, status_code=status)

    async def command(request: Request) -> Response:
        cmd = request.path_params["cmd"]
        if cmd not in HTTP_COMMANDS:
            return respond(error_reply(None, None, "unknown_command", f"no command {cmd[:64]!r}; see /openapi.json"))
        raw = await read_body(request)
        if raw is None:
            return respond(error_reply(None, cmd, "too_large", f"request body over {max_body} bytes"))
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            return respond(error_reply(None, cmd, "bad_json", f"not a JSON body: {str(exc)[:200]}"))
        if cmd == "go" and isinstance(body, dict) and isinstance(body.get("movetime_ms"), int):
            body["movetime_ms"] = min(body["movetime_ms"], int(timeout_s * 1000))
        try:
            reply = await asyncio.wait_for(run_in_threadpool(partial(handle, cmd, body)), timeout=timeout_s)
        except TimeoutError:
            reply = error_reply(None, cmd, "timeout", f"the request took longer than {timeout_s:g} s")
        return respond(reply)

    async def hello(request: Request) -> Response:
        reply = Session(require_hello=False).handle({"cmd": "hello"})
        return respond(reply)

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_spec())

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")

    async def page_view(request: Request) -> Response:
        """The browser page's view of a position (embedding/page.py): the limits of the commands apply."""
        raw = await read_body(request)
        if raw is None:
            return respond(error_reply(None, "view", "too_large", f"request body over {max_body} bytes"))
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            return respond(error_reply(None, "view", "bad_json", f"not a JSON body: {str(exc)[:200]}"))
        try:
            reply = await asyncio.wait_for(run_in_threadpool(partial(handle_view, body)), timeout=timeout_s)
        except TimeoutError:
            reply = error_reply(None, "view", "timeout", f"the request took longer than {timeout_s:g} s")
        return respond(reply)

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/openapi.json", openapi),
        Route("/v1/view", page_view, methods=["POST"]),
        Route("/v1/hello", hello, methods=["GET"]),
        Route("/v1/{cmd}", command, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


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
                    "422": {"description": "refused by the engine (illegal action, bad state, unknown bot, budget)"},
                    "503": {"description": "the request took longer than the service's time limit"},
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
