"""``balance-control serve``: the bot protocol over stdin/stdout, or the HTTP service with its browser page.

``--http`` prints the address it listens on when it is ready (one line on stdout, with the port it got under
``--port 0``), then serves until Ctrl-C.
"""

from __future__ import annotations

import argparse
import math
import socket

from .common import fail

NAME = "serve"
HELP = "serve the bots to other programs: JSON lines over stdio, or HTTP with a browser page (needs .[serve])"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="the line-based JSON protocol on stdin/stdout")
    mode.add_argument("--http", action="store_true", help="the stateless HTTP service and the browser page")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8017, help="HTTP: port (default 8017; 0 picks a free one)")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="HTTP: seconds a request may take, waiting included (default 10)"
    )
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=10.0,
        help="HTTP: seconds for a request's headers, and for its body, to arrive (default 10)",
    )
    parser.add_argument(
        "--keep-alive",
        type=float,
        default=5.0,
        help="HTTP: seconds an idle keep-alive connection stays open (default 5)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="HTTP: service processes sharing the port, each with the limits below (default 1; one per core serves "
        "the most requests)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="HTTP: worker processes for the heuristic, expert and mcts bots' decisions, per service process "
        "(default 2)",
    )
    parser.add_argument(
        "--queue",
        type=int,
        default=4,
        help="HTTP: requests that may wait for a worker, per service process; more get 503 (default 4)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=256,
        help="HTTP: open connections served per service process; more get 503 (default 256)",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: an origin (https://example.org) whose pages may call the API; repeatable (default: none)",
    )

    parser.add_argument(
        "--bot",
        metavar="NAME",
        help="stdio: the bot 'go' uses until a 'bot' command (a tournament entrant: --bots 'cmd:balance-control "
        "serve --stdio --bot heuristic')",
    )
    parser.add_argument(
        "--bot-seed",
        type=int,
        default=None,
        help="stdio: the seed of --bot (default: $BC_BOT_SEED, which the game runner sets per game, else unseeded)",
    )


def _seconds(name: str, value: float) -> float:
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise fail(f"{name} must be a number of seconds in (0, 3600], not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        raise fail("serve needs the serve extra: pip install -e '.[serve]'") from None
    if args.stdio:
        from embedding.stdio import serve

        return serve(bot=_default_bot(args))
    try:
        import uvicorn  # noqa: F401
    except ImportError:
        raise fail("serve --http needs the serve extra: pip install -e '.[serve]'") from None
    if not 0 <= args.port <= 65535:
        raise fail(f"--port must be 0..65535, not {args.port}")
    if args.bot is not None:
        raise fail("--bot is for --stdio (over HTTP every go request names its bot)")
    options = {
        "timeout_s": _seconds("--timeout", args.timeout),
        "read_timeout_s": _seconds("--read-timeout", args.read_timeout),
        "keep_alive_s": _seconds("--keep-alive", args.keep_alive),
    }
    for name, value, lo in (
        ("--processes", args.processes, 1),
        ("--workers", args.workers, 0),
        ("--queue", args.queue, 0),
        ("--max-connections", args.max_connections, 1),
    ):
        if not lo <= value <= 10_000:
            raise fail(f"{name} must be {lo}..10000, not {value}")
    for origin in args.cors_origin:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise fail(f"--cors-origin takes an origin such as https://example.org (or *), not {origin!r}")
    from embedding.server import serve

    sock = listen(args.host, args.port)
    print(f"serving the bots and the browser page at {url(sock)} (Ctrl-C stops)", flush=True)
    serve(
        args.host,
        args.port,
        sockets=[sock],
        processes=args.processes,
        workers=args.workers,
        queue=args.queue,
        max_connections=args.max_connections,
        cors_origins=tuple(args.cors_origin),
        **options,
    )
    return 0


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: one the system picks), so the real address is known
    before the server starts."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise fail(f"--host {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url(sock: socket.socket) -> str:
    """The page's address for a listening socket (``http://127.0.0.1:8017/``; IPv6 in brackets)."""
    host, port = sock.getsockname()[:2]
    if sock.family == socket.AF_INET6:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def _default_bot(args: argparse.Namespace) -> object:
    """The bot of ``--bot`` (None without it), seeded by ``--bot-seed`` or ``$BC_BOT_SEED``."""
    if args.bot is None:
        return None
    import os

    from embedding.protocol import ProtocolError, load_bot

    seed = args.bot_seed
    if seed is None and os.environ.get("BC_BOT_SEED", "").isdigit():
        seed = int(os.environ["BC_BOT_SEED"])
    try:
        return load_bot(args.bot, seed, allow_paths=True)
    except ProtocolError as exc:
        raise fail(str(exc)) from None
