"""Expert iteration (ExIt / AlphaZero-style): the search bot plays itself, a network learns its moves, repeat.

One *generation*:

1. **Self-play**: ``games_per_generation`` games in which every seat is the search bot (``policies.mcts``). Its
   prior is the expert bot in generation 1 and the previous generation's network afterwards (``prior``); its
   leaf evaluation is ``leaf`` (``eval``: the heuristic's static score; ``value``: the previous network's value
   head, from generation 2 on). Each decision with two or more legal actions gives one example: the deciding
   player's observation, the legal-action mask, the root's visit distribution (the *policy target*) and, once
   the game is over, that player's return (RULINGS R9, the *value target*). The first ``explore_decisions``
   decisions of a game sample the action from the visit distribution, the others play the most visited.
2. **Training**: a policy MLP (masked cross-entropy against the visit distributions) and a value MLP (squared
   error of ``tanh(v)`` against the returns) on the examples of the last ``window`` generations, starting from
   the previous generation's weights.
3. **Export**: ``runs/<name>/generations/gen-<k>`` in the torch-free format of ``policies.neural`` (the policy
   path plus the ``value_layers`` head), loadable with ``policies.load(path)``; its manifest's
   ``training.generations`` holds the whole chain (per generation: games, examples, search budget, losses, the
   parent). ``runs/<name>/policy`` is the latest generation.

Run directory (``training/rundir.py``): ``config.json`` (the run identity), ``checkpoint/state.json`` (the
generations done and their records), ``data/gen-<k>.npz`` (the examples, no pickle), ``generations/``. A run
stopped at any point resumes with ``--resume`` after its last finished generation, and the result is the same
as without the stop: every generation's self-play and training are seeded from ``seed`` and the generation.
Training runs on the GPU when ``device = "auto"`` finds one, else on the CPU (the search always runs on the CPU).

``balance-control expert-iteration --config configs/train/exit-tiny.toml [--set generations=3] [--resume]``
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
import tomllib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.encoding import Encoder, encoder_version
from bc_env.rules import Game, RulesConfig
from policies.mcts import MCTSConfig, MCTSPolicy, visit_distribution

from .config import TrainConfigError, build_config
from .rundir import RunDirError, check_resume, write_json_atomic

ALGORITHM = "expert-iteration"


@dataclass(frozen=True)
class ExItConfig:
    """An expert-iteration run (see the module docstring); loaded from TOML, every key overridable."""

    name: str = "exit-core-2p"
    rules: str = "core-2p"
    seed: int = 0
    generations: int = 10
    games_per_generation: int = 50
    #: The search's simulations per decision during self-play.
    sims: int = 200
    #: Prior of the search: "network" (the expert in generation 1, then the previous generation), "expert" or
    #: "heuristic" (every generation).
    prior: str = "network"
    #: Leaf evaluation of the search from generation 2 on: "eval" (heuristic score) or "value" (previous network).
    leaf: str = "eval"
    #: Decisions per game that sample from the visit distribution (exploration); the rest play the most visited.
    explore_decisions: int = 30
    hidden: tuple[int, ...] = (256, 256)
    activation: str = "relu"
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_weight: float = 1.0
    #: Train on the examples of this many latest generations.
    window: int = 3
    #: "auto" (cuda if available, else cpu), "cpu" or "cuda".
    device: str = "auto"
    runs_dir: str = "runs"

    def validate(self) -> ExItConfig:
        RulesConfig.resolve(self.rules)
        positive = ("generations", "games_per_generation", "sims", "epochs", "batch_size", "window")
        for key in positive:
            if getattr(self, key) < 1:
                raise TrainConfigError(f"{key} must be >= 1, got {getattr(self, key)}")
        if self.explore_decisions < 0 or self.learning_rate <= 0 or self.value_weight < 0:
            raise TrainConfigError("explore_decisions and value_weight must be >= 0, learning_rate > 0")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise TrainConfigError(f"hidden must be a non-empty list of layer widths, got {list(self.hidden)}")
        choices = {"prior": ("network", "expert", "heuristic"), "leaf": ("eval", "value"),
                   "activation": ("relu", "tanh"), "device": ("auto", "cpu", "cuda")}  # fmt: skip
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise TrainConfigError(f"{key} must be one of {', '.join(allowed)}, got {getattr(self, key)!r}")
        if not self.name or "/" in self.name or self.name in (".", ".."):
            raise TrainConfigError(f"name must be a plain directory name, got {self.name!r}")
        return self

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d

    @classmethod
    def load(cls, path: str | Path) -> ExItConfig:
        path = Path(path)
        if not path.is_file():
            raise TrainConfigError(f"expert-iteration config not found: {path}")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TrainConfigError(f"{path}: not valid TOML: {exc}") from None
        return build_config(cls, data).validate()

    def override(self, assignments: list[str]) -> ExItConfig:
        """Apply ``key=value`` strings (values parsed as TOML, else taken as a bare string)."""
        data = self.to_dict()
        for item in assignments:
            key, sep, raw = item.partition("=")
            if not sep:
                raise TrainConfigError(f"an override is written key=value, got {item!r}")
            if key.strip() not in data:
                raise TrainConfigError(f"unknown config key {key.strip()!r}; known: {', '.join(sorted(data))}")
            try:
                data[key.strip()] = tomllib.loads(f"v = {raw}")["v"]
            except tomllib.TOMLDecodeError:
                data[key.strip()] = raw
        return build_config(ExItConfig, data).validate()


#: The configuration keys that must agree for --resume (everything that changes the result).
IDENTITY_KEYS = ("rules", "seed", "games_per_generation", "sims", "prior", "leaf", "explore_decisions", "hidden",
                 "activation", "epochs", "batch_size", "learning_rate", "value_weight", "window")  # fmt: skip


def identity(cfg: ExItConfig, rules: RulesConfig) -> dict[str, Any]:
    d = cfg.to_dict()
    ident = {k: d[k] for k in IDENTITY_KEYS}
    ident["rules"] = rules.to_dict()
    ident["encoder_version"] = encoder_version(rules)
    ident["num_actions"] = Game.new(rules, 0).num_actions
    return ident


# ---------------------------------------------------------------------------- self-play


def searcher(cfg: ExItConfig, generation: int, parent: Path | None, seed: int) -> MCTSPolicy:
    """The search bot of ``generation`` (1-based): the expert prior and eval leaf first, then as configured."""
    options: dict[str, Any] = {"sims": cfg.sims}
    if cfg.prior != "network":
        options["prior"] = cfg.prior
    elif parent is not None:
        options["prior"] = str(parent)
        if cfg.leaf == "value":
            options["leaf"] = "value"
    return MCTSPolicy(seed=seed, config=replace(MCTSConfig(), **options))


def self_play(
    cfg: ExItConfig, rules: RulesConfig, generation: int, parent: Path | None, progress: bool = False
) -> dict[str, np.ndarray]:
    """The examples of one generation's self-play games (deterministic for the config and the generation)."""
    encoder = Encoder(rules)
    num_actions = Game.new(rules, 0).num_actions
    obs, masks, targets, values, players = [], [], [], [], []
    base = cfg.seed * 1_000_003 + generation * 10_007
    games = range(cfg.games_per_generation)
    if progress:
        from tqdm import tqdm

        games = tqdm(games, desc=f"generation {generation} self-play", unit="game", file=sys.stderr)
    for i in games:
        game = Game.new(rules, base + i)
        bots = [searcher(cfg, generation, parent, base + 7919 * i + s) for s in range(rules.players)]
        pick = random.Random(base + i)
        start = len(players)
        decisions = 0
        while not game.is_terminal():
            p = game.current_player
            legal = game.legal_actions()
            if len(legal) == 1:
                game.apply(legal[0])
                continue
            bot = bots[p]
            action = bot.act(game)
            dist = visit_distribution(bot.last_visits, num_actions)
            obs.append(encoder.encode(game, p))
            masks.append(game.legal_action_mask().astype(bool))
            targets.append(dist)
            players.append(p)
            if decisions < cfg.explore_decisions:
                acts = sorted(bot.last_visits)
                action = pick.choices(acts, weights=[bot.last_visits[a] for a in acts])[0]
            decisions += 1
            game.apply(action)
        returns = game.returns()
        values.extend(returns[q] for q in players[start:])
    return {
        "obs": np.asarray(obs, dtype=np.float32),
        "mask": np.asarray(masks, dtype=bool),
        "policy": np.asarray(targets, dtype=np.float32),
        "value": np.asarray(values, dtype=np.float32),
    }


