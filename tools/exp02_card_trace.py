"""Why the hand-written bots seldom play EXP-02 cards: at each of the bot's Political Actions in exp02-4p games
against three random bots, what its EXP-02 cards are worth and what its turns allow (issue #14; docs/policies.md).

    python tools/exp02_card_trace.py --bot heuristic --games 20 --seed 11
    python tools/exp02_card_trace.py --bot heuristic --games 3 --seed 11 --decisions

Game ``i`` is engine seed ``seed + i`` with the bot in seat ``(seed + i) % 4``. Per decision it records: the bot's
spare turns (``exp02_values.spare_turns``: turns left beyond those its own Influence needs), whether a priced EXP-02
card is in its hand or face up, the best such card's value (``exp02_values.card_values``: the change of the
evaluation its effect makes now, its cost paid), the Political Actions the card's plan still needs (conversions for
its SEC, a TakeMeasure, the PlayMeasure) and the bot's SEC. ``--decisions`` prints every decision with a card worth
something: the card values and the best actions with their values.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import policies  # noqa: E402
from bc_env.rules import Game  # noqa: E402
from policies import exp02_values  # noqa: E402

BOTS = ("heuristic", "expert")


def trace(bot_name: str, games: int, seed: int, show: bool) -> dict[str, list[float]]:
    """Play the games; return per statistic the list of its values over the bot's Political Actions."""
    stats: dict[str, list[float]] = {k: [] for k in ("spare", "priced", "value", "plan", "sec")}
    for i in range(games):
        g = Game.new("exp02-4p", seed + i)
        me = (seed + i) % 4
        bots = [policies.load("random", seed=(seed + i) * 10 + q) for q in range(4)]
        bots[me] = bot = policies.load(bot_name, seed=seed + i)
        lookahead = bot._lookahead

        def hook(
            game: Game, p: int, legal: list[int], hold: bool, lookahead=lookahead, bot=bot, i=i
        ) -> dict[int, float]:
            values = lookahead(game, p, legal, hold)
            if game.phase_name != "political":
                return values
            cards = exp02_values.card_values(game, p, lambda x, who: bot._evaluate02(x, who, hold), bot.exp02_weights)
            zones = game.ext["measures"]
            income = exp02_values.produced(game, p)
            best = max(cards, key=lambda k: cards[k], default=None)
            plan = 0
            if best is not None:
                plan = exp02_values.plan_turns(game, p, best, best not in zones.hands[p], income)
            stats["spare"].append(exp02_values.spare_turns(game, p))
            stats["priced"].append(float(bool(cards)))
            stats["value"].append(cards[best] if best is not None else 0.0)
            stats["plan"].append(plan)
            stats["sec"].append(game.resources_of(p)[-1])
            if show and best is not None and cards[best] > exp02_values.DEFAULT_EXP02.min_value:
                top = sorted(values.items(), key=lambda kv: -kv[1])[:3]
                print(
                    f"game {i} round {game.round} spare {stats['spare'][-1]} plan {plan} "
                    f"resources {list(game.resources_of(p))} "
                    f"cards { ({game.measures[k].key: round(v, 2) for k, v in cards.items() if v > 0}) } best "
                    f"{[(game.action_to_string(a), round(v, 3)) for a, v in top]}"
                )
            return values

        bot._lookahead = hook  # type: ignore[method-assign]
        while not g.is_terminal():
            g.apply(bots[g.current_player].act(g))
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="heuristic", choices=BOTS)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--decisions", action="store_true", help="print the decisions with a card worth something")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    s = trace(args.bot, args.games, args.seed, args.decisions)
    n = len(s["value"])
    floor = exp02_values.DEFAULT_EXP02.min_value
    worth = [v > floor for v in s["value"]]
    fits = [w and p <= sp for w, p, sp in zip(worth, s["plan"], s["spare"], strict=True)]
    values = sorted(s["value"])
    print(f"{args.bot} vs three random, exp02-4p, {args.games} games, seed {args.seed}: {n} Political Actions")
    print(f"| spare turns > 0 | {sum(1 for x in s['spare'] if x > 0) / n:.0%} |")
    print(f"| a priced card in hand or face up | {sum(s['priced']) / n:.0%} |")
    print(f"| the best card worth > {floor} | {sum(worth) / n:.0%} |")
    print(f"| ... and its plan fits the spare turns | {sum(fits) / n:.0%} |")
    print(f"| SEC held > 0 | {sum(1 for x in s['sec'] if x > 0) / n:.0%} |")
    q = [values[min(n - 1, int(n * f))] for f in (0.5, 0.9, 0.99)]
    print(f"| best card value: median / 90% / 99% / max | {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f} / {values[-1]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
