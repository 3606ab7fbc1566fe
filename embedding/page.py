"""What the browser page shows of one position, as one JSON object (``POST /v1/view`` of the HTTP service).

The page (``embedding/static/``) draws everything from this object: the board (the SVG of
:func:`bc_env.env.svg.board_svg`, which it scales to the window), the seats, the tile in hand, the Measure
cards with their names and printed texts (``embedding/cards.json``, written by ``tools/card_texts.py`` from the
rule specifications), the effects in force, EXP-02's Regulations, EXP-03's CountdownMarkers, the legal actions
and, at the end, the result. The request is ``{"state": ...}`` or ``{"config", "seed", "actions"}`` as for
``position``; it changes nothing.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from bc_env.env.render import PLAYER_COLOURS
from bc_env.env.svg import REGULATION_NAMES, board_svg, text_colour, tile_fill
from bc_env.rules import Game

from .protocol import Session, error_reply, request_id, summary

#: The Regulation types as the JSON state names them (EXP-02, docs/state-schema.md), in REGULATION_NAMES order.
TYPE_KEYS = ("security-level", "control", "administration", "blockade")
CARDS = Path(__file__).resolve().parent / "cards.json"
#: The action verbs whose argument is a cell ("x,y") of the board.
CELL_VERBS = ("place-tile", "place", "move-from", "move-to", "formalize", "convert", "target", "security-level",
              "control", "administration", "blockade")  # fmt: skip


@cache
def card_texts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CARDS.read_text(encoding="utf-8"))
    return data


def cards_of(game: Game) -> dict[str, dict[str, Any]]:
    """Every MeasureCard of the game: key -> name, deck, cost, target and printed text (the game's edition)."""
    editions = card_texts()["editions"]
    out: dict[str, dict[str, Any]] = {}
    for m in game.measures:
        edition = "EXP-01-v1.3" if m.deck == "EXP-01" and game.config.exp01_edition == "v1.3" else m.deck
        entry = editions.get(edition, {}).get(m.key, {})
        out[m.key] = {"name": m.name, "deck": m.deck, "text": entry.get("text", [])}
    return out


def _seat_colour(p: int) -> str:
    return "#{:02x}{:02x}{:02x}".format(*PLAYER_COLOURS[p % 6])


def view(game: Game) -> dict[str, Any]:
    """The page's view of ``game`` (JSON data)."""
    state = game.to_dict()
    label = game.topo.label
    over = game.is_terminal()
    seats = []
    for p in range(game.num_players):
        seats.append({
            "seat": p,
            "colour": _seat_colour(p),
            "supply": game.supply[p],
            "on_board": game.on_board[p],
            "cap": game.cap,
            "resources": dict(zip(game.config.resorts, game.resources_of(p))),
            "start_committee_used": bool(game.start_used[p]),
            "hand": list(state["measures"]["hands"][p]) if "measures" in state else [],
        })  # fmt: skip
    tile = None
    if game.drawn >= 0 and not over:
        spec = game.catalogue[game.drawn]
        fill = tile_fill(spec)
        rgb = (int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16))
        tile = {"name": spec.name, "code": spec.code, "fill": fill, "ink": text_colour(rgb)}
    decks = []
    for deck, zones in state.get("measures", {}).get("decks", {}).items():
        decks.append({
            "deck": deck,
            "open": zones["open"],
            "draw_pile": len(zones["draw_pile"]),
            "recycle_pile": len(zones["recycle_pile"]),
            "final_discard": len(zones["final_discard"]),
        })  # fmt: skip
    names = {m.key: m.name for m in game.measures}
    effects = []
    for e in state["active_effects"]:
        cell = e.get("data", {}).get("cell")
        effects.append({
            "id": e["id"],
            "name": names.get(e["id"], e["id"]),
            "owner": e["owner"],
            "until": e["until"],
            "cell": label(cell) if isinstance(cell, int) else None,
        })  # fmt: skip
    legal = [] if over else game.legal_actions()
    out: dict[str, Any] = {
        "game": summary(game),
        "round": game.round,
        "turn": game.turns_in_round + 1,
        "draw_pile": len(game.draw_pile),
        "discard": len(game.discard),
        "tile_in_hand": tile,
        "seats": seats,
        "decks": decks,
        "effects": effects,
        "cards": cards_of(game),
        "legal": [{"id": a, "string": game.action_to_string(a)} for a in legal],
        "svg": board_svg(game),
    }
    if "regulations" in state:  # EXP-02: per tile the counts by type, "C2 B1" as on the board
        attached = []
        for cell, types in state["regulations"]["attached"].items():
            counts = {REGULATION_NAMES[TYPE_KEYS.index(t)]: n for t, n in types.items()}
            short = " ".join(f"{name[0]}{n}" for name, n in counts.items())
            attached.append({"cell": cell, "counts": counts, "short": short})
        out["regulations"] = {
            "attached": attached,
            "count": sum(sum(a["counts"].values()) for a in attached),
            "texts": card_texts()["regulations"],
        }
    if "countdown" in state:
        out["countdown"] = state["countdown"]
    if over:
        out["influence"] = list(game.on_board)
    return out


def handle_view(body: Any) -> dict[str, Any]:
    """The reply to ``POST /v1/view``: the position of the request (as ``position`` reads it) and its view."""
    if not isinstance(body, dict):
        return error_reply(None, "view", "bad_message", f"the request body is a JSON object, not {type(body).__name__}")
    ident = request_id(body)
    session = Session(allow_paths=False, require_hello=False)
    reply = session.handle({**{k: v for k, v in body.items() if k != "id"}, "cmd": "position"})
    if not reply["ok"]:
        return {**reply, "id": ident, "cmd": "view"}
    assert session.game is not None
    return {"ok": True, "id": ident, "cmd": "view", **view(session.game)}
