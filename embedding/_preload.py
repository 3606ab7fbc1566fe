"""Imported once by the fork server of the worker pool (``embedding.pool.PRELOAD``): every worker is a fork of that
process, so it starts with the engine, the bots and the protocol's validators loaded, and answers its first
request as fast as its hundredth (a cold worker spends about 0.2 s on its first)."""

from __future__ import annotations

import json

from bc_env.rules import Game

from .http import HTTP_COMMANDS, answer


def warm() -> None:
    game = Game.new("core-2p", 0)
    state = game.to_dict()
    bodies = {
        "new": {"config": "core-2p", "seed": 0},
        "position": {"state": state},
        "legal": {"state": state},
        "apply": {"state": state, "action": game.legal_actions()[0]},
        "go": {"state": state, "bot": "mcts", "nodes": 2, "movetime_ms": 5000},
        "render": {"state": state, "format": "svg"},
    }
    for cmd in HTTP_COMMANDS:
        answer(cmd, json.dumps(bodies[cmd]).encode("utf-8"), 10_000)
    for bot in ("heuristic", "expert"):
        answer("go", json.dumps({"state": state, "bot": bot}).encode("utf-8"), 10_000)


warm()
