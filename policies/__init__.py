"""Bots behind one protocol (``policies.base.Policy``): ``act(game) -> action``.

``policies.load(name_or_path)`` returns any bot: ``"random"``, ``"heuristic"``, ``"expert"``, ``"endgame"`` (the
expert plus an endgame search, ``policies.endgame``; options after colons), ``"champion"`` (the strongest shipped
bot for the game's rules, ``policies.champion``), a shipped trained bot (``"ppo-core-2p"``, ``"ppo-core-4p"``,
``"zero-core-2p"``, ``"zero-core-4p"``: files in ``policies/bots/``) or the path of an exported policy
(``runs/<name>/policy`` with or without ``.npz``). Trained bots run on NumPy alone (no torch).

The search bot takes options after a colon: ``"mcts:sims=400:leaf=rollout"`` (``policies.mcts``; a bad option
raises ``MCTSOptionError``).

``policies.load(name, seed=None, config=None)``: with ``config`` a trained bot is checked against those rules
(``PolicyConfigError`` names both configurations); a broken bot file raises ``PolicyFileError``, an unknown name
``UnknownPolicyError``; all three are ``bc_env.rules.BalanceControlError``.
"""

from __future__ import annotations

from pathlib import Path

from bc_env.rules import BalanceControlError, RulesConfig

from .base import Policy, RandomPolicy
from .champion import ChampionPolicy
from .endgame import EndgameConfig, EndgameOptionError, EndgamePolicy
from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy
from .mcts import MCTSConfig, MCTSOptionError, MCTSPolicy
from .neural import NeuralPolicy, PolicyConfigError, PolicyFileError

BOTS_DIR = Path(__file__).resolve().parent / "bots"

_REGISTRY = {
    "champion": ChampionPolicy,
    "endgame": EndgamePolicy,
    "expert": ExpertPolicy,
    "heuristic": HeuristicPolicy,
    "mcts": MCTSPolicy,
    "random": RandomPolicy,
}


def shipped_bots() -> list[str]:
    return sorted(p.stem for p in BOTS_DIR.glob("*.npz"))


def available() -> list[str]:
    return sorted([*_REGISTRY, *shipped_bots()])


class UnknownPolicyError(BalanceControlError):
    """``policies.load`` got a name that is neither a bot nor the path of an exported policy."""


def load(name: str | Path, seed: int | None = None, config: RulesConfig | str | None = None) -> Policy:
    """A bot by name or by the path of an exported policy (``seed`` seeds the bots that draw at random).

    With ``config``, a trained bot is checked against the rules it will play (``PolicyConfigError`` names both
    configurations when they differ); the rule-based bots play any rules. A name that is neither a bot nor an
    exported policy raises :class:`UnknownPolicyError`, a broken policy file :class:`PolicyFileError`.
    """
    if not isinstance(name, str | Path) or not str(name):
        raise UnknownPolicyError(f"a bot is named by a non-empty string or a path, got {name!r}")
    factory = _REGISTRY.get(str(name))
    if factory is not None:
        return factory(seed=seed)
    if isinstance(name, str) and name.startswith("endgame:"):
        return EndgamePolicy(seed=seed, config=EndgameConfig.parse(name[8:]))
    if isinstance(name, str) and name.startswith("mcts:"):
        return MCTSPolicy(seed=seed, config=MCTSConfig.parse(name[5:]))
    if isinstance(name, str) and "/" not in name and "\\" not in name and name not in (".", ".."):
        shipped = BOTS_DIR / name
        if shipped.with_suffix(".npz").is_file():
            return NeuralPolicy(shipped, config=config)
    path = Path(name)
    if path.with_suffix(".npz").is_file() or path.suffix == ".npz":
        return NeuralPolicy(path, config=config)
    raise UnknownPolicyError(
        f"unknown policy {str(name)!r}; available: {', '.join(available())}, or a path to an exported policy"
    )


__all__ = [
    "ChampionPolicy",
    "EndgameConfig",
    "EndgameOptionError",
    "EndgamePolicy",
    "ExpertPolicy",
    "HeuristicPolicy",
    "MCTSConfig",
    "MCTSOptionError",
    "MCTSPolicy",
    "NeuralPolicy",
    "Policy",
    "PolicyConfigError",
    "PolicyFileError",
    "RandomPolicy",
    "UnknownPolicyError",
    "available",
    "load",
]
