"""``balance-control play``: a person against bots in the terminal.

At your decision, enter the number of an option or its action string. Other inputs: ``list`` (the options
again), ``hint`` (what the heuristic bot would do), ``undo`` (back to your previous decision), ``save FILE``
(a replay of the game so far), ``legend`` (what the board codes mean), ``quit``. ``balance-control legend``
prints the board legend.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from bc_env.rules import Game, RulesConfig, replay, save_replay
from bc_env.rules.errors import BalanceControlError, IllegalActionError

from .common import add_legend_argument, bot_names, fail, legend_text, load_config, presets_help, result_line

NAME = "play"
HELP = "play against bots in the terminal (reads your moves from stdin; 'balance-control legend' explains the board)"

#: What each decision asks for, for the explanation of an illegal input.
DECISIONS = {
    "place_tile": "place the drawn tile on an empty table cell next to a Board tile",
    "political": "choose your Political Action",
    "move_to": "choose the tile your Influence moves to",
    "pay": "choose the resort of the next Resource you pay",
    "gain": "choose the resort of the Resource you gain",
    "target": "choose the target of the Measure you play",
    "exchange": "choose an Investment Program exchange, or decline",
}

COMMANDS_HELP = (
    "Enter the number of an option or the action string; 'list' shows the options again, 'hint' asks the "
    "heuristic bot, 'undo' goes back to your previous decision, 'save FILE' writes a replay, 'legend' explains "
    "the board, 'quit' exits."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-2p", help=presets_help())
    parser.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    parser.add_argument("--opponents", default="heuristic", help="bot for every other seat, or one per other seat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--save-replay", metavar="FILE", default=None, help="write the game as a replay file when it ends or you leave"
    )
    add_legend_argument(parser)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if not 0 <= args.seat < config.players:
        raise fail(f"--seat must be in 0..{config.players - 1}, got {args.seat}")
    opponents = bot_names(args.opponents, config.players - 1, "--opponents")
    if args.legend:
        print(legend_text(config))
    return play_loop(config, args.seat, opponents, args.seed, sys.stdin, sys.stdout, save_replay_to=args.save_replay)


def _format_options(game: Game, legal: list[int]) -> str:
    items = [f"{i + 1:>3}) {game.action_to_string(a)}" for i, a in enumerate(legal)]
    width = max(len(s) for s in items) + 2
    per_line = max(1, 100 // width)
    rows = ["".join(s.ljust(width) for s in items[i : i + per_line]).rstrip() for i in range(0, len(items), per_line)]
    return "\n".join(rows)


def explain_illegal(game: Game, legal: list[int], text: str, action: int) -> str:
    """Why ``action`` (parsed from ``text``) is not legal now: the decision and a few legal options."""
    decision = game.phase_name
    strings = [game.action_to_string(a) for a in legal]
    kind = game.action_to_string(action).split(" ", 1)[0]
    kinds = sorted({s.split(" ", 1)[0] for s in strings})
    what = DECISIONS.get(decision, decision)
    if kind not in kinds:
        why = f"the decision now is {decision} ({what}), which takes {', '.join(repr(k) for k in kinds)} actions"
    else:
        same = [s for s in strings if s.startswith(kind + " ") or s == kind]
        why = f"the decision now is {decision} ({what}); {len(same)} {kind!r} options are legal"
    examples = ", ".join(strings[:5]) + (", ..." if len(strings) > 5 else "")
    return (
        f"{text!r} is not legal now ({decision}): {why}, e.g. {examples}; enter a number from 1 to {len(legal)} "
        "or one of the listed action strings ('list' shows them)"
    )


def _parse_choice(game: Game, legal: list[int], text: str) -> int | str:
    """The chosen action, or an error message for the player."""
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"{k} is not an option: enter a number from 1 to {len(legal)} or an action string"
    try:
        action = game.string_to_action(text)
    except (IllegalActionError, ValueError) as exc:
        example = game.action_to_string(legal[0])
        return f"{exc}; enter a number from 1 to {len(legal)} or an action string such as {example!r}"
    if action not in legal:
        return explain_illegal(game, legal, text, action)
    return action


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def play_loop(
    config: RulesConfig,
    seat: int,
    opponents: list[str],
    seed: int,
    stdin: TextIO,
    stdout: TextIO,
    save_replay_to: str | Path | None = None,
) -> int:
    """The interactive game: ``seat`` reads its decisions from ``stdin``; bots play the other seats. With
    ``save_replay_to``, the game so far is written as a replay file however the loop ends (also on Ctrl-C)."""
    from policies import load

    game = Game.new(config, seed)
    actions: list[int] = []  # every action of the game, in order: the replay
    deciders: list[int] = []  # who took each of them

    def out(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    def save(path: str | Path) -> None:
        save_replay(path, game, seed, actions)
        out(f"replay saved to {path} ({len(actions)} actions; 'balance-control replay {path}' shows it)")

    bots: dict[int, Any] = {}
    others = [q for q in range(game.num_players) if q != seat]
    for q, name in zip(others, opponents):
        bots[q] = load(name, seed=seed * 100 + q, config=config)
    hinter: Any = None
    out(f"{config.name}, seed {seed}: you are P{seat}; " + ", ".join(f"P{q} {bots[q].name}" for q in others))
    out(COMMANDS_HELP)
    try:
        show = True
        while not game.is_terminal():
            current = game.current_player
            assert current is not None
            if current != seat:
                action = bots[current].act(game)
                out(f"P{current} [{game.phase_name}] {game.action_to_string(action)}")
                game.apply(action)
                actions.append(action)
                deciders.append(current)
                show = True
                continue
            legal = game.legal_actions()
            if show:
                out()
                out(game.render())
                out(f"your decision ({game.phase_name}), {len(legal)} options:")
                out(_format_options(game, legal))
                show = False
            stdout.write(f"P{seat} [{game.phase_name}]> ")
            stdout.flush()
            line = stdin.readline()
            if not line:
                out()
                out("end of input: leaving the game")
                return 1
            text = line.strip()
            if not _isatty(stdin):
                out(text)  # echo piped input so that a transcript reads like a terminal session
            if text in ("quit", "exit", "q"):
                out("bye")
                return 0
            if text in ("list", "?", "help", ""):
                out(_format_options(game, legal))
                continue
            if text == "legend":
                out(legend_text(config))
                continue
            if text == "hint":
                if hinter is None:
                    hinter = load("heuristic", seed=seed)
                suggestion = hinter.act(game)
                out(
                    f"hint: the heuristic bot would play option {legal.index(suggestion) + 1}) "
                    f"{game.action_to_string(suggestion)}"
                )
                continue
            if text == "undo":
                mine = [i for i, who in enumerate(deciders) if who == seat]
                if not mine:
                    out("nothing to undo: you have not decided anything yet")
                    continue
                back = mine[-1]
                out(f"undo: back to your decision before {game.action_to_string(actions[back])!r} ...")
                del actions[back:], deciders[back:]
                game = replay(config, seed, list(actions))  # the game is its seed and its actions
                show = True
                continue
            if text == "save" or text.startswith("save "):
                target = text[4:].strip() or save_replay_to
                if not target:
                    out("save needs a file name: save FILE")
                    continue
                try:
                    save(target)
                except OSError as exc:
                    out(f"cannot save: {exc}")
                continue
            choice = _parse_choice(game, legal, text)
            if isinstance(choice, str):
                out(f"invalid input: {choice}")
                continue
            out(f"P{seat} [{game.phase_name}] {game.action_to_string(choice)}")
            game.apply(choice)
            actions.append(choice)
            deciders.append(seat)
            show = True
        out()
        out(game.render())
        out(result_line(game))
        return 0
    finally:
        if save_replay_to is not None:
            try:
                save(save_replay_to)
            except (OSError, BalanceControlError) as exc:
                out(f"could not save the replay to {save_replay_to}: {exc}")
