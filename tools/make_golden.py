#!/usr/bin/env python
"""Regenerate (or check) the golden playthroughs in ``tests/golden/`` (OpenSpiel-style transcripts).

Each file records one seeded random game. At every decision, one line::

    [player, phase, state digest, chosen action, events the action caused, legal actions]

* the state digest is the first 16 hex digits of the sha256 of
  ``json.dumps(to_dict() without "events", sort_keys=True, separators=(",", ":"))``;
* the chosen action comes from ``random.Random(seed)``: ``legal[rng.randrange(len(legal))]``; with an expansion
  (``STEERED``) 60% of the decisions that offer Measure or Regulation actions pick one of those;
* the events are the types of the events the action appended, separated by spaces;
* the legal actions are the action strings, grouped by verb: ``"place-tile 6,7 7,6; place 7,6"``
  (see :func:`legal_text` / :func:`parse_legal`).

Then ``final``: the result (winners, returns, Influence on Board), the final digest, the sha256 of the
whole event log and the events of the last action in full. ``tests/test_golden.py`` replays the recorded
actions and reports the first step that differs.

After an intended change of the rules, the action strings or the state format, regenerate, review the
diff and commit it::

    .venv/bin/python tools/make_golden.py            # rewrite every file
    .venv/bin/python tools/make_golden.py --check    # exit 1 (and name the files) if any would change
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from bc_env.rules import Game

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_DIR = ROOT / "tests" / "golden"
FORMAT = "balance-control-golden"
VERSION = 1

#: (preset, seeds): two games per core preset, one per expansion (EXP-01, EXP-02, EXP-03, all three with six
#: players); well under a megabyte in all.
GOLDEN: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("core-2p", (1, 2)),
    ("core-4p", (1, 2)),
    ("core-6p", (1, 2)),
    ("core-4p-variants", (1, 2)),
    ("exp01-4p", (1,)),
    ("exp02-4p", (1,)),
    ("exp03-4p", (1,)),
    ("all-6p", (1,)),
)
STEP_FIELDS = ("player", "phase", "digest", "action", "events", "legal")
CHOOSER = "random.Random(seed); at each decision legal[rng.randrange(len(legal))]"
#: The chooser of the expansion presets: uniform play seldom takes or plays a card, so 60% of the decisions that
#: offer expansion actions (Measures, Regulations: the layout's blocks from ``take`` on) pick one of those.
STEERED = (
    "random.Random(seed); at each decision, with the actions from layout.take on as extra: "
    "rng.choice(extra if extra and rng.random() < 0.6 else legal)"
)
DIGEST = 'sha256(json.dumps(to_dict() without "events", sort_keys=True, separators=(",", ":")))[:16]'


def file_name(preset: str, seed: int) -> str:
    return f"{preset}-seed{seed}.json"


def state_digest(game: Game) -> str:
    """A compact digest of the whole state but the event log (which the events column covers)."""
    state = game.to_dict()
    state.pop("events")
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def events_digest(events: list[dict[str, Any]]) -> str:
    text = json.dumps(events, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def legal_text(strings: list[str]) -> str:
    """``["place 7,6", "place 8,6", "pass"]`` -> ``"place 7,6 8,6; pass"`` (verbs in first-seen order)."""
    groups: dict[str, list[str]] = {}
    for s in strings:
        verb, *args = s.split()
        groups.setdefault(verb, []).extend(args)
    return "; ".join(" ".join([verb, *args]) for verb, args in groups.items())


def parse_legal(text: str) -> list[str]:
    """The inverse of :func:`legal_text`."""
    out: list[str] = []
    for group in text.split("; "):
        verb, *args = group.split()
        if args:
            out.extend(f"{verb} {arg}" for arg in args)
        else:
            out.append(verb)
    return out


def transcript(preset: str, seed: int) -> dict[str, Any]:
    """Play the seeded game and record it."""
    game = Game.new(preset, seed)
    rng = random.Random(seed)
    steer = game.config.exp01 or game.config.exp02 or game.config.exp03
    steps: list[list[Any]] = []
    last: list[dict[str, Any]] = []
    while not game.is_terminal():
        legal = game.legal_actions()
        if steer:
            extra = [a for a in legal if a >= game.layout.take]
            action = rng.choice(extra if extra and rng.random() < 0.6 else legal)
        else:
            action = legal[rng.randrange(len(legal))]
        row = [game.current_player, game.phase_name, state_digest(game), game.action_to_string(action)]
        strings = [game.action_to_string(a) for a in legal]
        seen = len(game.events)
        game.apply(action)
        last = game.events[seen:]
        row.append(" ".join(e["type"] for e in last))
        row.append(legal_text(strings))
        steps.append(row)
    n = game.num_players
    return {
        "format": FORMAT,
        "version": VERSION,
        "preset": preset,
        "seed": seed,
        "chooser": STEERED if steer else CHOOSER,
        "digest": DIGEST,
        "step_fields": list(STEP_FIELDS),
        "steps": steps,
        "final": {
            "digest": state_digest(game),
            "winners": game.winners(),
            "returns": game.returns(),
            "influence_on_board": [sum(game.infl[p::n]) for p in range(n)],
            "turns": game.turn,
            "rounds": game.round,
            "events_sha256": events_digest(game.events),
            "events": last,
        },
    }


def dumps(doc: dict[str, Any]) -> str:
    """JSON with one decision per line, so that a diff shows the steps that changed."""
    lines = ["{"]
    for key, value in doc.items():
        if key == "steps":
            lines.append('"steps": [')
            rows = [json.dumps(row) for row in value]
            lines.extend(f"{row}," for row in rows[:-1])
            lines.extend(rows[-1:])
            lines.append("],")
        elif key == "final":
            lines.append('"final": {')
            for k, v in value.items():
                if k == "events":
                    lines.append('"events": [')
                    evs = [json.dumps(e, sort_keys=True) for e in v]
                    lines.extend(f"{e}," for e in evs[:-1])
                    lines.extend(evs[-1:])
                    lines.append("]")
                else:
                    lines.append(f"{json.dumps(k)}: {json.dumps(v)},")
            lines.append("}")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR, help="directory of the golden files")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stale = []
    total = 0
    for preset, seeds in GOLDEN:
        for seed in seeds:
            path = args.out / file_name(preset, seed)
            text = dumps(transcript(preset, seed))
            total += len(text)
            if args.check:
                if not path.is_file() or path.read_text(encoding="utf-8") != text:
                    stale.append(path.name)
            else:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} ({len(text)} bytes)")
    if args.check:
        if stale:
            print(f"stale golden files (run tools/make_golden.py and review the diff): {', '.join(stale)}")
            return 1
        print(f"all golden files up to date ({total} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
