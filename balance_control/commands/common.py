"""What several commands share: the rules configuration, bot lists and the result line."""

from __future__ import annotations

from pathlib import Path

from bc_env.rules import Game, RulesConfig, preset_names
from bc_env.rules.errors import BalanceControlError


def fail(message: str) -> SystemExit:
    """The one-line error a command exits with (``raise fail(...)``)."""
    return SystemExit(f"balance-control: error: {message}")


def presets_help() -> str:
    return f"preset ({', '.join(preset_names())}) or path"


def load_config(spec: str) -> RulesConfig:
    try:
        return RulesConfig.resolve(spec)
    except BalanceControlError as exc:
        raise fail(str(exc)) from None


def bot_names(text: str, seats: int, what: str) -> list[str]:
    """A comma-separated bot list: one name for every seat, or exactly one name per seat."""
    from policies import available

    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise fail(f"{what} is empty; available bots: {', '.join(available())}")
    unknown = [n for n in names if n not in available() and not Path(n).with_suffix(".npz").is_file()]
    if unknown:
        raise fail(
            f"unknown bot {unknown[0]!r}; available bots: {', '.join(available())}, "
            "or the path of an exported policy (.npz + .json)"
        )
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise fail(f"{what} needs 1 or {seats} names, got {len(names)}: {text!r}")
    return names


def result_line(game: Game) -> str:
    winners = game.winners()
    who = ", ".join(f"P{p}" for p in winners)
    kind = "shared victory" if len(winners) > 1 else "winner"
    return f"result: {kind} {who}; Influence on the Board per seat {list(game.on_board)} (CORE-01-09-03)"
