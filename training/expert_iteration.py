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

The run around the generations is the training core's (``training/core.py``, the unit is a generation):
``config.json`` (the run identity), ``checkpoint/state.json`` (after every generation: the generations done and
their records), an evaluation of the network against the random and the heuristic bot every ``eval_every``
generations (``evals.json``, a line per evaluation, TensorBoard scalars in ``tb/`` with the same rows in
``progress.jsonl``, ``learning_curve.png``), ``summary.json`` and the final ``policy``. This backend's own:
``data/gen-<k>.npz`` (the examples, no pickle) and ``generations/``. A run stopped at any point resumes with
``--resume`` after its last finished generation, and the result is the same as without the stop: every
generation's self-play and training are seeded from ``seed`` and the generation.
Training runs on the GPU when ``device = "auto"`` finds one, else on the CPU (the search always runs on the CPU).

``balance-control expert-iteration --config configs/train/exit-tiny.toml [--set generations=3] [--resume]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.encoding import Encoder, encoder_version
from bc_env.rules import Game, RulesConfig
from policies.mcts import MCTSConfig, MCTSPolicy, visit_distribution

from . import core
from .config import TrainConfigError, apply_overrides, build_config, read_toml
from .core import Backend, Plan, Run
from .rundir import RunDirError

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
    #: Evaluate the network (no search) against the random and the heuristic bot every this many generations,
    #: over this many games each (``evals.json``, ``learning_curve.png``, TensorBoard).
    eval_every: int = 1
    eval_games: int = 20

    def validate(self) -> ExItConfig:
        RulesConfig.resolve(self.rules)
        positive = ("generations", "games_per_generation", "sims", "epochs", "batch_size", "window", "eval_every",
                    "eval_games")  # fmt: skip
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
        return build_config(cls, read_toml(path, "expert-iteration config")).validate()

    def override(self, assignments: list[str]) -> ExItConfig:
        """Apply ``key=value`` strings (values parsed as TOML, else taken as a bare string)."""
        return build_config(ExItConfig, apply_overrides(self.to_dict(), assignments)).validate()


#: The configuration keys that must agree for --resume (everything that changes the result).
IDENTITY_KEYS = ("rules", "seed", "games_per_generation", "sims", "prior", "leaf", "explore_decisions", "hidden",
                 "activation", "epochs", "batch_size", "learning_rate", "value_weight", "window")  # fmt: skip


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
    policy_net: Any,
    value_net: Any,
    path: Path,
    cfg: ExItConfig,
    rules: RulesConfig,
    chain: list[dict[str, Any]],
    provenance: dict[str, Any] | None = None,
) -> Path:
    """Write one generation as a ``policies.neural`` bot with a value head; the manifest holds the chain."""
    import platform

    import torch

    from policies.neural import save_policy

    from .rundir import git_commit

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
            **{k: v for k, v in (provenance or {}).items() if k != "config"},
        },
    }
    return save_policy(path, pairs(policy_net), manifest, value_layers=pairs(value_net))


# ---------------------------------------------------------------------------- the run


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def describe_generation(record: dict[str, Any], generations: int) -> str:
    """One readable line per generation (the record itself is in the manifest's chain)."""
    return (
        f"generation {record['generation']}/{generations}: {record['games']} self-play "
        f"game{'s' if record['games'] != 1 else ''}, "
        f"{record['examples']:,} examples (trained on {record['trained_on']:,}), policy loss "
        f"{record['policy_loss']:.3f}, value loss {record['value_loss']:.3f}; self-play "
        f"{record['self_play_seconds']:.1f} s, training {record['train_seconds']:.1f} s on {record['device']}"
    )


