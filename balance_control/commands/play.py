"""``balance-control play``: a person against bots in the terminal.

At your decision, enter the number of an option or its action string. Other inputs: ``list`` (the options
again), ``hint`` (what the heuristic bot would do), ``undo`` (back to your previous decision), ``save FILE``
(a replay of the game so far), ``legend`` (what the board codes mean), ``quit``. ``balance-control legend``
prints the board legend.

``--load FILE`` continues a saved game: a replay (``--save-replay``, ``save FILE``, ``watch --save-replay``) or a
JSON state (``show`` reads the same files). The rules come from the file; you take the seat whose decision is
pending unless ``--seat`` says otherwise. A game continued from a state has no history before it, so ``save``
and ``--save-replay`` then write the state, which ``--load`` continues again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from bc_env.rules import Game, RulesConfig, load_replay, replay, save_replay
from bc_env.rules.errors import BalanceControlError, IllegalActionError
from bc_env.rules.replay import FORMAT as REPLAY_FORMAT
from bc_env.rules.replay import read_json_file

from ..terminal import is_terminal
from .common import add_legend_argument, bot_names, fail, legend_text, load_config, presets_help, result_line
from .show import load_state

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
    parser.add_argument("--config", default=None, help=presets_help() + " (default core-2p)")
    parser.add_argument(
        "--seat", type=int, default=None, help="your seat (0-based; default 0, with --load the seat to decide)"
    )
    parser.add_argument("--opponents", default="heuristic", help="bot for every other seat, or one per other seat")
    parser.add_argument("--seed", type=int, default=None, help="the game's seed (default 0); with --load the bots'")
    parser.add_argument(
        "--load", metavar="FILE", default=None, help="continue the game saved in FILE (a replay or a JSON state)"
    )
    parser.add_argument(
        "--save-replay", metavar="FILE", default=None, help="write the game as a replay file when it ends or you leave"
    )
    add_legend_argument(parser)


def load_saved_game(path: str) -> tuple[Game, int | None, list[int] | None]:
    """The game saved in ``path``, its seed and its actions when it is a replay (``None, None`` for a state)."""
    doc = read_json_file(path, "file")
    if not (isinstance(doc, dict) and doc.get("format") == REPLAY_FORMAT):
        return load_state(path), None, None
    try:
        game = load_replay(doc)
    except BalanceControlError as exc:
        raise fail(f"replay {path}: {exc}") from None
    again, actions = Game.new(game.config, doc["seed"]), []
    for action in doc["actions"]:  # the ids, as the replay took them
        actions.append(again.string_to_action(action) if isinstance(action, str) else int(action))
        again.apply(actions[-1])
    return game, int(doc["seed"]), actions


def run(args: argparse.Namespace) -> int:
    start: Game | None = None
    actions: list[int] | None = None
    seed = args.seed
    if args.load is not None:
        if args.config is not None:
            raise fail("--load takes the rules from the saved game: leave out --config")
        start, replay_seed, actions = load_saved_game(args.load)
        if replay_seed is not None:
            if seed is not None and seed != replay_seed:
                raise fail(f"{args.load} is a replay of the game with seed {replay_seed}: leave out --seed")
            seed = replay_seed
        if start.is_terminal():
            raise fail(f"the game in {args.load} is over ({result_line(start)}): nothing to continue")
        config = start.config
        seat = args.seat if args.seat is not None else start.current_player
    else:
        config = load_config(args.config if args.config is not None else "core-2p")
        seat = args.seat if args.seat is not None else 0
    assert seat is not None
    if not 0 <= seat < config.players:
        raise fail(f"--seat must be in 0..{config.players - 1}, got {seat}")
    opponents = bot_names(args.opponents, config.players - 1, "--opponents")
    if args.legend:
        print(legend_text(config))
    return play_loop(
        config,
        seat,
        opponents,
        seed if seed is not None else 0,
        sys.stdin,
        sys.stdout,
        save_replay_to=args.save_replay,
        actions=actions,
        state=start if actions is None else None,
    )


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


def play_loop(
    config: RulesConfig,
    seat: int,
    opponents: list[str],
    seed: int,
    stdin: TextIO,
    stdout: TextIO,
    save_replay_to: str | Path | None = None,
    *,
    actions: list[int] | None = None,
    state: Game | None = None,
) -> int:
    """The interactive game: ``seat`` reads its decisions from ``stdin``; bots play the other seats. With
    ``save_replay_to``, the game so far is written as a replay file however the loop ends (also on Ctrl-C).

    The game starts from ``Game.new(config, seed)`` followed by ``actions`` (a replay continued), or from
    ``state`` (a saved position: then the saves write the state, there being no history to replay)."""
    from policies import load

    base = state.clone() if state is not None else None

    def rebuild(history: list[int]) -> Game:
        """The game is its start and its actions (used by undo)."""
        if base is None:
            return replay(config, seed, list(history))
        g = base.clone()
        for a in history:
            g.apply(a)
        return g

    game = rebuild([])
    history: list[int] = []  # every action of the game (since the loaded state), in order: the replay
    deciders: list[int] = []  # who took each of them
    for a in actions or []:
        who = game.current_player
        assert who is not None
        deciders.append(who)
        game.apply(a)
        history.append(a)

    def out(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    def save(path: str | Path) -> None:
        if base is None:
            save_replay(path, game, seed, history)
            out(f"replay saved to {path} ({len(history)} actions; 'balance-control replay {path}' shows it)")
        else:
            Path(path).write_text(json.dumps(game.to_dict()) + "\n", encoding="utf-8")
            out(f"state saved to {path} ('balance-control play --load {path}' continues it)")

    bots: dict[int, Any] = {}
    others = [q for q in range(game.num_players) if q != seat]
    for q, name in zip(others, opponents):
        bots[q] = load(name, seed=seed * 100 + q, config=config)
    hinter: Any = None
    where = f"{config.name}, seed {seed}" if base is None else f"{config.name} from a saved state (round {game.round})"
    if history:
        where += f", continued after {len(history)} actions"
    out(f"{where}: you are P{seat}; " + ", ".join(f"P{q} {bots[q].name}" for q in others))
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
                history.append(action)
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
            if not is_terminal(stdin):
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
                out(f"undo: back to your decision before {game.action_to_string(history[back])!r} ...")
                del history[back:], deciders[back:]
                game = rebuild(history)
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
            history.append(choice)
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
