"""The SVG board (bc_env/env/svg.py): well-formed, deterministic, and showing what the text renderer shows."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from bc_env.env.svg import render_svg
from bc_env.rules import Game
from bc_env.rules.components import HOTSPOT

NS = "{http://www.w3.org/2000/svg}"


def play(preset: str, seed: int, steps: int, measures: bool = False) -> Game:
    """A seeded random game (``measures``: prefer Measure actions, to get effects in force)."""
    game, rng = Game.new(preset, seed), random.Random(seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        legal = game.legal_actions()
        picks = [a for a in legal if game.action_to_string(a).startswith(("play", "take", "target"))]
        game.apply(rng.choice(picks) if measures and picks and rng.random() < 0.7 else rng.choice(legal))
    return game


def cells(svg: str, cls: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.get("data-cell") for g in root.iter(f"{NS}g") if cls in (g.get("class") or "").split()]


@pytest.mark.parametrize("preset", ["core-2p", "core-4p-hex", "core-6p", "exp01-4p"])
def test_tiles_frontier_influence_and_panel(preset):
    for steps in (0, 1, 60, 10_000):
        game = play(preset, 4, steps)
        svg = render_svg(game)
        assert svg == render_svg(Game.from_dict(game.to_dict()))  # a function of the state alone
        tiles = cells(svg, "tile")
        assert sorted(tiles) == sorted(game.topo.label(c) for c in game.board)
        placing = game.phase_name == "place_tile" and not game.is_terminal()
        legal_cells = sorted(game.action_to_string(a).split()[1] for a in game.legal_actions()) if placing else []
        assert sorted(cells(svg, "frontier")) == legal_cells
        root = ET.fromstring(svg)
        badges = [g for g in root.iter(f"{NS}g") if g.get("class") == "influence"]
        expected = [(p, n) for c in game.board for p, n in enumerate(game.influence_on(c)) if n]
        assert [(int(g.get("data-seat")), int(g.find(f"{NS}text").text)) for g in badges] == expected
        for p in range(game.num_players):
            assert f"P{p}: supply {game.supply[p]} · on board {game.on_board[p]}/{game.cap}" in svg
        if game.is_terminal():
            assert "winners: " + ", ".join(f"P{p}" for p in game.winners()) in svg
        else:
            assert f"P{game.current_player} to decide: {game.phase_name}" in svg


def test_effects_in_force_and_resolved_hotspots():
    game = play("exp01-4p", 0, 113, measures=True)
    effects = game.to_dict()["active_effects"]
    assert effects and effects[0]["data"]["cell"] == 175
    svg = render_svg(game)
    root = ET.fromstring(svg)
    marks = [r for r in root.iter(f"{NS}rect") if r.get("class") == "effect"]
    assert len(marks) == 1 and marks[0].find(f"{NS}title").text == effects[0]["id"]
    assert "effects in force:" in svg and f"{effects[0]['id']} (P{effects[0]['owner']}" in svg
    for g in (game, play("core-2p", 1, 10_000)):
        resolved = sum(1 for c in g.board if g.tile_spec(c).kind == HOTSPOT and g.resolved[c])
        assert resolved and render_svg(g).count(">h*<") == resolved