# ---------------------------------------------------------------------------- network


def build_networks(obs_size: int, num_actions: int, cfg: ExItConfig) -> tuple[Any, Any]:
    import torch
    from torch import nn

    act = nn.ReLU if cfg.activation == "relu" else nn.Tanh

    def mlp(out: int) -> Any:
        layers, width = [], obs_size
        for h in cfg.hidden:
            layers += [nn.Linear(width, h), act()]
            width = h
        layers.append(nn.Linear(width, out))
        return nn.Sequential(*layers)

    torch.manual_seed(cfg.seed)
    return mlp(num_actions), mlp(1)


def _linears(net: Any) -> list[Any]:
    from torch import nn

    return [m for m in net if isinstance(m, nn.Linear)]


def load_weights(policy_net: Any, value_net: Any, path: Path) -> None:
    """Copy an exported generation's weights (``policies.neural`` format) into the torch networks."""
    import torch

    from policies.neural import NeuralPolicy

    bot = NeuralPolicy(path)
    with torch.no_grad():
        for net, layers in ((policy_net, bot.layers), (value_net, bot.value_layers)):
            for m, (w, b) in zip(_linears(net), layers, strict=True):
                m.weight.copy_(torch.as_tensor(w))
                m.bias.copy_(torch.as_tensor(b))


