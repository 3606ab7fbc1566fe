"""How the hand-written bots use EXP-02: Regulations placed and EXP-02 Measures taken / played per game, with the
win share (issue #14; numbers in docs/policies.md).

    python tools/exp02_bot_usage.py --bots heuristic,random,random,random --games 200 --seed 11
    python tools/exp02_bot_usage.py --bots heuristic,heuristic@old,heuristic,heuristic@old --baseline e28d817

The games are ``benchmarking.runner.play_match``'s (engine seed ``seed + i``, seats rotated, bots seeded per game as
``balance-control match`` does), so the win shares equal that command's. ``NAME@old`` is the bot ``NAME`` as it
was at the git revision ``--baseline`` (``policies/heuristic.py``, ``policies/expert.py`` and, where it exists,
``policies/exp02_values.py`` of that revision, loaded as a package of their own). Each game is replayed from its
actions to count, per seat: Regulations placed
(``regulation-placed`` events by that player: Inner Order, Threat Situation, Emergency Decree, Loss of Control,
Competence Conflict), EXP-02 Measures taken and played, Authority Apparatus activations, and how often the seat
reached the Influence cap with how many of its turns left then (the room a denial has: a turn spent on a
Regulation is a turn not spent on Formalize + Place).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bc_env.rules import BalanceControlError, Game, RulesConfig  # noqa: E402
from bc_env.rules.errors import ConfigError  # noqa: E402
from benchmarking.runner import GameResult, bot_seed, play_match, wilson_interval  # noqa: E402

COUNTS = ("regulations", "taken", "played", "authority", "capped", "slack")


def baseline_package(ref: str) -> str:
    """Write the bots of git revision ``ref`` as the package ``policies_baseline`` and return its name."""
    pkg = Path(tempfile.mkdtemp(prefix="bc-baseline-")) / "policies_baseline"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for name in ("heuristic.py", "expert.py", "exp02_values.py"):
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{ref}:policies/{name}"], check=False, capture_output=True, text=True
        )
        if shown.returncode != 0:
            if name == "exp02_values.py":  # older revisions have no EXP-02 valuation module
                continue
            raise ConfigError(f"--baseline {ref}: no policies/{name} there ({shown.stderr.strip()})")
        (pkg / name).write_text(shown.stdout, encoding="utf-8")
    sys.path.insert(0, str(pkg.parent))
    return "policies_baseline"


class Seeded:
    """A baseline bot created afresh for game ``index`` with ``bot_seed`` (as ``play_match`` does for names)."""

    def __init__(self, factory: Any, label: str, match_seed: int, slot: int) -> None:
        self.factory, self.name, self.match_seed, self.slot = factory, label, match_seed, slot
        self.index = 0
        self.bot: Any = None
        self.bot_index = -1

    def act(self, game: Game) -> int:
        if self.bot is None or self.bot_index != self.index:
            self.bot = self.factory(bot_seed(self.match_seed, self.index, self.slot))
            self.bot_index = self.index
        return int(self.bot.act(game))


def count_usage(config: RulesConfig, result: GameResult) -> list[dict[str, int]]:
    """Per seat: Regulations placed, EXP-02 Measures taken / played, AA activations (from the replayed game)."""
    game = Game.new(config, result.seed)
    out = [dict.fromkeys(COUNTS, 0) for _ in range(config.players)]
    for a in result.actions:
        game.apply(a)
        for p in range(config.players):  # the turns left when the seat first reaches the Influence cap
            if not out[p]["capped"] and game.on_board[p] >= game.cap:
                out[p]["capped"] = 1
                out[p]["slack"] = game.turns_left(p)
    for e in game.events:
        p = e.get("player")
        if not isinstance(p, int):
            continue
        t = e["type"]
        if t == "regulation-placed":
            out[p]["regulations"] += 1
        elif t == "take-measure" and str(e.get("card", "")).startswith("EXP-02-"):
            out[p]["taken"] += 1
        elif t == "play-measure" and str(e.get("card", "")).startswith("EXP-02-"):
            out[p]["played"] += 1
        elif t == "authority-apparatus":
            out[p]["authority"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="exp02-4p")
    parser.add_argument("--bots", default="heuristic,random,random,random", help="one per seat; NAME@old: baseline")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--baseline", default="HEAD", help="git revision of the NAME@old bots")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    old = sorted({n for n in args.bots.split(",") if n.endswith("@old") and n[:-4] not in ("heuristic", "expert")})
    if old:
        parser.error(f"only heuristic@old and expert@old have a baseline, got {', '.join(old)}")
    try:
        return run(args)
    except BalanceControlError as exc:
        parser.error(str(exc))


def run(args: argparse.Namespace) -> int:
    """Play the match of ``main``'s arguments and print its table."""
    config = RulesConfig.resolve(args.config)
    names = args.bots.split(",")
    if len(names) != config.players:
        raise ConfigError(f"{config.name} has {config.players} seats: give {config.players} bots, got {len(names)}")
    entrants: list[Any] = []
    base = None
    for e, name in enumerate(names):
        if name.endswith("@old"):
            base = base or importlib.import_module(baseline_package(args.baseline) + ".expert")
            heur = importlib.import_module("policies_baseline.heuristic")
            factory = {"heuristic": heur.HeuristicPolicy, "expert": base.ExpertPolicy}[name[:-4]]
            entrants.append(Seeded(factory, name, args.seed, e))
        else:
            entrants.append(name)
    totals = [dict.fromkeys(COUNTS, 0) for _ in names]
    game_index = [0]

    def on_game(result: GameResult) -> None:
        usage = count_usage(config, result)
        shift = game_index[0] % config.players
        for e in range(len(names)):
            for k in COUNTS:
                totals[e][k] += usage[(e + shift) % config.players][k]
        game_index[0] += 1
        for ent in entrants:
            if isinstance(ent, Seeded):
                ent.index = game_index[0]

    match = play_match(config, entrants, args.games, args.seed, on_game=on_game)
    print(f"{config.name}, {args.games} games, seed {args.seed}, seats rotated (baseline {args.baseline})")
    print("| entrant | win share (Wilson 95%) | outright / shared | mean Influence | Regulations placed / game "
          "| EXP-02 Measures taken / game | played / game | AA activations / game | reached the cap "
          "| turns left then (mean) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for e, st in enumerate(match.entrants):
        lo, hi = wilson_interval(float(st.wins), args.games)
        t = totals[e]
        g = args.games
        print(f"| {st.label} | {float(st.wins) / g:.1%} ({lo:.1%}–{hi:.1%}) | {st.outright} / {st.shared} "
              f"| {st.influence_sum / g:.2f} | {t['regulations'] / g:.2f} "
              f"| {t['taken'] / g:.2f} | {t['played'] / g:.2f} | {t['authority'] / g:.2f} | {t['capped'] / g:.0%} "
              f"| {t['slack'] / max(t['capped'], 1):.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
