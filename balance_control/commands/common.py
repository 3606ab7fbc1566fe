"""What several commands share: the rules configuration, bot lists and the result line."""

from __future__ import annotations

from argparse import ArgumentParser
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
    unknown = [
        n
        for n in names
        if n not in available()
        and not n.startswith(("mcts:", "endgame:", "cmd:"))
        and not Path(n).with_suffix(".npz").is_file()
    ]
    if unknown:
        raise fail(
            f"unknown bot {unknown[0]!r}; available bots: {', '.join(available())}, "
            "the search bots with options (mcts:sims=400:prior=expert, endgame:nodes=300:base=expert), "
            "an outside program speaking the stdio protocol (cmd:PROGRAM ARGS), "
            "or the path of an exported policy (.npz + .json)"
        )
    for name in dict.fromkeys(n for n in names if n.startswith("mcts:")):
        from bc_env.rules import BalanceControlError
        from policies import load

        try:
            load(name, seed=0)
        except BalanceControlError as exc:
            raise fail(f"bot {name!r}: {exc}") from None
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


def describe_os_error(exc: OSError) -> str:
    """``No such file or directory: 'x.json'`` rather than ``[Errno 2] ...``."""
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename!r}" if exc.filename is not None else reason


#: What each non-resort tile code of the text board means (``TileSpec.code``); a code missing here is explained
#: by its tile's name (tests/test_cli_people.py checks every code that any preset's catalogue can print).
TILE_CODES = {
    "SC": "Start Committee",
    "Co": "Committee",
    "Gr": "Grassroots",
    "Lo": "Lobbyist",
    "Ho": "Hotspot (not yet resolved)",
    "LM": "Labor Market (EXP-01)",
    "IP": "Investment Program (EXP-01)",
    "IO": "Inner Order (EXP-02)",
    "AA": "Authority Apparatus (EXP-02)",
    "TD": "Transformationsdruck, the Hotspot that may hold CountdownMarkers (EXP-03; resolved: h*)",
    "Sy": "System tile",
}


def legend_text(config: RulesConfig | None = None) -> str:
    """What the codes of the text board (``game.render()``) mean: of ``config``'s tiles, or of every preset's."""
    from bc_env.rules.components import RESORT, build_catalogue

    configs = [config] if config is not None else [RulesConfig.preset(name) for name in preset_names()]
    names: dict[str, str] = {}  # code -> tile name, non-resort tiles
    resorts: dict[str, str] = {}  # code letter -> resort, resorts that have tiles
    example = ""
    for cfg in configs:
        for spec in build_catalogue(cfg):
            if spec.kind == RESORT:
                resorts.setdefault(spec.code[0], cfg.resorts[spec.resort])
                example = example or f"{spec.code} = {spec.name}"
            else:
                names.setdefault(spec.code, spec.name)
    lines = [
        "Board legend (the text board of play, watch, show and replay)",
        "  A cell shows a two-letter tile code followed by the tile's controller: a seat digit (0 = P0) or",
        "  '-' when nobody controls it (the Start Committee shows no controller).",
        f"  Resort tiles: the resort's first letter and the printed value, e.g. {example};",
        f"    resorts: {', '.join(f'{letter} {resort}' for letter, resort in resorts.items())}.",
    ]
    lines += [f"  {code}   {TILE_CODES.get(code, names[code])}" for code in names]
    lines += [
        "  h*   a resolved Hotspot",
        "  ..   a cell where the drawn tile may be placed (only while you place a tile)",
        "  Example: D52 = DOM-W5 controlled by P2; h*- = a resolved Hotspot nobody controls; Lo- = a Lobbyist",
        "  nobody controls.",
        "  Coordinates: the numbers above the board are x, those on the left y; actions write a cell x,y",
        "  (place-tile 7,6). Hex tables: each row is drawn half a cell right of the row above, so a cell touches",
        "  two cells of the row above, two of the row below and its left and right neighbours; the x labels",
        "  fit the top row.",
        "  Below the board: Influence per seat on every tile that has some; then one line per seat: Influence",
        "  in supply, on the Board (the victory count) and the cap, and resources per resort; '*' marks the seat",
        "  to decide.",
    ]
    return "\n".join(lines)


def add_legend_argument(parser: ArgumentParser) -> None:
    parser.add_argument("--legend", action="store_true", help="explain the codes of the text board")


def print_legend(game: Game | None = None) -> None:
    print(legend_text(game.config if game is not None else None))
