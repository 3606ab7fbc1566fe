"""Training configuration: one dataclass, loaded from ``configs/train/*.toml``, every value overridable.

``balance-control train --config configs/train/ppo-core-2p.toml --set total_steps=20000 --set pool.snapshot_every=5000``
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any


class TrainConfigError(ValueError):
    """A training configuration value is missing, unknown or of the wrong type."""


#: The trainers of ``balance-control train``: ``--backend`` name -> (module, class, the extra it needs). Each is a
#: ``training.core.Backend``; a new backend adds one line here (docs/training.md, "Adding a backend").
BACKENDS: dict[str, tuple[str, str, str]] = {
    "sb3": ("training.train", "SB3Backend", "train"),
    "rllib": ("training.rllib.trainer", "RLlibBackend", "rllib"),
    "selfplay": ("training.selfplay.trainer", "SelfPlayBackend", "train"),
}


@dataclass(frozen=True)
class PoolConfig:
    """The opponent pool (see docs/training.md, "Opponent pool")."""

    #: Add a frozen snapshot of the learner every this many environment steps.
    snapshot_every: int = 50_000
    #: Keep at most this many snapshots (the oldest are dropped first).
    max_snapshots: int = 8
    #: Probability that an opponent seat is the uniformly random bot.
    p_random: float = 0.2
    #: Probability that an opponent seat is the heuristic bot.
    p_heuristic: float = 0.4
    #: Of the remaining probability: chance to pick the latest snapshot; otherwise uniform over the others.
    p_latest: float = 0.5


@dataclass(frozen=True)
class PPOConfig:
    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


@dataclass(frozen=True)
class RLlibConfig:
    """The Ray RLlib backend (``backend = "rllib"``; docs/training.md, "Training on Ray RLlib")."""

    #: Ray cluster to run on: "" starts a local Ray instance on this machine (``num_cpus`` CPUs), "auto" joins the
    #: cluster this machine belongs to (``ray start``), "ray://<head>:10001" connects through Ray Client.
    address: str = ""
    #: CPUs of the local Ray instance (``address = ""`` only).
    num_cpus: int = 2
    #: Object store of the local Ray instance in MB (``address = ""`` only).
    object_store_mb: int = 200
    #: Remote sampling processes (Ray actors), each stepping a batched env of ``n_envs`` games; 0 = sample in the
    #: driver.
    num_env_runners: int = 1
    #: Remote learner processes (0 = the learner runs in the driver); more than 1 is data-parallel training.
    num_learners: int = 0


@dataclass(frozen=True)
class SelfPlayConfig:
    """The fast self-play trainer (``backend = "selfplay"``, ``training/selfplay/``; docs/training.md)."""

    #: Environment worker processes (0 = step the games in the trainer's process).
    workers: int = 2
    #: Games each worker steps in one batch (``bc_env.vector.SelfPlayVectorEnv``).
    games_per_worker: int = 32
    #: Of the games that are neither against random nor heuristic opponents (pool.p_random, pool.p_heuristic): the
    #: share where the current network plays every seat; the others play one seat against a frozen snapshot.
    p_self: float = 0.5
    #: Evaluate against the expert bot too (slower than random and heuristic).
    eval_expert: bool = True
    #: Threads of torch's CPU kernels in the trainer (0 = torch's default, one per core). 1 suits a machine whose
    #: cores the worker processes (or other jobs) keep busy: spinning kernel threads slow everything down.
    torch_threads: int = 1
    #: The observation layout the network reads (``docs/observation.md``): "core" (6,235 values in core-2p) or
    #: "compact-v1" (core configurations only: 1,622 values in core-2p, a quarter of the network's first layer) or
    #: "compact-v2" (compact-v1 and each player's slack to the cap: 1,656 values in core-2p).
    obs_layout: str = "core"
    #: Threads of torch's CPU kernels during the PPO update, when the worker processes wait for the next rollout
    #: (0 = one per core).
    update_threads: int = 0
    #: Reward shaping for learning from zero (docs/training.md, "Gate bonus"): added to the current network's
    #: reward for each Political Action after which it alone keeps the FormalizeInfluence gate closed (it still
    #: holds Starting Influence, every opponent has placed all of theirs: CORE-01-08-02) and can still reach the cap
    #: (``training.selfplay.games.holds_gate_alone``). 0 = off.
    gate_bonus: float = 0.0
    #: Learner steps over which the gate bonus falls linearly to 0 (a curriculum: the run ends on the game's own
    #: reward); 0 = the bonus stays.
    gate_bonus_steps: int = 0


@dataclass(frozen=True)
class TrainConfig:
    #: Run name; the run directory is ``<runs_dir>/<name>``.
    name: str = "ppo-core-2p"
    #: Rules preset name or path (``configs/rules``).
    rules: str = "core-2p"
    seed: int = 0
    #: Total environment steps (learner decisions) to train for.
    total_steps: int = 200_000
    #: Parallel environments: processes when > 1 (sb3); the games of each env runner's batched env (rllib).
    n_envs: int = 2
    #: Network of the policy: "mlp" (``net_arch`` hidden layers over the flat observation, policy and value
    #: separate) or "spatial" (``training/spatial.py``: ``conv_layers`` 3x3 convolutions of ``conv_channels``
    #: over the board planes, one logit per cell; ``net_arch`` is then the value head's hidden layers).
    network: str = "mlp"
    conv_channels: int = 32
    conv_layers: int = 3
    #: Hidden layer sizes of the policy and value networks.
    net_arch: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    #: Terminal reward of the learner (``bc_env.env.rewards``): "zero_sum" (win +1, shared 0, loss -1 in
    #: 2 players, RULINGS R9) or "margin" (own Influence on the Board minus the best opponent's, / cap).
    reward: str = "zero_sum"
    #: The bot whose decisions behaviour cloning imitates and DAgger's labels come from (a ``policies.load`` name
    #: of a built-in bot: "heuristic" or "expert").
    teacher: str = "heuristic"
    #: Behaviour-cloning warm start from the teacher: games of demonstrations (0 = off).
    bc_games: int = 0
    bc_epochs: int = 3
    #: DAgger rounds after behaviour cloning: the learner plays ``bc_games`` more games, the teacher labels
    #: its positions, and the network is trained again on all the data (0 = plain behaviour cloning).
    bc_dagger_rounds: int = 0
    #: Weight, in the imitation loss, of a DAgger position where the learner's own choice differed from the
    #: teacher's label (its mistakes: e.g. releasing the FormalizeInfluence gate a turn early or late); 1 = plain.
    bc_mistake_weight: float = 1.0
    #: Start the policy from a trained one instead of random weights: a shipped bot's name ("ppo-core-2p") or an
    #: exported policy's path (``runs/<name>/policy``); same rules, network type and shape. Its trunk and action
    #: head are copied; the value head starts untrained (behaviour cloning, if on, then trains both). "" = off.
    init_policy: str = ""
    #: Evaluate against the random and heuristic bots every this many steps, over this many games each.
    eval_every: int = 50_000
    eval_games: int = 40
    #: Write a checkpoint every this many steps (and on Ctrl-C).
    checkpoint_every: int = 50_000
    #: Torch device of the learner: "auto" (CUDA when available, else CPU), "cpu" or "cuda". Not part of a
    #: run's identity: a run may be resumed on another device.
    device: str = "auto"
    #: Wall-clock budget of one invocation in seconds (0 = none): training stops at ``total_steps`` or after
    #: this many seconds, whichever comes first, then evaluates and exports like a finished run.
    max_seconds: float = 0.0
    runs_dir: str = "runs"
    #: Trainer: "sb3" (sb3-contrib MaskablePPO on this machine, ``training/train.py``), "rllib" (Ray RLlib PPO on a
    #: local or remote Ray cluster: ``training/rllib/``; needs the ``rllib`` extra) or "selfplay"
    #: (``training/selfplay/``).
    backend: str = "sb3"
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        for name in ("total_steps", "n_envs", "eval_every", "eval_games", "checkpoint_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise TrainConfigError(f"{name} must be a positive integer, got {v!r}")
        if self.bc_dagger_rounds < 0:
            raise TrainConfigError(f"bc_dagger_rounds must be >= 0, got {self.bc_dagger_rounds!r}")
        if self.teacher not in ("heuristic", "expert"):
            raise TrainConfigError(f"teacher must be 'heuristic' or 'expert', got {self.teacher!r}")
        if self.bc_mistake_weight < 1.0:
            raise TrainConfigError(f"bc_mistake_weight must be >= 1, got {self.bc_mistake_weight!r}")
        if self.bc_games < 0:
            raise TrainConfigError(f"bc_games must be >= 0, got {self.bc_games!r}")
        if self.reward not in ("zero_sum", "margin"):
            raise TrainConfigError(f"reward must be 'zero_sum' or 'margin', got {self.reward!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise TrainConfigError(f"device must be 'auto', 'cpu' or 'cuda', got {self.device!r}")
        if self.max_seconds < 0:
            raise TrainConfigError(f"max_seconds must be >= 0 (0 = no limit), got {self.max_seconds!r}")
        if self.network not in ("mlp", "spatial"):
            raise TrainConfigError(f"network must be 'mlp' or 'spatial', got {self.network!r}")
        if self.conv_channels < 1 or self.conv_layers < 1:
            raise TrainConfigError("conv_channels and conv_layers must be >= 1")
        if self.activation not in ("tanh", "relu"):
            raise TrainConfigError(f"activation must be 'tanh' or 'relu', got {self.activation!r}")
        if not self.net_arch or any(not isinstance(h, int) or h < 1 for h in self.net_arch):
            raise TrainConfigError(f"net_arch must be a list of positive integers, got {self.net_arch!r}")
        self._validate_backend()
        pool = self.pool
        for name in ("p_random", "p_heuristic", "p_latest"):
            v = getattr(pool, name)
            if not 0.0 <= v <= 1.0:
                raise TrainConfigError(f"pool.{name} must be in [0, 1], got {v!r}")
        if pool.p_random + pool.p_heuristic > 1.0:
            raise TrainConfigError("pool.p_random + pool.p_heuristic must be at most 1")
        if self.backend != "selfplay" and self.ppo.batch_size > self.ppo.n_steps * self.n_envs:
            raise TrainConfigError(
                f"ppo.batch_size ({self.ppo.batch_size}) must not exceed ppo.n_steps * n_envs "
                f"({self.ppo.n_steps * self.n_envs})"
            )

    def _validate_backend(self) -> None:
        if self.backend not in BACKENDS:
            allowed = ", ".join(repr(b) for b in BACKENDS)
            raise TrainConfigError(f"backend must be one of {allowed}, got {self.backend!r}")
        r = self.rllib
        for name in ("num_env_runners", "num_learners"):
            v = getattr(r, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise TrainConfigError(f"rllib.{name} must be an integer >= 0, got {v!r}")
        if r.num_cpus < 1 or r.object_store_mb < 80:
            raise TrainConfigError("rllib.num_cpus must be >= 1 and rllib.object_store_mb >= 80")
        sp = self.selfplay
        if isinstance(sp.workers, bool) or not isinstance(sp.workers, int) or sp.workers < 0:
            raise TrainConfigError(f"selfplay.workers must be an integer >= 0, got {sp.workers!r}")
        if isinstance(sp.games_per_worker, bool) or not isinstance(sp.games_per_worker, int) or sp.games_per_worker < 1:
            raise TrainConfigError(f"selfplay.games_per_worker must be a positive integer, got {sp.games_per_worker!r}")
        from bc_env.encoding import LAYOUTS

        if sp.obs_layout not in LAYOUTS:
            raise TrainConfigError(f"selfplay.obs_layout must be one of {', '.join(LAYOUTS)}, got {sp.obs_layout!r}")
        for key in ("torch_threads", "update_threads"):
            value = getattr(sp, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TrainConfigError(f"selfplay.{key} must be an integer >= 0, got {value!r}")
        if not 0.0 <= sp.p_self <= 1.0:
            raise TrainConfigError(f"selfplay.p_self must be in [0, 1], got {sp.p_self!r}")
        bonus = sp.gate_bonus
        if isinstance(bonus, bool) or not isinstance(bonus, (int, float)) or not 0 <= bonus <= 1:
            raise TrainConfigError(f"selfplay.gate_bonus must be a number in [0, 1], got {sp.gate_bonus!r}")
        if isinstance(sp.gate_bonus_steps, bool) or not isinstance(sp.gate_bonus_steps, int) or sp.gate_bonus_steps < 0:
            raise TrainConfigError(f"selfplay.gate_bonus_steps must be an integer >= 0, got {sp.gate_bonus_steps!r}")
        if self.backend == "selfplay" and (self.network != "mlp" or self.bc_games or self.init_policy):
            raise TrainConfigError(
                "backend 'selfplay' trains the mlp network from random weights: set network = \"mlp\", bc_games = 0 "
                'and init_policy = ""'
            )
        if self.backend != "rllib":
            return
        if self.network != "mlp":
            raise TrainConfigError(
                f"backend 'rllib' trains the mlp network only, this config has network = {self.network!r} "
                '(add --set network="mlp")'
            )

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["net_arch"] = list(self.net_arch)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        return _build(cls, data, "")

    @classmethod
    def load(cls, path: str | Path) -> TrainConfig:
        return cls.from_dict(read_toml(path, "training config"))

    def override(self, assignments: list[str]) -> TrainConfig:
        """Apply ``key=value`` strings (dotted keys for nested tables), parsing values as TOML."""
        return TrainConfig.from_dict(apply_overrides(self.to_dict(), assignments))

    def replace(self, **changes: Any) -> TrainConfig:
        return replace(self, **changes)


def _build(cls: Any, data: dict[str, Any], prefix: str) -> Any:
    if not isinstance(data, dict):
        raise TrainConfigError(f"{prefix or 'config'} must be a table, got {data!r}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise TrainConfigError(f"unknown key(s) {', '.join(prefix + k for k in unknown)}; known: {', '.join(known)}")
    values: dict[str, Any] = {}
    defaults = cls()
    for name, value in data.items():
        default = getattr(defaults, name)
        where = prefix + name
        if is_dataclass(default):
            values[name] = _build(type(default), value, where + ".")
            continue
        if isinstance(default, tuple):
            if not isinstance(value, list | tuple):
                raise TrainConfigError(f"{where} must be a list, got {value!r}")
            value = tuple(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise TrainConfigError(f"{where} must be true or false, got {value!r}")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TrainConfigError(f"{where} must be an integer, got {value!r}")
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TrainConfigError(f"{where} must be a number, got {value!r}")
            value = float(value)
        elif isinstance(default, str) and not isinstance(value, str):
            raise TrainConfigError(f"{where} must be a string, got {value!r}")
        values[name] = value
    return cls(**values)


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """The table of a config file; ``TrainConfigError`` names a missing file or bad TOML."""
    path = Path(path)
    if not path.is_file():
        raise TrainConfigError(f"{what} not found: {path}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TrainConfigError(f"{path}: not valid TOML: {exc}") from None


def apply_overrides(data: dict[str, Any], assignments: list[str]) -> dict[str, Any]:
    """``--set key=value`` on a config's dict (dotted keys for nested tables; values parsed as TOML, else taken
    as a bare string); an unknown key or table raises ``TrainConfigError`` naming the known ones."""
    for item in assignments:
        if "=" not in item:
            raise TrainConfigError(f"an override is written key=value, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare string
        target = data
        parts = key.strip().split(".")
        for part in parts[:-1]:
            if part not in target or not isinstance(target[part], dict):
                raise TrainConfigError(f"unknown config table {part!r} in override {item!r}")
            target = target[part]
        if parts[-1] not in target:
            raise TrainConfigError(f"unknown config key {key.strip()!r}; known: {', '.join(sorted(target))}")
        target[parts[-1]] = value
    return data


def build_config(cls: Any, data: dict[str, Any]) -> Any:
    """A config dataclass ``cls`` from a TOML table, every key checked against the field's type (as
    :meth:`TrainConfig.from_dict`; ``TrainConfigError`` names a bad key)."""
    return _build(cls, data, "")
