r"""Play the games of a ``balance-control match`` one by one into a JSON-lines file (long, resumable measurements).

Game ``i`` is exactly game ``i`` of ``balance-control match --config CONFIG --bots BOTS --seed SEED`` (engine seed
``SEED + i``, seats rotated, bot seeds ``policies.arena.bot_seed``). One line per game: the seat of the first bot,
the winners, the result of the first bot (outright / shared / lost), the final Influence and the first bot's
decision times, wall clock and CPU time of the process (``time.process_time``: one core's work, whatever the
machine's load). Games already in the file are skipped, so a stopped run continues where it stopped.

    python tools/match_games.py --config core-2p --bots mcts,heuristic --seed 90000 --games 400 --out m.jsonl
    python tools/match_games.py --config core-2p --bots mcts,heuristic --seed 90000 --games 400 --out m.jsonl \
        --workers 16
    python tools/match_games.py --summary m.jsonl

With ``--workers N`` the games run in N processes (one game per task): the rows are the same, written in the
order the games finish.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bc_env.rules import BalanceControlError, Game, RulesConfig  # noqa: E402
from bc_env.rules.errors import ConfigError  # noqa: E402
from policies import load  # noqa: E402
from policies.arena import bot_seed, wilson_interval  # noqa: E402


class MatchFileError(BalanceControlError):
    """A results file that is not this tool's JSON lines, or holds the games of another match."""


def _rows(path: Path) -> list[dict]:
    """The games in a results file, each line checked to be one of this tool's rows."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MatchFileError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict) or not row.keys() >= _ROW_KEYS:
            raise MatchFileError(f"{path}:{n}: not a game of tools/match_games.py (needs {sorted(_ROW_KEYS)})")
        rows.append(row)
    return rows


_ROW_KEYS = {"i", "config", "bots", "seed", "seat", "winners", "result", "influence", "wall", "cpu"}


def play_one(cfg: RulesConfig, bots: list[str], seed: int, i: int) -> dict:
    """Game ``i`` of the match: engine seed ``seed + i``, entrant ``e`` in seat ``(e + i) % n``, bot seeds
    ``bot_seed(seed, i, e)``; its row (the first entrant's seat, result and decision times)."""
    n = cfg.players
    seat_of = [(e + i) % n for e in range(n)]
    by_seat = [None] * n
    for e, name in enumerate(bots):
        by_seat[seat_of[e]] = load(name, seed=bot_seed(seed, i, e), config=cfg)
    game = Game.new(cfg, seed + i)
    me, wall, cpu = seat_of[0], [], []
    while not game.is_terminal():
        seat = game.current_player
        t0, c0 = time.perf_counter(), time.process_time()
        action = by_seat[seat].act(game)
        if seat == me:
            wall.append(round(time.perf_counter() - t0, 4))
            cpu.append(round(time.process_time() - c0, 4))
        game.apply(action)
    winners = game.winners()
    res = "lost" if me not in winners else "outright" if len(winners) == 1 else "shared"
    return {"i": i, "config": cfg.name, "bots": bots, "seed": seed, "seat": me, "winners": winners,
            "result": res, "influence": list(game.on_board), "wall": wall, "cpu": cpu}  # fmt: skip


def _play_task(task: tuple[dict, list[str], int, int]) -> dict:
    config, bots, seed, i = task
    return play_one(RulesConfig.from_dict(config), bots, seed, i)


def play(config: str, bots: list[str], seed: int, games: int, out: Path, workers: int = 1) -> None:
    cfg = RulesConfig.resolve(config)
    n = cfg.players
    if len(bots) != n:
        raise ConfigError(f"{cfg.name} has {n} seats: give {n} bots, got {len(bots)}")
    for e, name in enumerate(bots):  # an unknown bot fails here, before the file is touched
        load(name, seed=bot_seed(seed, 0, e), config=cfg)
    done = set()
    if out.exists():
        for row in _rows(out):
            if (row["config"], row["bots"], row["seed"]) != (cfg.name, bots, seed):
                raise MatchFileError(
                    f"{out} holds the games of {row['config']} {','.join(row['bots'])} seed {row['seed']}, not of"
                    f" {cfg.name} {','.join(bots)} seed {seed}: resume a match into its own file"
                )
            done.add(row["i"])
    todo = [i for i in range(games) if i not in done]
    with out.open("a", encoding="utf-8") as f:
        if workers <= 1:
            rows: Iterator[dict] = (play_one(cfg, bots, seed, i) for i in todo)
        else:  # one game per task; rows are written as games finish (the summary and resume go by "i")
            pool = multiprocessing.get_context("spawn").Pool(workers)
            rows = pool.imap_unordered(_play_task, [(cfg.to_dict(), bots, seed, i) for i in todo], chunksize=1)
        try:
            for row in rows:
                f.write(json.dumps(row) + "\n")
                f.flush()
        finally:
            if workers > 1:
                pool.terminate()


def _q(xs: list[float], f: float) -> float:
    return 1000 * xs[min(len(xs) - 1, int(len(xs) * f))] if xs else 0.0


def summary(path: Path) -> str:
    if not path.is_file():
        return f"{path}: no such file"
    rows = _rows(path)
    if not rows:
        return f"{path}: no games"
    g = len(rows)
    score = sum(1 / len(r["winners"]) for r in rows if r["result"] != "lost")
    counts = [sum(r["result"] == k for r in rows) for k in ("outright", "shared", "lost")]
    lo, hi = wilson_interval(score, g)
    wall = sorted(x for r in rows for x in r["wall"])
    cpu = sorted(x for r in rows for x in r["cpu"])
    return (
        f"{path}: {rows[0]['bots'][0]} in {rows[0]['config']} vs {', '.join(rows[0]['bots'][1:])}: {g} games, "
        f"score {score:g}, outright/shared/lost {counts[0]}/{counts[1]}/{counts[2]}, win rate {score / g:.1%} "
        f"(Wilson 95% {lo:.1%}-{hi:.1%}); first bot's decisions: CPU ms median {_q(cpu, 0.5):.0f} / p99 "
        f"{_q(cpu, 0.99):.0f} / max {_q(cpu, 1.0):.0f}, wall ms median {_q(wall, 0.5):.0f} / p99 {_q(wall, 0.99):.0f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="core-2p")
    ap.add_argument("--bots", help="one bot per entrant, comma-separated; the first is the one measured")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--out", type=Path, help="the JSON-lines file (appended to; its games are skipped)")
    ap.add_argument("--workers", type=int, default=1, help="games played at once, one process each (default 1)")
    ap.add_argument("--summary", type=Path, nargs="*", help="print the summary of these files and exit")
    args = ap.parse_args()
    try:
        if args.summary:
            for path in args.summary:
                print(summary(path))
            return
        if not args.bots or not args.out:
            ap.error("--bots and --out are needed (or --summary FILE)")
        if args.games < 1:
            ap.error(f"--games must be at least 1, got {args.games}")
        if args.workers < 1:
            ap.error(f"--workers must be at least 1, got {args.workers}")
        play(args.config, args.bots.split(","), args.seed, args.games, args.out, args.workers)
        print(summary(args.out))
    except BalanceControlError as exc:
        ap.error(str(exc))


if __name__ == "__main__":
    main()
