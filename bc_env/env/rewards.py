"""Terminal reward schemes (RULINGS R9). The winner is always the engine's answer; a scheme only maps
the final position to one number per seat."""

from __future__ import annotations

from bc_env.rules import Game

from .errors import EnvOptionError

#: ``zero_sum`` (default, RULINGS R9): ``game.returns()``: the k winners share +1, the others share -1,
#: all 0 when everybody shares victory. ``margin``: (own Influence on the Board - the best other
#: player's) / the Influence cap (CORE-01-08-01, R12), in [-1, 1]; not zero-sum, but it rewards
#: winning by more and losing by less.
REWARD_SCHEMES = ("zero_sum", "margin")


def check_scheme(scheme: str) -> str:
    if not isinstance(scheme, str) or scheme not in REWARD_SCHEMES:
        raise EnvOptionError(f"reward_scheme must be one of {', '.join(map(repr, REWARD_SCHEMES))}, got {scheme!r}")
    return scheme


def terminal_rewards(game: Game, scheme: str = "zero_sum") -> list[float]:
    """One reward per seat for a finished game (all 0 before the end)."""
    if not game.is_terminal():
        return [0.0] * game.num_players
    if scheme == "zero_sum":
        return [float(r) for r in game.returns()]
    if scheme == "margin":
        board = game.on_board  # physical Influence on the Board is the only victory metric (R9, CORE-01-01-01)
        cap = game.cap
        out = []
        for p, own in enumerate(board):
            best_other = max(v for q, v in enumerate(board) if q != p)
            out.append((own - best_other) / cap)
        return out
    raise ValueError(f"reward_scheme must be one of {', '.join(map(repr, REWARD_SCHEMES))}, got {scheme!r}")
