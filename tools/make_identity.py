#!/usr/bin/env python
"""Record (or check) the behaviour fixture of an engine refactoring: ``tests/fixtures/identity.json``.

An engine redesign keeps behaviour identical (issue: engine redesign). This tool records, with the engine it
is run against:

* ``encodings``: the sha256 prefix of every observation along one seeded random game per preset, all 11 presets
  (core and EXP-01; the same walk as ``tests/test_encoding.py``'s core digests);
* ``bots``: for seeded games between the shipped and built-in bots, the sha256 of the action list and the
  winners, so a refactoring that changes any bot's choice (or any rule) shows up.

Made with the engine before the redesign (``PYTHONPATH=<old checkout> python tools/make_identity.py``);
``tests/test_identity.py`` replays it against the current engine::

    python tools/make_identity.py            # rewrite the fixture with the current engine
    python tools/make_identity.py --check    # exit 1 if the current engine differs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "identity.json"
PRESETS = ("core-2p", "core-3p", "core-4p", "core-4p-hex", "core-4p-variants", "core-5p", "core-6p",
           "exp01-2p", "exp01-4p", "exp01-6p", "exp01-v1.3-4p")  # fmt: skip
#: (preset, bots per seat, seeds)
MATCHES = (
    ("core-2p", ("ppo-core-2p", "heuristic"), (0, 1)),
    ("core-2p", ("expert", "ppo-core-2p"), (2,)),
    ("core-4p", ("ppo-core-4p", "expert", "heuristic", "random"), (0, 1)),
    ("exp01-4p", ("heuristic", "expert", "random", "heuristic"), (0,)),
    ("exp01-v1.3-4p", ("expert", "heuristic", "heuristic", "random"), (0,)),
)


def encoding_digest(preset: str, seed: int) -> str:
    from bc_env.encoding.observation import Encoder
    from bc_env.rules import Game

    enc = Encoder(preset)
    game = Game.new(preset, seed)
    rng = random.Random(seed)
    h = hashlib.sha256()
    step = 0
    while True:
        observers = range(game.num_players) if step % 5 == 0 or game.is_terminal() else [game.current_player]
        for o in observers:
            h.update(enc.encode(game, o).tobytes())
        if game.is_terminal():
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        step += 1
    h.update(str(enc.size_total).encode())
    return h.hexdigest()[:16]


def match_record(preset: str, names: tuple[str, ...], seed: int) -> dict[str, Any]:
    import policies
    from bc_env.rules import Game

    bots = [policies.load(name, seed=seed * 100 + q) for q, name in enumerate(names)]
    game = Game.new(preset, seed)
    actions = []
    while not game.is_terminal():
        seat = game.current_player
        action = int(bots[seat].act(game))
        actions.append(action)
        game.apply(action)
    digest = hashlib.sha256(json.dumps(actions).encode()).hexdigest()[:16]
    return {"preset": preset, "bots": list(names), "seed": seed, "decisions": len(actions), "actions": digest,
            "winners": game.winners()}  # fmt: skip


def build() -> dict[str, Any]:
    return {
        "encodings": {preset: encoding_digest(preset, 1) for preset in PRESETS},
        "bots": [match_record(preset, names, seed) for preset, names, seeds in MATCHES for seed in seeds],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    fresh = build()
    if args.check:
        old = json.loads(FIXTURE.read_text(encoding="utf-8"))
        if old != fresh:
            print("differs from the fixture", file=sys.stderr)
            return 1
        print("identical")
        return 0
    FIXTURE.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
