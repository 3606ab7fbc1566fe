"""Golden playthroughs (OpenSpiel style): replay every transcript in ``tests/golden/`` and diff it.

The transcripts are written by ``tools/make_golden.py`` (see its docstring for the format). The replay here
does not use the tool's chooser: it applies the recorded actions and compares, at every decision, the
current player, the phase, the legal actions, the state digest and the events the action caused; then the
final result. The first difference is reported with its step, turn and round and the position.

After an intended change of the rules, the action strings or the state format:
``.venv/bin/python tools/make_golden.py``, review the diff, commit.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bc_env.rules import Game

# Recorded behaviour: scripts/test.sh checks it on the pure-Python engine too (the compiled pass already compares
# the builds state by state, tests/test_compiled_build.py; these pin both to the same recorded games).
pytestmark = pytest.mark.both_builds
ROOT = Path(__file__).resolve().parents[1]
GOLDEN_DIR = ROOT / "tests" / "golden"


def _load_tool() -> Any:
    spec = importlib.util.spec_from_file_location("make_golden", ROOT / "tools" / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_golden", module)
    spec.loader.exec_module(module)
    return module


mg = _load_tool()
FILES = sorted(GOLDEN_DIR.glob("*.json"))
REGENERATE = "if the change is intended, run .venv/bin/python tools/make_golden.py and review the diff"


def _position(game: Game, steps: list[list[Any]], i: int) -> str:
    before = [row[3] for row in steps[max(0, i - 4) : i]]
    return f"  actions before: {before}\n  position:\n{game.render()}"


def diff_transcript(doc: dict[str, Any], name: str = "transcript") -> str | None:
    """Replay ``doc``; None when the engine reproduces it, else a readable report of the first difference."""
    if doc.get("format") != mg.FORMAT or doc.get("version") != mg.VERSION:
        return f"{name}: not a golden transcript of format {mg.FORMAT!r} version {mg.VERSION}"
    if doc.get("step_fields") != list(mg.STEP_FIELDS):
        return f"{name}: step_fields {doc.get('step_fields')} != {list(mg.STEP_FIELDS)}"
    game = Game.new(doc["preset"], doc["seed"])
    steps = doc["steps"]
    new: list[dict[str, Any]] = []
    for i, (player, phase, digest, action, events, legal) in enumerate(steps):
        where = f"{name}: step {i} of {len(steps)} (turn {game.turn}, round {game.round})"
        if game.is_terminal():
            return f"{where}: the game is over, but the transcript goes on with {action!r}; {REGENERATE}"
        problems = []
        if game.current_player != player:
            problems.append(f"current player is {game.current_player}, recorded {player}")
        if game.phase_name != phase:
            problems.append(f"phase is {game.phase_name!r}, recorded {phase!r}")
        got = [game.action_to_string(a) for a in game.legal_actions()]
        want = mg.parse_legal(legal)
        if got != want:
            missing = [s for s in want if s not in got]
            extra = [s for s in got if s not in want]
            problems.append(
                f"legal actions differ: recorded but not offered {missing}, offered but not recorded {extra}"
                + ("" if missing or extra else f" (same set, order {got} vs recorded {want})")
            )
        if mg.state_digest(game) != digest:
            problems.append(
                f"state digest {mg.state_digest(game)} != recorded {digest} (the state differs although the "
                "earlier steps matched: look at the previous action's effect or at the state format)"
            )
        if problems:
            return f"{where}:\n  " + "\n  ".join(problems) + f"\n{_position(game, steps, i)}\n  {REGENERATE}"
        seen = len(game.events)
        game.apply(game.string_to_action(action))
        new = game.events[seen:]
        if " ".join(e["type"] for e in new) != events:
            return (
                f"{where}: action {action!r} caused the events {[e['type'] for e in new]}, recorded "
                f"{events.split()}\n  new events in full: {new}\n  {REGENERATE}"
            )
    if not game.is_terminal():
        return f"{name}: the transcript ends after {len(steps)} steps but the game goes on ({game!r}); {REGENERATE}"
    n = game.num_players
    got_final = {
        "digest": mg.state_digest(game),
        "winners": game.winners(),
        "returns": game.returns(),
        "influence_on_board": [sum(game.infl[p::n]) for p in range(n)],
        "turns": game.turn,
        "rounds": game.round,
        "events_sha256": mg.events_digest(game.events),
        "events": new,  # the events of the last action
    }
    for key, want_value in doc["final"].items():
        if got_final.get(key) != want_value:
            return f"{name}: final {key} is {got_final.get(key)}, recorded {want_value}; {REGENERATE}"
    if set(got_final) != set(doc["final"]):
        return f"{name}: final has the keys {sorted(doc['final'])}, expected {sorted(got_final)}"
    return None


def test_golden_files_are_the_listed_ones_and_small() -> None:
    names = {mg.file_name(preset, seed) for preset, seeds in mg.GOLDEN for seed in seeds}
    assert {p.name for p in FILES} == names, f"tests/golden/ and make_golden.GOLDEN disagree; {REGENERATE}"
    core = {"core-2p", "core-4p", "core-6p", "core-4p-variants"}
    assert {preset for preset, _ in mg.GOLDEN} == core | {"exp01-4p", "exp02-4p", "exp03-4p", "all-6p"}
    assert all(2 <= len(seeds) <= 3 if preset in core else len(seeds) == 1 for preset, seeds in mg.GOLDEN)
    assert sum(p.stat().st_size for p in FILES) < 800_000


@pytest.mark.parametrize("preset", ["exp01-4p", "exp02-4p", "exp03-4p", "all-6p"])
def test_expansion_goldens_play_the_expansion(preset: str) -> None:
    """The steered chooser makes each expansion's transcript take and play Measures (Regulations need SEC, which
    seeded play from the start seldom holds: tests/test_exp02_invariants.py's games give it)."""
    doc = json.loads((GOLDEN_DIR / mg.file_name(preset, 1)).read_text(encoding="utf-8"))
    events = " ".join(step[4] for step in doc["steps"]).split()
    assert doc["chooser"] == mg.STEERED
    assert "take-measure" in events and "play-measure" in events and "measure-effect" in events


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_playthrough_replays_identically(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    report = diff_transcript(doc, path.name)
    assert report is None, report


def test_make_golden_reproduces_a_stored_file_byte_for_byte() -> None:
    """The generator (with its seeded chooser) still writes exactly the committed file."""
    preset, seeds = mg.GOLDEN[0]
    path = GOLDEN_DIR / mg.file_name(preset, seeds[0])
    assert mg.dumps(mg.transcript(preset, seeds[0])) == path.read_text(encoding="utf-8"), REGENERATE


def test_legal_text_round_trips() -> None:
    strings = ["place-tile 6,7", "place-tile 10,7", "place 7,6", "move-from 7,6", "pass", "pay DOM", "gain FOR"]
    text = mg.legal_text(strings)
    assert text == "place-tile 6,7 10,7; place 7,6; move-from 7,6; pass; pay DOM; gain FOR"
    assert mg.parse_legal(text) == strings


@pytest.fixture(scope="module")
def small_doc() -> dict[str, Any]:
    return json.loads((GOLDEN_DIR / mg.file_name("core-4p", 1)).read_text(encoding="utf-8"))


def test_diff_reports_a_changed_legal_set_at_its_step(small_doc: dict[str, Any]) -> None:
    doc = copy.deepcopy(small_doc)
    row = doc["steps"][5]
    row[5] = row[5] + "; pass"
    report = diff_transcript(doc, "tampered")
    assert report is not None and "step 5 of" in report and "recorded but not offered ['pass']" in report


def test_diff_reports_a_changed_digest_event_and_result(small_doc: dict[str, Any]) -> None:
    doc = copy.deepcopy(small_doc)
    doc["steps"][7][2] = "0" * 16
    report = diff_transcript(doc, "tampered")
    assert report is not None and "step 7 of" in report and "state digest" in report
    doc = copy.deepcopy(small_doc)
    doc["steps"][3][4] = "pass"
    report = diff_transcript(doc, "tampered")
    assert report is not None and "step 3 of" in report and "caused the events" in report
    doc = copy.deepcopy(small_doc)
    doc["final"]["winners"] = [9]
    report = diff_transcript(doc, "tampered")
    assert report is not None and "final winners" in report
    doc = copy.deepcopy(small_doc)
    doc["steps"].pop()
    report = diff_transcript(doc, "tampered")
    assert report is not None and "the game goes on" in report
