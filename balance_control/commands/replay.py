"""``balance-control replay``: replay a replay file, or one game of a tournament log, and print the final position.

``--to N`` prints the position after the first N actions instead. ``--step`` steps through the game from the
start (or from ``--to N``), reading keys from stdin: Enter (or n) shows the next action and the board after it,
b goes back one action, a number goes to the position after that many actions, q (or the end of the input) quits.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from bc_env.rules import Game, RulesConfig, load_replay
from bc_env.rules.errors import BalanceControlError
from bc_env.rules.replay import read_json_file

from ..terminal import clear_screen, is_terminal
from .common import add_legend_argument, fail, print_legend

NAME = "replay"
HELP = "replay a replay file (or game N of a tournament log): the final position, --to N, or --step through it"

STEP_HELP = "Enter or n: next action, b: back one, a number: go to that position, q: quit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a replay file, or a tournament log (JSON lines) with --game")
    parser.add_argument("--game", type=int, default=None, help="the index of the game in a tournament log")
    parser.add_argument("--to", type=int, default=None, metavar="N", help="show the position after N actions")
    parser.add_argument("--step", action="store_true", help=f"step through the game ({STEP_HELP})")
    add_legend_argument(parser)


def _document(args: argparse.Namespace) -> dict[str, Any]:
    """The replay document of the file (or of game ``--game`` of a tournament log), checked by replaying it."""
    if args.game is not None:
        from benchmarking.tournament import read_log

        try:
            log = read_log(args.file)
            rec = log.games.get(args.game)
            if rec is None:
                raise fail(f"{args.file} has no finished game {args.game} ({len(log.games)} games logged)")
            load_replay(rec["replay"])
        except BalanceControlError as exc:
            raise fail(str(exc)) from None
        print(f"game {args.game}: {rec['config']}, seed {rec['seed']}, seats {', '.join(rec['seats'])}")
        return dict(rec["replay"])
    if str(args.file).endswith(".jsonl"):  # a tournament log given without --game
        try:
            load_replay(args.file)
        except (ValueError, OSError) as exc:  # BalanceControlError, or a file that is not one JSON document
            raise fail(f"{exc} (a tournament log? pick a game with --game N)") from None
    else:
        load_replay(args.file)  # every problem with the file is named here, with the file's name
    return dict(read_json_file(args.file, "replay"))


class Timeline:
    """The positions of a replayed game, position ``k`` being the one after its first ``k`` actions (computed on
    demand and kept, so stepping back costs nothing)."""

    def __init__(self, doc: dict[str, Any]) -> None:
        game = Game.new(RulesConfig.from_dict(doc["config"]), doc["seed"])
        self.actions: list[int] = []
        for action in doc["actions"]:  # already checked by load_replay
            a = game.string_to_action(action) if isinstance(action, str) else int(action)
            self.actions.append(a)
            game.apply(a)
        self._positions: list[Game] = [Game.new(game.config, doc["seed"])]
        self.seed = int(doc["seed"])

    def __len__(self) -> int:
        return len(self.actions)

    def at(self, k: int) -> Game:
        while len(self._positions) <= k:
            game = self._positions[-1].clone()
            game.apply(self.actions[len(self._positions) - 1])
            self._positions.append(game)
        return self._positions[k]

    def describe(self, k: int) -> str:
        """What position ``k`` is: how far into the game, the action that led to it and who decides next."""
        game = self.at(k)
        parts = [f"after {k} of {len(self)} actions (round {game.round})"]
        if k > 0:
            before = self.at(k - 1)
            parts.append(
                f"last: P{before.current_player} [{before.phase_name}] {before.action_to_string(self.actions[k - 1])}"
            )
        if game.is_terminal():
            parts.append("the game is over")
        else:
            parts.append(f"next: P{game.current_player} ({game.phase_name})")
        return "; ".join(parts)


def run(args: argparse.Namespace) -> int:
    doc = _document(args)
    if args.to is None and not args.step:
        game = load_replay(doc)
        print(game.render())
        if args.legend:
            print_legend(game)
        return 0
    timeline = Timeline(doc)
    k = args.to if args.to is not None else 0
    if not 0 <= k <= len(timeline):
        raise fail(f"--to must be in 0..{len(timeline)} (the replay has {len(timeline)} actions), not {k}")
    if args.step:
        return step_loop(timeline, k, sys.stdin, sys.stdout, legend=args.legend)
    print(timeline.describe(k))
    print(timeline.at(k).render())
    if args.legend:
        print_legend(timeline.at(k))
    return 0


def step_loop(timeline: Timeline, k: int, stdin: TextIO, stdout: TextIO, *, legend: bool = False) -> int:
    """Show position ``k``, then move through the game by the keys read from ``stdin`` until q or end of input."""

    def out(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    terminal = is_terminal(stdout)
    echo = not is_terminal(stdin)
    if legend:
        print_legend(timeline.at(0))
    out(STEP_HELP)
    show, note = True, ""
    while True:
        if show:
            if terminal:
                clear_screen(stdout)
            else:
                out()
            out(timeline.describe(k))
            out(timeline.at(k).render())
            show = False
        if note:
            out(note)
            note = ""
        stdout.write(f"[{k}/{len(timeline)}]> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            out()
            return 0
        text = line.strip().lower()
        if echo:
            out(text)
        if text in ("q", "quit", "exit"):
            return 0
        if text in ("", "n", "next"):
            if k == len(timeline):
                note = f"this is the end of the game ({len(timeline)} actions); b goes back, q quits"
            else:
                k, show = k + 1, True
        elif text in ("b", "back", "p"):
            if k == 0:
                note = "this is the start of the game; Enter goes forward, q quits"
            else:
                k, show = k - 1, True
        elif text.isdigit() and int(text) <= len(timeline):
            k, show = int(text), True
        else:
            note = f"{text!r}: {STEP_HELP} (positions 0..{len(timeline)})"
