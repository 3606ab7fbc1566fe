"""Train and export a value network (``policies/value.py``) on final Influence margins (issue 27 item 3).

    python tools/train_value.py --config core-2p --games 200 --seed 500000 --epochs 60 --workers 2
    python tools/train_value.py --config core-4p --games 120 --seed 600000 --epochs 60 --workers 2

Game ``i`` is played by the game runner (``benchmarking/runner.py``, in ``--workers`` processes) with a mix of
bots (``--bots``, default ``expert,expert,ppo-<config>,heuristic``: seat ``q`` of game ``i`` gets entry
``(i + q) mod len`` of the list, bot seed ``seed + 7 * i + q``; the expert mirror is the self-play), then replayed
from its actions: every turn start (a ``place_tile`` decision) gives one example per player: ``features(game, p)``
and ``p``'s final margin (its Influence on the Board at the end minus the best opponent's). Training: an MLP
(``--hidden``, default 64,64) with mean squared error, Adam, full-batch epochs, 10% of the games held out (the
held-out loss is recorded in the manifest). Torch is needed here only; the export is ``.npz`` + ``.json``
(``policies/values/value-<config>``, or ``--out``), read by NumPy alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import policies  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from benchmarking.runner import GameResult, ScheduledGame, in_order, run_games  # noqa: E402
from policies.value import FORMAT, VALUES_DIR, features, num_features  # noqa: E402


def schedule(config: RulesConfig, bots: list[str], seed: int, games: int) -> list[ScheduledGame]:
    """The games: game ``i`` on engine seed ``seed + i``, seat ``q`` played by ``bots[(i + q) % len(bots)]``
    seeded ``seed + 7 * i + q``."""
    n = config.players
    return [
        ScheduledGame(
            i,
            config,
            seed + i,
            tuple(bots[(i + q) % len(bots)] for q in range(n)),
            tuple(seed + 7 * i + q for q in range(n)),
        )
        for i in range(games)
    ]


def examples(config: RulesConfig, result: GameResult) -> tuple[np.ndarray, np.ndarray]:
    """The game of ``result`` replayed: at every turn start one example per player (its features, its final margin)."""
    if result.forfeit is not None:
        raise SystemExit(f"game {result.index}: {result.forfeit['bot']} failed: {result.forfeit['reason']}")
    g = Game.new(config, result.seed)
    n = g.num_players
    xs: list[list[np.ndarray]] = []
    for action in result.actions:
        if g.phase_name == "place_tile":
            xs.append([features(g, p) for p in range(n)])
        g.apply(action)
    margins = [g.on_board[p] - max(g.on_board[q] for q in range(n) if q != p) for p in range(n)]
    x = np.asarray([row[p] for row in xs for p in range(n)], dtype=np.float32).reshape(-1, num_features(n))
    y = np.asarray([margins[p] for _ in xs for p in range(n)], dtype=np.float32)
    return x, y


def generate(config: str, bots: list[str], seed: int, games: int, workers: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The examples of every game, in game order; the games are played by the game runner (``benchmarking.runner``)
    in ``workers`` processes."""
    cfg = RulesConfig.resolve(config)
    results = run_games(schedule(cfg, bots, seed, games), max(1, workers))
    return [examples(cfg, r) for r in in_order(results)]


def to_arrays(net, mean: np.ndarray, std: np.ndarray) -> dict[str, np.ndarray]:  # noqa: ANN001 (torch)
    """The arrays of ``policies.value.ValueNet`` from a torch ``Sequential`` of Linear and ReLU layers."""
    import torch

    arrays = {"mean": mean.astype(np.float32), "std": std.astype(np.float32)}
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    for i, lin in enumerate(linears):
        arrays[f"w{i}"] = lin.weight.detach().numpy().astype(np.float32)
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32)
    return arrays


def train(
    data: list[tuple[np.ndarray, np.ndarray]], hidden: list[int], epochs: int, seed: int
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # a small network: one thread is as fast and leaves the other cores alone
    hold = max(1, len(data) // 10)
    tx = np.concatenate([x for x, _ in data[hold:]])
    ty = np.concatenate([y for _, y in data[hold:]])
    vx = np.concatenate([x for x, _ in data[:hold]])
    vy = np.concatenate([y for _, y in data[:hold]])
    mean = tx.mean(axis=0)
    std = tx.std(axis=0) + 1e-3
    layers: list[torch.nn.Module] = []
    width = tx.shape[1]
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, 1))
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-5)
    xt = torch.from_numpy((tx - mean) / std)
    yt = torch.from_numpy(ty)
    xv = torch.from_numpy((vx - mean) / std)
    yv = torch.from_numpy(vy)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(xt), generator=gen)
        for start in range(0, len(xt), 256):
            idx = perm[start : start + 256]
            loss = torch.mean((net(xt[idx])[:, 0] - yt[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        train_loss = float(torch.mean((net(xt)[:, 0] - yt) ** 2))
        held_loss = float(torch.mean((net(xv)[:, 0] - yv) ** 2))
        base = float(torch.mean((yv - yt.mean()) ** 2))
    arrays = to_arrays(net, mean, std)
    stats = {
        "train_mse": train_loss,
        "held_out_mse": held_loss,
        "held_out_mse_of_the_mean": base,
        "examples": int(len(tx)),
        "held_out_examples": int(len(vx)),
    }
    return arrays, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="core-2p")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=500000)
    ap.add_argument("--bots", default="")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hidden", default="64,64")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--slope", type=float, default=1.5)
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    g = Game.new(a.config, 0)
    bots = a.bots.split(",") if a.bots else ["expert", "expert", f"ppo-core-{g.num_players}p", "heuristic"]
    bots = [b for b in bots if b in policies.available() or ":" in b or "/" in b]
    hidden = [int(h) for h in a.hidden.split(",")]
    t0 = time.perf_counter()
    data = generate(a.config, bots, a.seed, a.games, a.workers)
    t1 = time.perf_counter()
    arrays, stats = train(data, hidden, a.epochs, a.seed)
    t2 = time.perf_counter()
    out = Path(a.out) if a.out else VALUES_DIR / f"value-{a.config}"
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out.with_suffix(".npz"), **arrays)
    manifest = {
        "format": FORMAT,
        "config": a.config,
        "players": g.num_players,
        "features": num_features(g.num_players),
        "layers": len(hidden),
        "hidden": hidden,
        "slope": a.slope,
        "training": {
            "games": a.games,
            "seed": a.seed,
            "bots": bots,
            "epochs": a.epochs,
            "generate_s": round(t1 - t0, 1),
            "train_s": round(t2 - t1, 1),
            "command": "python tools/train_value.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            **stats,
        },
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(json.dumps(manifest["training"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