def train_networks(
    policy_net: Any, value_net: Any, data: dict[str, np.ndarray], cfg: ExItConfig, generation: int, device: str
) -> dict[str, float]:
    """Fit both networks to the examples; returns the last epoch's mean losses."""
    import torch

    torch.manual_seed(cfg.seed * 1_000_003 + generation)
    policy_net.to(device).train()
    value_net.to(device).train()
    params = [*policy_net.parameters(), *value_net.parameters()]
    opt = torch.optim.Adam(params, lr=cfg.learning_rate)
    obs = torch.as_tensor(data["obs"], device=device)
    mask = torch.as_tensor(data["mask"], device=device)
    target = torch.as_tensor(data["policy"], device=device)
    value = torch.as_tensor(data["value"], device=device)
    n = len(obs)
    gen = torch.Generator().manual_seed(cfg.seed * 7 + generation)
    losses = {"policy_loss": 0.0, "value_loss": 0.0}
    for _ in range(cfg.epochs):
        order = torch.randperm(n, generator=gen).to(device)
        sums = {"policy_loss": 0.0, "value_loss": 0.0}
        for start in range(0, n, cfg.batch_size):
            idx = order[start : start + cfg.batch_size]
            logits = policy_net(obs[idx]).masked_fill(~mask[idx], -1e9)
            logp = torch.log_softmax(logits, dim=1)
            p_loss = -(target[idx] * logp).sum(dim=1).mean()
            v_loss = ((torch.tanh(value_net(obs[idx])[:, 0]) - value[idx]) ** 2).mean()
            loss = p_loss + cfg.value_weight * v_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums["policy_loss"] += float(p_loss.detach()) * len(idx)
            sums["value_loss"] += float(v_loss.detach()) * len(idx)
        losses = {k: v / n for k, v in sums.items()}
    policy_net.cpu().eval()
    value_net.cpu().eval()
    return losses


def export_generation(
    policy_net: Any, value_net: Any, path: Path, cfg: ExItConfig, rules: RulesConfig, chain: list[dict[str, Any]]
) -> Path:
    """Write one generation as a ``policies.neural`` bot with a value head; the manifest holds the chain."""
    import platform

    import torch

    from policies.neural import save_policy

    from .export import git_commit

    def pairs(net: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in _linears(net)]

    num_actions = Game.new(rules, 0).num_actions
    manifest = {
        "name": f"{cfg.name}-gen{len(chain)}",
        "rules": rules.to_dict(),
        "rules_preset": rules.name,
        "encoder_version": encoder_version(rules),
        "action_layout": {"version": 1, "num_actions": num_actions},
        "network": {"activation": cfg.activation, "hidden": list(cfg.hidden)},
        "training": {
            "algorithm": ALGORITHM,
            "exported_with": "training.expert_iteration",
            "run": cfg.name,
            "config": cfg.to_dict(),
            "generations": chain,
            "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "git_commit": git_commit(),
        },
    }
    return save_policy(path, pairs(policy_net), manifest, value_layers=pairs(value_net))


