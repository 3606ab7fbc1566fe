"""Where an endgame bot's search time goes: per turns left, how often the search reached the end of the game.

    python tools/endgame_exactness.py --bot endgame:base=ppo-core-2p:exact=1 --config core-2p --deals 10 --seed 27000
    python tools/endgame_exactness.py --bot champion --config core-2p --deals 10 --seed 27000

Plays the paired deals of ``balance-control match --paired --bots BOT,expert`` (the same schedule, engine and bot
seeds: ``benchmarking.runner.match_schedule``) and reports, for the bot's decisions by its Political Actions left
(``game.turns_left``): how many it took, how many it searched (two or more legal actions inside the window), how
many searches had an iteration that reached the end of the game on every line (*exact*: with ``exact=1`` only
those may overrule the base bot), how many decisions differ from the base bot's choice, and the CPU seconds
(``time.process_time``, total and largest). ``BOT`` is an ``endgame:...`` spec or ``champion`` (its endgame bot of
the rules); the other seats play the expert.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bc_env.rules import Game, RulesConfig  # noqa: E402
from benchmarking.runner import make_bot, match_schedule  # noqa: E402
from policies.endgame import EndgamePolicy  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="champion")
    ap.add_argument("--config", default="core-2p")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--seed", type=int, default=27000)
    args = ap.parse_args(argv)
    config = RulesConfig.resolve(args.config)
    n = config.players
    names = [args.bot] + ["expert"] * (n - 1)
    # row key: turns left (every turns left beyond the window in one row) -> counts and CPU seconds
    rows: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0.0, 0.0])
    outside = 0
    for spec in match_schedule(config, names, args.deals * n, args.seed, paired=True):
        me = spec.seats.index(args.bot)
        bots = [make_bot(name, seed, config) for name, seed in zip(spec.seats, spec.bot_seeds)]
        g = Game.new(config, spec.seed)
        while not g.is_terminal():
            p = g.current_player
            assert p is not None
            if p != me:
                g.apply(bots[p].act(g))
                continue
            bot = bots[p]
            search = bot.bot_for(g) if hasattr(bot, "bot_for") else bot
            if not isinstance(search, EndgamePolicy):
                raise SystemExit(f"{args.bot} plays {type(search).__name__} in {args.config}: no endgame search")
            left = g.turns_left(p)
            window = search.window(g)
            outside = max(outside, window + 1)
            searched = len(g.legal_actions()) > 1 and left <= window
            c0 = time.process_time()
            a = bot.act(g)
            cpu = time.process_time() - c0
            row = rows[min(left, window + 1)]
            row[0] += 1
            row[1] += searched
            row[2] += searched and search.last_exact
            row[3] += a != search.last_choice
            row[4] += cpu
            row[5] = max(row[5], cpu)
            g.apply(a)
    print(f"{args.bot} vs expert, {args.config}, {args.deals} paired deals from seed {args.seed}")
    print("| turns left | decisions | searched | exact | overruled | CPU s (total) | CPU ms (max) |")
    print("|---|---|---|---|---|---|---|")
    total = [0, 0, 0, 0, 0.0, 0.0]
    for left in sorted(rows):
        r = rows[left]
        label = f">= {left}" if left == outside else str(left)
        print(f"| {label} | {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.2f} | {1000 * r[5]:.0f} |")
        total = [*(t + x for t, x in zip(total[:5], r[:5])), max(total[5], r[5])]
    print(f"| all | {total[0]} | {total[1]} | {total[2]} | {total[3]} | {total[4]:.2f} | {1000 * total[5]:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
