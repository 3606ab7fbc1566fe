#!/usr/bin/env python
"""Regenerate (or check) the perft fixtures in ``tests/fixtures/perft/`` (python-chess style).

Each fixture holds a position (the full ``Game.to_dict()`` state, events stripped), the number of leaf decision
sequences at depth 1..3 and the per-action breakdown ("divide") at the root. Counting rules:

* a sequence is a chain of legal actions of the pending decisions, whoever owns them; chance (tile draws) is
  inside the engine and deterministic given the stored state (DrawPile order, RNG);
* ``perft(g, 0) = 1``; a terminal state reached before the full depth counts as one leaf (it ends its sequence);
* ``perft(g, d) = sum(perft(g.apply(a), d - 1) for a in g.legal_actions())``.

Some counts were derived by hand (``hand`` and ``hand_notes`` in each spec below); the tool refuses to write a
fixture whose engine counts disagree with the hand counts, and ``tests/test_perft.py`` checks them again.

Usage::

    .venv/bin/python tools/make_perft.py            # rewrite every fixture
    .venv/bin/python tools/make_perft.py --check    # compare; exit 1 and print per-action counts on mismatch
    .venv/bin/python tools/make_perft.py --only political_formalize_convert
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from positions import Position, act, cfg  # noqa: E402

from bc_env.rules import Game  # noqa: E402

FIXTURE_DIR = ROOT / "tests" / "fixtures" / "perft"
FORMAT = "balance-control-perft"
MAX_DEPTH = 3


# ---------------------------------------------------------------------------- counting


def perft(game: Game, depth: int) -> int:
    """Leaf decision sequences of length ``depth`` (or ending the game earlier). ``game`` is not changed."""
    if depth == 0 or game.is_terminal():
        return 1
    legal = game.legal_actions()
    if depth == 1:
        return len(legal)  # every child is a leaf, terminal or not
    total = 0
    for a in legal:
        child = game.clone()
        child.apply(a)
        total += perft(child, depth - 1)
    return total


def divide(game: Game, depth: int) -> dict[str, int]:
    """perft(child, depth - 1) per legal root action, keyed by the action string (in action order)."""
    out = {}
    for a in game.legal_actions():
        child = game.clone()
        child.apply(a)
        out[game.action_to_string(a)] = perft(child, depth - 1)
    return out


# ---------------------------------------------------------------------------- positions


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    build: Callable[[], Game]
    hand: dict[int, int] = field(default_factory=dict)
    hand_notes: tuple[str, ...] = ()


def _political_base() -> Game:
    """2 players, 5x5 table, P0 to take the Political Action; the formalization gate is open.

    ::

        y\\x  1    2    3
        1        F2
        2   Co   SC   D3
        3        Gr

    D3 = DOM-W3 (P0 2, P1 1), F2 = FOR-W2 (P0 2, P1 3), Co = Committee, Gr = Grassroots. P0: supply 1 (one
    Influence created earlier), DOM 2, FOR 1, INF 1.
    """
    pos = Position(cfg("core-2p", table_size=5), seed=11)
    pos.put("3,2", "DOM-W3", influence=[2, 1])
    pos.put("2,1", "FOR-W2", influence=[2, 3])
    pos.put("1,2", "Committee")
    pos.put("2,3", "Grassroots")
    pos.player(0, supply=1, resources={"DOM": 2, "FOR": 1, "INF": 1})
    return pos.game()


def _start_committee_base() -> Game:
    """As :func:`_political_base`, but P0 holds DOM 2, FOR 2, INF 2."""
    game = _political_base()
    d = game.to_dict()
    d["players"][0]["resources"] = {"DOM": 2, "FOR": 2, "INF": 2}
    d["bank"] = {"DOM": -2, "FOR": -2, "INF": -2}  # unlimited Bank: the net balance
    return Game.from_dict(d)


def _after(build: Callable[[], Game], *actions: str) -> Callable[[], Game]:
    def make() -> Game:
        game = build()
        act(game, *actions)
        return game

    return make


def _seeded(preset: str, seed: int, plies: int, **changes: Any) -> Callable[[], Game]:
    """A real game: ``plies`` actions of a fixed deterministic choice rule from ``Game.new``."""

    def make() -> Game:
        game = Game.new(cfg(preset, **changes), seed)
        for i in range(plies):
            legal = game.legal_actions()
            game.apply(legal[(i * 7919 + 13) % len(legal)])
        assert not game.is_terminal()
        return game

    return make


def _near_end() -> Game:
    """2 players, empty DrawPile, P0 (start player) to act: whatever P0 does, P1's draw ends the game."""
    pos = Position(cfg("core-2p", table_size=5), seed=5)
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    pos.put("1,2", "Committee", influence=[0, 1])
    pos.put("2,1", "Lobbyist")
    pos.player(0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    pos.pile_only()
    return pos.game()


def _one_tile_left() -> Game:
    """3 players, one tile left in the DrawPile, P1 (second of the round) to act."""
    pos = Position(cfg("core-3p", table_size=5), seed=6)
    pos.put("3,2", "INF-W3", influence=[1, 1, 0])
    pos.put("2,1", "Grassroots", influence=[0, 0, 1])
    pos.player(1, resources={"FOR": 2})
    pos.pile_only("Hotspot")
    pos.turn(active=1, turns_in_round=1)
    return pos.game()


def _full_table_variants() -> Game:
    """core-4p-variants (TileRecycling, FirstPlayerHandicap) on a full 3x3 table; P3 takes the last turn of
    round 1 with P0's handicap (starting 1)."""
    pos = Position(cfg("core-4p-variants", table_size=3), seed=8)
    pos.put("1,0", "DOM-W3", influence=[1, 2, 0, 0])
    pos.put("0,1", "Committee", influence=[0, 0, 2, 1])
    pos.fill("Lobbyist")
    pos.player(0, starting=1)
    pos.player(3, resources={"DOM": 1, "FOR": 1, "INF": 1})
    pos.turn(active=3, turns_in_round=3)
    return pos.game()


def _hotspots_place_tile() -> Game:
    """2 players, 5x5 table, P0 holds a Hotspot; two open Hotspots H1 (1,1) and H2 (3,1) share the hole 2,1.

    ::

        y\\x  0   1   2   3   4
        0        Co  Lo  Co
        1    Co  H1  ..  H2  Co
        2        Co  SC  Co
    """
    pos = Position(cfg("core-2p", table_size=5), seed=9)
    for c in ("1,2", "3,2", "0,1", "1,0", "3,0", "4,1"):
        pos.put(c, "Committee")
    pos.put("1,1", "Hotspot", influence=[1, 0])
    pos.put("3,1", "Hotspot", influence=[0, 1])
    pos.put("2,0", "Lobbyist", influence=[1, 0])
    pos.drawn("Hotspot")
    return pos.game()


def _six_players_cap() -> Game:
    """6 players on a 7x7 table, gate open; P2 is at the cap of 8 (ADD56-01-03-00-01) and to act."""
    pos = Position(cfg("core-6p", table_size=7), seed=10)
    pos.put("4,3", "DOM-W4", influence=[2, 2, 5, 0, 1, 0])
    pos.put("3,2", "Committee", influence=[0, 0, 1, 2, 1, 2])
    pos.put("2,3", "Grassroots", influence=[0, 0, 0, 0, 0, 0])
    pos.put("3,4", "Lobbyist", influence=[0, 0, 0, 0, 0, 0])
    pos.player(2, supply=2, resources={"DOM": 3, "FOR": 1, "INF": 1})
    pos.player(3, resources={"DOM": 1, "FOR": 1})
    pos.turn(active=2, turns_in_round=2)
    return pos.game()


def _regulations_exp02() -> Game:
    """exp02-2p on a 5x5 table, P0 to act: Control on the Committee, the Authority Apparatus on the Board.

    ::

        y\\x  1    2    3
        1        AA
        2   Co*  SC   D3
        3        Gr

    D3 = DOM-W3 (P0 1), Co* = Committee with a Control (EXP-02-02-B-03), AA = Authority Apparatus. P0 has no
    Resources, supply 3; the formalization gate is closed (P0 deployed 1 of 4).
    """
    pos = Position(cfg("exp02-2p", table_size=5), seed=12)
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    pos.put("2,1", "Authority Apparatus")
    pos.put("1,2", "Committee")
    pos.put("2,3", "Grassroots")
    data = pos.to_dict()
    data["regulations"] = {"attached": {"1,2": {"control": 1}}, "placed": 1, "returned": 0}
    return Game.from_dict(data)


SPECS: list[Spec] = [
    Spec(
        "start_core_2p",
        "core-2p from Game.new(seed=1): the start player places the first tile",
        lambda: Game.new(cfg("core-2p"), 1),
        hand={1: 4, 2: 4, 3: 24},
        hand_notes=(
            "d1: the 4 cells next to the Start Committee (CORE-01-04-05).",
            "d2: then the only Political Action is Place on that one tile (no Move: one non-Start tile, BC-13;"
            " no Formalize: gate closed, CORE-01-08-02; no Resources for Convert): 4 x 1.",
            "d3: P1's tile: 3 cells left next to the Start Committee + 3 next to the new tile = 6: 4 x 6 = 24.",
        ),
    ),
    Spec(
        "start_core_4p_hex",
        "core-4p-hex from Game.new(seed=2): the first tile on the hex table",
        lambda: Game.new(cfg("core-4p-hex"), 2),
        hand={1: 6, 2: 6, 3: 48},
        hand_notes=(
            "d1: the 6 hex neighbours of the Start Committee (RULINGS R1).",
            "d2: Place on the one tile is the only Political Action: 6 x 1.",
            "d3: 5 free centre neighbours + 3 new cells next to the placed tile (its other 2 neighbours are"
            " centre neighbours already) = 8: 6 x 8 = 48.",
        ),
    ),
    Spec(
        "political_formalize_convert",
        "core-2p 5x5, P0's Political Action with Place, Move, both Committees and a Grassroots on offer",
        _political_base,
        hand={1: 9, 2: 50, 3: 154},
        hand_notes=(
            "d1: place x4 (every non-Start tile) + move-from x2 (3,2 and 2,1) + formalize 1,2 (pairs DOM/FOR,"
            " DOM/INF, FOR/INF) + formalize 2,2 (DOM DOM FOR INF) + convert 2,3 (DOM DOM) = 9.",
            "d2: each place ends the turn; P1 draws and has 8 placement cells (4,2 3,1 3,3 1,1 2,0 0,2 1,3 2,4):"
            " 4 x 8 = 32; move-to: 3 destinations per source: 6; formalize 1,2 asks the first pick DOM or FOR"
            " (BC-05): 2; formalize 2,2 is determined and ends the turn: 8; convert pays DOM DOM by itself and"
            " asks the gain FOR or INF: 2. 32 + 6 + 2 + 8 + 2 = 50.",
            "d3: P1 (supply 0, no Resources) then has exactly 2 Political Actions (move-from 3,2 / 2,1): place"
            " 4 x 8 x 2 = 64; move 6 x 8 = 48; formalize 1,2: pay DOM then FOR|INF (2) + pay FOR completes and"
            " P1 places (8) = 10; formalize 2,2: 8 x 2 = 16; convert: 2 gains x 8 = 16. Total 154.",
        ),
    ),
    Spec(
        "pay_standard_committee",
        "the pay decision of formalize 1,2 in political_formalize_convert",
        _after(_political_base, "formalize 1,2"),
        hand={1: 2, 2: 10, 3: 32},
        hand_notes=(
            "d1: pay DOM or pay FOR (INF cannot come first in ascending order, BC-05).",
            "d2: after DOM: pay FOR or pay INF (2); after FOR the payment FOR INF is determined and completes,"
            " P1 places its tile: 8. 2 + 8 = 10.",
            "d3: after DOM FOR / DOM INF P1 places (8 + 8); after FOR, P1's 8 placements each leave P1 2 moves"
            " (16). 16 + 16 = 32.",
        ),
    ),
    Spec(
        "pay_start_committee",
        "the pay decisions of formalize 2,2 (Start Committee) with DOM 2, FOR 2, INF 2",
        _after(_start_committee_base, "formalize 2,2"),
        hand={1: 2, 2: 10, 3: 32},
        hand_notes=(
            "Payments (3 different + 1 any, CORE-01-08-08): DOM DOM FOR INF, DOM FOR FOR INF, DOM FOR INF INF.",
            "In ascending resort order every payment starts with DOM: BC-05 takes it without asking, so the"
            " decision opens with paid = [DOM] and asks for the second Resource.",
            "d1: pay DOM (DOM DOM FOR INF) or pay FOR (DOM FOR FOR INF, DOM FOR INF INF): 2.",
            "d2: after DOM the payment is complete, the turn ends and P1 places its tile: 8; after FOR: pay FOR"
            " or pay INF: 2. 8 + 2 = 10.",
            "d3: after DOM, P1's 8 placements each leave P1 2 moves (supply 0, no Resources): 16; after FOR FOR"
            " and FOR INF the payment completes and P1 places: 8 + 8. 16 + 16 = 32.",
        ),
    ),
    Spec(
        "gain_convert",
        "the gain decision of convert 2,3 in political_formalize_convert",
        _after(_political_base, "convert 2,3"),
        hand={1: 2, 2: 16, 3: 32},
        hand_notes=(
            "d1: gain FOR or gain INF (not DOM, the paid resort: R16).",
            "d2: 2 x 8 placement cells.",
            "d3: 2 x 8 x 2 (P1's two moves).",
        ),
    ),
    Spec(
        "move_to",
        "the destination of move-from 3,2 in political_formalize_convert",
        _after(_political_base, "move-from 3,2"),
        hand={1: 3, 2: 24, 3: 48},
        hand_notes=(
            "d1: 2,1 1,2 2,3 (not the source, not the Start Committee: R10).",
            "d2: 3 x 8.",
            "d3: 3 x 8 x 2 (P1's two moves).",
        ),
    ),
    Spec(
        "near_end_empty_pile",
        "core-2p, empty DrawPile, P0 to act: every sequence ends the game within two actions",
        _near_end,
        hand={1: 4, 2: 5, 3: 5},
        hand_notes=(
            "d1: place on 1,2 / 2,1 / 3,2 (supply 3) + move-from 3,2; gate closed (P0 deployed 1 of 4). = 4",
            "d2: each place ends the game (P1 cannot draw: R8), a terminal leaf: 3; move-to 1,2 or 2,1: 2. = 5",
            "d3: the same 5 sequences, all terminal already. = 5",
        ),
    ),
    Spec(
        "one_tile_left_3p",
        "core-3p, one Hotspot left in the DrawPile, P1 to act in the middle of the round",
        _one_tile_left,
        hand={1: 4, 2: 17, 3: 77},
        hand_notes=(
            "d1: place 3,2 / 2,1 (supply 2) + move-from 3,2 + convert 2,1 (FOR FOR); gate closed. = 4",
            "d2: place: P2 draws the last tile (a Hotspot) with 7 cells (1,2 2,3 4,2 3,1 3,3 1,1 2,0): 2 x 7;"
            " move-to 2,1: 1; convert: gain DOM or INF: 2. = 17",
            "d3: place x 7 cells x P2's 4 actions (place on 3 tiles, move-from 2,1; no Hotspot closes): 56;"
            " move: P2 places the last tile: 7; convert: 2 x 7 = 14. = 77",
        ),
    ),
    Spec(
        "full_table_variants",
        "core-4p-variants on a full 3x3 table (recycling finds no placeable tile), P3 ends round 1",
        _full_table_variants,
        hand={1: 9, 2: 15, 3: 15},
        hand_notes=(
            "d1: place on the 8 tiles (supply 1) + move-from 0,1; gate closed (P3 deployed 1 of 2). = 9",
            "d2: a place ends round 1, P0 finds no placeable tile: the game ends (R4, BC-08): 8 terminal leaves;"
            " move-to: 7 destinations, each then terminal. = 15",
            "d3: all 15 sequences are terminal already. = 15",
        ),
    ),
    Spec(
        "hotspots_place_tile",
        "core-2p 5x5, P0 holds a Hotspot; placing it on 2,1 closes three Hotspots at once (R5)",
        _hotspots_place_tile,
        hand={1: 8, 2: 87},
        hand_notes=(
            "d1: 8 free cells next to the Board: 2,1 0,0 0,2 1,3 2,3 3,3 4,2 4,0.",
            "d2: placing on 2,1 closes 2,1 (P0 leads by the Lobbyist at 2,0), then 1,1 (P0) and 3,1 (P1): P0's"
            " supply 2 goes onto 2,1 and 1,1, so P0 can only move (from 1,1, 2,0, 2,1): 3. Every other cell"
            " leaves P0 place x 10 tiles + move-from x 2 = 12 (the corners 0,0 and 4,0 close the new Hotspot"
            " without a majority). 7 x 12 + 3 = 87.",
        ),
    ),
    Spec(
        "cap_6p",
        "core-6p 7x7, P2 at the Influence cap of 8 (no Formalize) with Resources for every Committee",
        _six_players_cap,
        hand={1: 7, 2: 40, 3: 128},
        hand_notes=(
            "d1: place x 4 + move-from 4,3 / 3,2 + convert 2,3 (DOM DOM); no Formalize: 8 = cap (R12). = 7",
            "d2: place: P3 draws, 8 cells around the plus-shaped Board: 4 x 8; move-to: 2 x 3; convert: gain FOR"
            " or INF: 2. = 40",
            "d3: P3 (supply 0, DOM 1, FOR 1) has move-from 3,2 and formalize 3,2 (the Start Committee needs 4"
            " Resources): 2. place 4 x 8 x 2 + move 6 x 8 + convert 2 x 8 = 64 + 48 + 16 = 128",
        ),
    ),
    Spec(
        "midgame_core_3p",
        "core-3p after 40 actions of a fixed choice rule from Game.new(seed=7)",
        _seeded("core-3p", 7, 40, table_size=9),
    ),
    Spec(
        "midgame_core_4p_hex",
        "core-4p-hex after 30 actions of a fixed choice rule from Game.new(seed=3)",
        _seeded("core-4p-hex", 3, 30, table_size=9),
    ),
    Spec(
        "regulations_exp02_2p",
        "exp02-2p 5x5, P0 to act with a Control on the Committee and the Authority Apparatus on the Board",
        _regulations_exp02,
        hand={1: 9, 2: 52},
        hand_notes=(
            "d1: place 3,2 / 2,1 / 2,3 (place 1,2 costs +1 for the Control and P0 has no Resources: R26, R28)"
            " + move-from 3,2 + take x 3 open EXP-02 Measures (free) + move-regulation + remove-regulation (AA,"
            " R25); gate closed, no Resources, no card in hand. = 9",
            "d2: each place and take ends the turn and P1 places its tile on one of 8 cells: 6 x 8 = 48; move-to"
            " 2,1 / 2,3 (not 1,2: unpaid surcharge): 2; the AA decisions name the one Regulation, control 1,2:"
            " 1 + 1. = 52",
        ),
    ),
    Spec(
        "midgame_exp02_4p",
        "exp02-4p (9x9 table) after 40 actions of a fixed choice rule from Game.new(seed=5)",
        _seeded("exp02-4p", 5, 40, table_size=9),
    ),
    Spec(
        "midgame_exp0102_4p",
        "exp0102-4p (EXP-01 and EXP-02, 9x9 table) after 40 actions of a fixed choice rule from Game.new(seed=6)",
        _seeded("exp0102-4p", 6, 40, table_size=9),
    ),
    Spec(
        "midgame_core_5p",
        "core-5p (default 15x15 table) after 60 actions of a fixed choice rule from Game.new(seed=4)",
        _seeded("core-5p", 4, 60),
    ),
    Spec(
        "midgame_exp03_4p",
        "exp03-4p (9x9 table) after 70 actions of a fixed choice rule from Game.new(seed=2): CLM, EXP-03 Measures",
        _seeded("exp03-4p", 2, 70, table_size=9),
    ),
    Spec(
        "midgame_exp0103_4p",
        "exp0103-4p (9x9 table) after 80 actions of a fixed choice rule from Game.new(seed=6): both decks",
        _seeded("exp0103-4p", 6, 80, table_size=9),
    ),
    Spec(
        "midgame_exp0203_4p",
        "exp0203-4p (9x9 table) after 60 actions of a fixed choice rule from Game.new(seed=3): SEC, CLM, two decks",
        _seeded("exp0203-4p", 3, 60, table_size=9),
    ),
    Spec(
        "midgame_all_4p",
        "all-4p (9x9 table) after 60 actions of a fixed choice rule from Game.new(seed=5): all 40 Measures",
        _seeded("all-4p", 5, 60, table_size=9),
    ),
]


# ---------------------------------------------------------------------------- fixtures


def make_fixture(spec: Spec) -> dict[str, Any]:
    position = spec.build().to_dict()
    position["events"] = []
    game = Game.from_dict(position)  # count from exactly what is stored
    counts = {str(d): perft(game, d) for d in range(1, MAX_DEPTH + 1)}
    for d, want in spec.hand.items():
        if counts[str(d)] != want:
            raise SystemExit(
                f"{spec.name}: engine perft({d}) = {counts[str(d)]} but the hand count is {want}; "
                f"divide: {divide(game, d)}"
            )
    return {
        "format": FORMAT,
        "name": spec.name,
        "description": spec.description,
        "phase": game.phase_name,
        "player": game.current_player,
        "perft": counts,
        "divide_depth": MAX_DEPTH,
        "divide": divide(game, MAX_DEPTH),
        "hand": {str(d): n for d, n in spec.hand.items()},
        "hand_notes": list(spec.hand_notes),
        "position": position,
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored fixtures, write nothing")
    parser.add_argument("--only", action="append", default=[], help="only this fixture (repeatable)")
    args = parser.parse_args(argv)
    specs = [s for s in SPECS if not args.only or s.name in args.only]
    FIXTURE_DIR.mkdir(parents=True, exist_ok=True)
    failed = 0
    for spec in specs:
        doc = make_fixture(spec)
        path = FIXTURE_DIR / f"{spec.name}.json"
        if args.check:
            if not path.is_file():
                print(f"MISSING {path.relative_to(ROOT)}")
                failed += 1
                continue
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored != doc:
                failed += 1
                print(f"MISMATCH {spec.name}: stored perft {stored.get('perft')} now {doc['perft']}")
                old, new = stored.get("divide", {}), doc["divide"]
                for a in sorted(set(old) | set(new), key=lambda s: (s not in new, s)):
                    if old.get(a) != new.get(a):
                        print(f"  {a}: stored {old.get(a)} now {new.get(a)}")
            else:
                print(f"ok {spec.name} {doc['perft']}")
        else:
            path.write_text(dumps(doc), encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} {doc['perft']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