class ExItBackend(Backend):
    """Expert iteration in the training core (``training/core.py``): the unit is a generation. Its own: the
    self-play search, the policy and value networks, ``data/gen-<k>.npz``, ``generations/gen-<k>`` and the chain
    of generation records (``checkpoint/state.json`` ``backend``)."""

    name = "expert-iteration"
    identity_keys = IDENTITY_KEYS

    def __init__(self, cfg: ExItConfig, progress: bool = False) -> None:
        super().__init__(cfg.validate())
        self.generation = 0
        self.chain: list[dict[str, Any]] = []
        self.parent: Path | None = None
        self.search_progress = progress
        self._device = core.resolve_device(cfg.device)

    def plan(self) -> Plan:
        c = self.cfg
        return Plan(total=c.generations, eval_every=c.eval_every, eval_games=c.eval_games, checkpoint_every=1,
                    unit="generation")  # fmt: skip

    def describe(self, rules: RulesConfig) -> str:
        c = self.cfg
        return (
            f"{c.name}: expert iteration on {rules.name}, {c.generations} generations x {c.games_per_generation} "
            f"self-play games, search mcts with {c.sims} simulations, training on {self._device}"
        )

    def device(self) -> str:
        return self._device

    def summary(self) -> dict[str, Any]:
        return {"generations": self.generation, "examples": sum(r["examples"] for r in self.chain)}

    def _networks(self, run: Run) -> None:
        self.rules = run.rules
        encoder = Encoder(run.rules)
        num_actions = Game.new(run.rules, 0).num_actions
        self.policy_net, self.value_net = build_networks(int(encoder.size_total), num_actions, self.cfg)
        (run.run_dir / "data").mkdir(exist_ok=True)

    def start(self, run: Run) -> None:
        self._networks(run)

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        self._networks(run)
        self.generation, self.chain = state["generation"], state["chain"]
        if self.generation:
            self.parent = run.run_dir / "generations" / f"gen-{self.generation}"
            load_weights(self.policy_net, self.value_net, self.parent)

    def save(self, directory: Path) -> dict[str, Any]:
        return {"generation": self.generation, "chain": self.chain}

    def learn(self, run: Run) -> None:
        cfg, rules, run_dir = self.cfg, run.rules, run.run_dir
        for generation in range(self.generation + 1, cfg.generations + 1):
            t0 = time.perf_counter()
            data = self_play(cfg, rules, generation, self.parent, progress=self.search_progress)
            np.savez_compressed(run_dir / "data" / f"gen-{generation}.npz", **data)
            t_play = time.perf_counter() - t0
            first = max(1, generation - cfg.window + 1)
            window = [
                dict(np.load(run_dir / "data" / f"gen-{g}.npz", allow_pickle=False))
                for g in range(first, generation + 1)
            ]
            losses = train_networks(self.policy_net, self.value_net, _concat(window), cfg, generation, self._device)
            search = searcher(cfg, generation, self.parent, 0).config.spec()
            parent = self.parent
            record = {
                "generation": generation,
                "games": cfg.games_per_generation,
                "examples": int(len(data["value"])),
                "trained_on": int(sum(len(w["value"]) for w in window)),
                "search": search.replace(str(parent), parent.name) if parent is not None else search,
                "parent": None if parent is None else parent.name,
                **{k: round(v, 6) for k, v in losses.items()},
                "device": self._device,
                "self_play_seconds": round(t_play, 1),
                "train_seconds": round(time.perf_counter() - t0 - t_play, 1),
            }
            self.chain = [*self.chain, record]
            self.parent = self.export(run_dir / "generations" / f"gen-{generation}", "", {})
            self.generation = generation
            run.say(describe_generation(record, cfg.generations))
            for key in ("examples", "trained_on", "policy_loss", "value_loss", "self_play_seconds", "train_seconds"):
                run.log.record(f"exit/{key}", record[key])
            keep_going = run.tick(generation, episodes=cfg.games_per_generation)
            run.log.dump(generation)
            if not keep_going:
                return

    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        """The current networks as a ``policies.neural`` bot with a value head; the manifest holds the chain."""
        return export_generation(self.policy_net, self.value_net, path, self.cfg, self.rules, self.chain, provenance)


def run(cfg: ExItConfig, *, resume: bool = False, progress: bool = False) -> dict[str, Any]:
    """Run (or resume) the generations of ``cfg``; returns the final state (generations done, records)."""
    backend = ExItBackend(cfg, progress=progress)
    summary = core.train(backend, resume=resume, progress=progress)
    return {"generation": backend.generation, "chain": backend.chain, "summary": summary}


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
    done = run(cfg, resume=args.resume, progress=False if args.no_progress else sys.stderr.isatty())
    if "interrupted" not in done["summary"]:
        print(f"load the bot with policies.load({str(cfg.run_dir / 'policy')!r}), or search with it: "
              f"mcts:prior={cfg.run_dir / 'policy'}:leaf=value")  # fmt: skip
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(prog="python -m training.expert_iteration", description=__doc__)
    add_arguments(ap)
    try:
        sys.exit(main(ap.parse_args()))
    except (TrainConfigError, RunDirError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
