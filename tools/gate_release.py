"""When a bot releases the FormalizeInfluence gate, and what its games end in (2 players).

    python tools/gate_release.py --bot runs/zero-core-2p/policy --opponent random --games 200 --seed 900000

A 2-player game where both players reach the cap is shared; a player wins alone by keeping the FormalizeInfluence
gate closed (CORE-01-08-02: nobody formalizes until every player has placed all Starting Influence) so long that the
other can no longer reach the cap, and no longer than it can reach the cap itself. The most it can hold is its
*slack*: its turns left minus the actions it still needs, one Place per Influence not on the Board and one
FormalizeInfluence per Influence not yet created (RULINGS R12; ``compact-v2``'s and the core layout's
``slack_at_most``). This plays ``--games`` games of ``--bot`` against ``--opponent`` (engine seed ``--seed + i``,
seats alternating: the bot in seat ``i % 2``; the bot seeded ``--seed + i``, the opponent ``--seed + i + 7``) and
reports, per outcome of the bot (won alone, shared, lost), how many games, which player placed its last Starting
Influence last (who held the gate), and the bot's and the opponent's slack just after the bot placed its last
Starting Influence: the turns of the bot's release to spare. Released at slack 0, a bot against an opponent with no
more slack than its own wins alone. Then, by the bot's slack, the kinds of the Political Actions it chose while it
alone held the gate (``move-from`` keeps it closed, ``place`` spends a held Starting Influence, the last one opens
it).

``--hold-until K`` asks what the release is worth: the bot keeps its last Starting Influence while it alone holds
the gate and its slack after this turn is at least ``K`` (its ``place`` of that Influence is replaced by the legal
``move-from`` its network ranks first, or the lowest-numbered one for a bot without a network), so that it lets go
at slack ``K`` at the latest. The heuristic lets go at slack 0; ``--hold-until 0`` plays a learned bot with that
release and its own play otherwise (docs/training.md, "Why the zero bots share").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import policies  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from training.selfplay.games import slack_after_turn  # noqa: E402


def kind(g: Game, action: int) -> str:
    """The action's kind, the first word of its string (``place``, ``move-from``, ...)."""
    return g.action_to_string(action).split()[0]


def held_longer(g: Game, bot: Any, seat: int, action: int, hold_until: int | None) -> int:
    """``action``, or the bot's ``move-from`` in its place when ``action`` would spend the bot's last Starting
    Influence with a slack after this turn of at least ``hold_until``; asked only while the bot alone holds the
    gate, at its Political Action."""
    if (
        hold_until is None
        or g.starting[seat] - g.deployed[seat] != 1
        or kind(g, action) != "place"
        or slack_after_turn(g, seat) < hold_until
    ):
        return action
    moves = [a for a in g.legal_actions() if kind(g, a) == "move-from"]
    if not moves:
        return action
    if hasattr(bot, "logits"):
        logits = bot.logits(bot.observe(g, seat))
        return max(moves, key=lambda a: (logits[a], -a))
    return moves[0]


def play(
    bot: str, opponent: str, config: RulesConfig, seed: int, i: int, hold_until: int | None = None
) -> dict[str, Any]:
    """Game ``i``: its outcome for the bot, who placed its last Starting Influence last, both slacks when the bot
    placed its last (None when it never did), and how many of its actions ``hold_until`` replaced."""
    seat = i % 2
    bots = {seat: policies.load(bot, seed=seed + i), 1 - seat: policies.load(opponent, seed=seed + i + 7)}
    g = Game.new(config, seed + i)
    done: dict[int, int] = {}  # player -> the decision at which it had placed all its Starting Influence
    release: tuple[int, int] | None = None
    holding: list[tuple[int, str]] = []  # (slack, action kind) of each Political Action while the bot alone held
    step = forced = 0
    while not g.is_terminal():
        p = g.current_player
        action = bots[p].act(g)
        alone = g.deployed[seat] < g.starting[seat] and g.deployed[1 - seat] >= g.starting[1 - seat]
        if p == seat and alone and g.phase_name == "political":
            chosen, action = action, held_longer(g, bots[p], seat, action, hold_until)
            forced += action != chosen
            holding.append((slack_after_turn(g, seat), kind(g, action)))
        g.apply(action)
        step += 1
        for p in (0, 1):
            if p not in done and g.deployed[p] >= g.starting[p]:
                done[p] = step
                if p == seat:
                    release = (slack_after_turn(g, seat), slack_after_turn(g, 1 - seat))
    winners = g.winners()
    outcome = "won alone" if winners == [seat] else "shared" if seat in winners else "lost"
    if seat not in done:
        last = "bot never placed all"
    elif (1 - seat) not in done or done[seat] > done[1 - seat]:
        last = "bot"
    else:
        last = "opponent"
    return {
        "game": i,
        "seat": seat,
        "outcome": outcome,
        "held_last": last,
        "release": release,
        "holding": holding,
        "held_longer": forced,
    }


def report(rows: list[dict[str, Any]]) -> str:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["outcome"]].append(r)
    lines = [
        "| bot's outcome | games | held the gate last: bot / opponent | bot's slack at its release: median, "
        "counts | the opponent's slack then: median |",
        "|---|---|---|---|---|",
    ]
    for outcome in ("won alone", "shared", "lost"):
        group = by.get(outcome, [])
        if not group:
            continue
        held = Counter(r["held_last"] for r in group)
        own = [r["release"][0] for r in group if r["release"] is not None]
        other = [r["release"][1] for r in group if r["release"] is not None]
        counts = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(own).items()))
        med = f"{statistics.median(own):g}" if own else "-"
        omed = f"{statistics.median(other):g}" if other else "-"
        lines.append(f"| {outcome} | {len(group)} | {held['bot']} / {held['opponent']} | {med} ({counts}) | {omed} |")
    chosen: dict[int, Counter[str]] = defaultdict(Counter)
    for r in rows:
        for s, kind in r["holding"]:
            chosen[s][kind] += 1
    lines += ["", "| the bot's slack while it alone held the gate | its Political Actions by kind |", "|---|---|"]
    for s in sorted(chosen, reverse=True):
        lines.append(f"| {s} | " + ", ".join(f"{k} {v}" for k, v in sorted(chosen[s].items())) + " |")
    n, alone, shared = len(rows), len(by.get("won alone", [])), len(by.get("shared", []))
    lines += [
        "",
        f"{n} games: {alone} won alone, {shared} shared, {n - alone - shared} lost; the bot's score "
        f"{(alone + shared / 2) / max(1, n):.1%} (a shared victory counts 1/2)",
    ]
    forced = sum(r["held_longer"] for r in rows)
    if forced:
        lines[-1] += f"; {forced} of its places held back by --hold-until"
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", required=True, help="a bot name or an exported policy's path")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--config", default="core-2p", help="a 2-player configuration")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=900000)
    parser.add_argument(
        "--hold-until",
        type=int,
        default=None,
        metavar="K",
        help="the bot keeps its last Starting Influence while it alone holds the gate with a slack of at least K "
        "after the turn (a move-from instead of the place): it lets go at slack K at the latest",
    )
    parser.add_argument("--json", action="store_true", help="one JSON record per game instead of the table")
    args = parser.parse_args(argv)
    config = RulesConfig.resolve(args.config)
    if config.players != 2:
        parser.error(f"--config must be a 2-player configuration, {config.name} has {config.players} players")
    rows = [play(args.bot, args.opponent, config, args.seed, i, args.hold_until) for i in range(args.games)]
    print(json.dumps(rows) if args.json else report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
