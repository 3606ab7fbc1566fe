"""Perft-style regression data (python-chess style): legal-action counts from fixed positions.

The fixtures in ``tests/fixtures/perft/`` are written by ``tools/make_perft.py`` (see its docstring for the
counting rules; a terminal state before the full depth is one leaf). On a mismatch the test prints the
per-action counts at the root ("divide"), so the first diverging action can be found quickly. Several counts
were derived by hand (``hand`` / ``hand_notes`` in each fixture) and are checked against the engine too.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from bc_env.rules import Game

# Recorded behaviour: scripts/test.sh checks it on the pure-Python engine too (the compiled pass already compares
# the builds state by state, tests/test_compiled_build.py; these pin both to the same recorded games).
pytestmark = pytest.mark.both_builds
ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "perft").glob("*.json"))


def perft(game: Game, depth: int) -> int:
    """Independent of tools/make_perft.py: an explicit stack, counting leaves one by one."""
    count = 0
    stack = [(game, depth)]
    while stack:
        g, d = stack.pop()
        if d == 0 or g.is_terminal():
            count += 1
            continue
        for a in g.legal_actions():
            child = g.clone()
            child.apply(a)
            stack.append((child, d - 1))
    return count


def divide(game: Game, depth: int) -> dict[str, int]:
    out = {}
    for a in game.legal_actions():
        child = game.clone()
        child.apply(a)
        out[game.action_to_string(a)] = perft(child, depth - 1)
    return out


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _ids(paths):
    return [p.stem for p in paths]


def test_there_are_enough_fixtures_across_phases():
    docs = [_load(p) for p in FIXTURES]
    assert len(docs) >= 10
    assert {d["phase"] for d in docs} >= {"place_tile", "political", "pay", "gain", "move_to"}
    assert {d["position"]["config"]["players"] for d in docs} >= {2, 3, 4, 5, 6}
    assert {d["position"]["config"]["topology"] for d in docs} == {"square", "hex"}


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_perft_counts(path):
    doc = _load(path)
    game = Game.from_dict(doc["position"])
    before = game.to_dict()
    assert game.phase_name == doc["phase"] and game.current_player == doc["player"]
    got = {str(d): perft(game, d) for d in range(1, len(doc["perft"]) + 1)}
    if got != doc["perft"]:
        depth = doc["divide_depth"]
        now = divide(game, depth)
        lines = []
        for a in sorted(set(now) | set(doc["divide"])):
            old, new = doc["divide"].get(a), now.get(a)
            lines.append(f"{a}: stored {old} now {new}{'  <-- differs' if old != new else ''}")
        pytest.fail(
            f"{path.stem}: perft stored {doc['perft']} now {got}\nper-action counts at depth {depth}:\n"
            + "\n".join(lines)
        )
    assert game.to_dict() == before  # counting never changes the position


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_divide_is_consistent(path):
    doc = _load(path)
    game = Game.from_dict(doc["position"])
    # The breakdown lists exactly the legal root actions, in action order, and sums to the count.
    assert list(doc["divide"]) == [game.action_to_string(a) for a in game.legal_actions()]
    assert len(doc["divide"]) == doc["perft"]["1"]
    assert sum(doc["divide"].values()) == doc["perft"][str(doc["divide_depth"])]


@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_hand_counts(path):
    doc = _load(path)
    for depth, count in doc["hand"].items():
        assert doc["perft"][depth] == count, f"{path.stem}: depth {depth} differs from the hand count"


def test_fixtures_match_the_generator():
    """``tools/make_perft.py --check``: the stored positions are still what the generator builds."""
    spec = importlib.util.spec_from_file_location("make_perft", ROOT / "tools" / "make_perft.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_perft", module)  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    names = [s.name for s in module.SPECS]
    assert sorted(names) == [p.stem for p in FIXTURES]
    for s in module.SPECS:
        assert module.make_fixture(s) == _load(ROOT / "tests" / "fixtures" / "perft" / f"{s.name}.json"), s.name


def test_pay_fixtures_offer_at_least_two_resources():
    """BC-05: a pay decision never offers a single Resource; the Start Committee fixture opens with the DOM that
    every payment has first already taken (docs/actions.md, Payments)."""
    pays = {p.stem: _load(p) for p in FIXTURES if _load(p)["phase"] == "pay"}
    assert sorted(pays) == ["pay_standard_committee", "pay_start_committee"]
    for name, doc in pays.items():
        assert doc["perft"]["1"] >= 2 and all(a.startswith("pay ") for a in doc["divide"]), name
    assert pays["pay_standard_committee"]["position"]["pending"]["paid"] == []
    assert pays["pay_start_committee"]["position"]["pending"]["paid"] == ["DOM"]
    assert list(pays["pay_start_committee"]["divide"]) == ["pay DOM", "pay FOR"]