# ---------------------------------------------------------------------------- the run


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise TrainConfigError("device 'cuda' asked for, but torch sees no GPU (use device = 'auto' or 'cpu')")
    return device


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def run(cfg: ExItConfig, *, resume: bool = False, progress: bool = False) -> dict[str, Any]:
    """Run (or resume) the generations of ``cfg``; returns the final state (generations done, records)."""
    cfg = cfg.validate()
    rules = RulesConfig.resolve(cfg.rules)
    run_dir = cfg.run_dir
    ident = identity(cfg, rules)
    state_path = run_dir / "checkpoint" / "state.json"
    if resume:
        check_resume(run_dir, ident, "state.json")
        state = json.loads(state_path.read_text(encoding="utf-8"))
    else:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise RunDirError(f"{run_dir} exists; resume it with --resume or pick another name (--set name=...)")
        (run_dir / "checkpoint").mkdir(parents=True, exist_ok=True)
        write_json_atomic(run_dir / "config.json", {"identity": ident, "config": cfg.to_dict()})
        state = {"generation": 0, "chain": []}
        write_json_atomic(state_path, state)
    device = resolve_device(cfg.device)
    encoder = Encoder(rules)
    num_actions = Game.new(rules, 0).num_actions
    policy_net, value_net = build_networks(int(encoder.size_total), num_actions, cfg)
    gens = run_dir / "generations"
    parent: Path | None = None
    if state["generation"]:
        parent = gens / f"gen-{state['generation']}"
        load_weights(policy_net, value_net, parent)
    (run_dir / "data").mkdir(exist_ok=True)
    for generation in range(state["generation"] + 1, cfg.generations + 1):
        t0 = time.perf_counter()
        data = self_play(cfg, rules, generation, parent, progress=progress)
        np.savez_compressed(run_dir / "data" / f"gen-{generation}.npz", **data)
        t_play = time.perf_counter() - t0
        first = max(1, generation - cfg.window + 1)
        window = [
            dict(np.load(run_dir / "data" / f"gen-{g}.npz", allow_pickle=False)) for g in range(first, generation + 1)
        ]
        losses = train_networks(policy_net, value_net, _concat(window), cfg, generation, device)
        search = searcher(cfg, generation, parent, 0).config.spec()
        record = {
            "generation": generation,
            "games": cfg.games_per_generation,
            "examples": int(len(data["value"])),
            "trained_on": int(sum(len(w["value"]) for w in window)),
            "search": search.replace(str(parent), parent.name) if parent is not None else search,
            "parent": None if parent is None else parent.name,
            **{k: round(v, 6) for k, v in losses.items()},
            "device": device,
            "self_play_seconds": round(t_play, 1),
            "train_seconds": round(time.perf_counter() - t0 - t_play, 1),
        }
        chain = [*state["chain"], record]
        parent = export_generation(policy_net, value_net, gens / f"gen-{generation}", cfg, rules, chain)
        for suffix in (".npz", ".json"):
            shutil.copyfile(parent.with_suffix(suffix), (run_dir / "policy").with_suffix(suffix))
        state = {"generation": generation, "chain": chain}
        write_json_atomic(state_path, state)
        if progress:
            print(f"generation {generation}: {record}", file=sys.stderr)
    return state


# ---------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", required=True, help="expert-iteration config (TOML), e.g. configs/train/exit-tiny.toml"
    )
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value (e.g. generations=3); repeatable")  # fmt: skip
    parser.add_argument("--resume", action="store_true", help="continue runs/<name> after its last generation")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def main(args: argparse.Namespace) -> int:
    """Returns 0, or raises ``TrainConfigError`` / ``RunDirError`` (the command turns them into one-line errors)."""
    cfg = ExItConfig.load(args.config).override(args.overrides)
    run(cfg, resume=args.resume, progress=not args.no_progress)
    print(f"exported {cfg.run_dir / 'policy'} (load it with policies.load({str(cfg.run_dir / 'policy')!r}))")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(prog="python -m training.expert_iteration", description=__doc__)
    add_arguments(ap)
    try:
        sys.exit(main(ap.parse_args()))
    except (TrainConfigError, RunDirError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
