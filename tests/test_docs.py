"""The documentation runs and agrees with the engine.

* Every ```python block of README.md and docs/*.md runs; the blocks of one file share a namespace and run in
  order, like a notebook (a block marked ``<!-- doc-test: skip (reason) -->`` is skipped: none needs it yet).
* Every action string example in docs/actions.md (```actions blocks and inline code that starts with an
  action verb) parses with ``string_to_action`` and round-trips through ``action_to_string``.
* The layout table, the event table and the state fields in the docs match the engine's code.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from bc_env.rules import Game, IllegalActionError, RulesConfig, StateError, effects
from bc_env.rules.decisions import PHASE_NAMES
from bc_env.rules.expansions import exp01

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VERBS = ("place-tile", "place", "move-from", "move-to", "formalize", "convert", "pay", "gain", "pass")
#: The verbs that exist only with an expansion: the Measure blocks (TakeMeasure, PlayMeasure, targets), EXP-01's
#: Investment Program exchange, EXP-02's Regulation blocks (one type, ``control``, has an example), EXP-03's resort
#: target, and ``decline``.
EXPANSION_VERBS = ("take", "play", "target", "target-player", "exchange", "decline", "place-regulation",
                   "move-regulation", "remove-regulation", "control", "target-resort")  # fmt: skip
#: Grammar templates such as `place-tile x,y`, `pay r`: a verb and lower-case placeholders only.
PLACEHOLDER_RE = re.compile(r"^\S+ [a-z,]+$")
ACTION_RE = re.compile(
    r"^(?:(?:place-tile|place|move-from|move-to|formalize|convert|target) \S+|(?:pay|gain|exchange) \S+"
    r"|(?:security-level|control|administration|blockade) \S+|target-resort \S+"
    r"|(?:take|play) EXP-\d{2}-M\d{2}|target-player P\d+|pass|decline|(?:place|move|remove)-regulation)$"
)


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def table(text: str, header_start: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def code_spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def action_examples() -> list[str]:
    text = read("docs/actions.md")
    found = []
    for block in fenced(text, "actions"):
        found += [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    spans = [span for span in re.findall(r"`([^`\n]+)`", text) if ACTION_RE.match(span)]
    found += [span for span in spans if not PLACEHOLDER_RE.match(span)]
    return list(dict.fromkeys(found))


# ---------------------------------------------------------------------------- runnable examples


#: The mark that keeps the ```python block right below it from running, with the reason; the list stays short.
SKIP_MARK = re.compile(r"^<!-- doc-test: skip \((.+)\) -->\n```python\n", re.M)
#: Every Markdown file whose ```python blocks run (README.md and docs/*.md, found, not listed).
MARKDOWN = ["README.md"] + sorted(f"docs/{p.name}" for p in DOCS.glob("*.md"))
WITH_PYTHON = [name for name in MARKDOWN if fenced(read(name), "python")]


@pytest.mark.parametrize("name", WITH_PYTHON)
def test_python_examples_run(name, capsys, monkeypatch, tmp_path):
    """Every ```python block of README.md and docs/*.md runs, in order, in one namespace per file and in a fresh
    working directory (files the examples write, e.g. ``out/``, land there). A block marked
    ``<!-- doc-test: skip (reason) -->`` right above its fence is skipped."""
    text = read(name)
    skipped = {m.end() for m in SKIP_MARK.finditer(text)}
    blocks = [(m.start(1) in skipped, m.group(1)) for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"doc:{name}"}
    for i, (skip, block) in enumerate(blocks):
        if not skip:
            exec(compile(block, f"{name} python block {i + 1}", "exec"), namespace)  # noqa: S102


def test_every_markdown_file_with_python_is_run_and_skips_are_few():
    assert {"README.md", "docs/policies.md", "docs/embedding.md", "docs/environment.md"} <= set(WITH_PYTHON)
    reasons = [m.group(1) for name in MARKDOWN for m in SKIP_MARK.finditer(read(name))]
    assert len(reasons) <= 3, reasons


# ---------------------------------------------------------------------------- action strings


def test_action_examples_are_found():
    examples = action_examples()
    assert len(examples) >= 25
    assert {e.split()[0] for e in examples} == set(VERBS + EXPANSION_VERBS), "every verb has an example"


def _core_string(text: str) -> bool:
    return text.split()[0] not in EXPANSION_VERBS and not any(r in text for r in ("ECO", "SEC", "CLM"))


@pytest.mark.parametrize("text", action_examples())
def test_action_example_parses_and_round_trips(text):
    """Core examples on core-4p and on all-4p (whose layout has every verb); the expansions' examples on all-4p."""
    presets = ["core-4p", "all-4p"] if _core_string(text) else ["all-4p"]
    for preset in presets:
        game = Game.new(preset, seed=0)
        action = game.string_to_action(text)
        assert 0 <= action < game.num_actions
        assert game.action_to_string(action) == text
    if not _core_string(text):
        with pytest.raises(IllegalActionError, match="cannot parse"):
            Game.new("core-4p", seed=0).string_to_action(text)  # the Measure blocks exist only with an expansion


@pytest.mark.parametrize("preset", ["core-4p", "exp01-2p", "exp01-v1.3-4p", "exp01-6p"])
def test_every_action_round_trips_on_the_square_table(preset):
    game = Game.new(preset, seed=0)
    strings = [game.action_to_string(a) for a in range(game.num_actions)]
    assert len(set(strings)) == game.num_actions
    assert [game.string_to_action(s) for s in strings] == list(range(game.num_actions))


def test_every_action_round_trips_on_the_hex_table_also_off_the_table():
    game = Game.new("core-4p-hex", seed=0)
    n = game.layout.n
    strings = [game.action_to_string(a) for a in range(game.num_actions)]
    assert len(set(strings)) == game.num_actions
    assert [game.string_to_action(s) for s in strings] == list(range(game.num_actions))
    off = [a for a in range(6 * n) if not game.topo.on_table[a % n]]
    assert len(off) == 6 * (225 - 169)  # 56 grid cells per cell block lie off the hexagon (docs/actions.md)
    assert game.action_to_string(off[0]) == "place-tile 0,0" and game.string_to_action("place-tile 0,0") == 0


def test_off_table_hex_cells_parse_as_actions_but_are_never_legal():
    game = Game.new("core-4p-hex", seed=0)
    n = game.layout.n
    with pytest.raises(IllegalActionError, match=r"'place-tile 0,0'\) is not legal in decision 'place_tile'"):
        game.apply(game.string_to_action("place-tile 0,0"))
    with pytest.raises(IllegalActionError, match="'place 15,0': cell 15,0 is outside the 15x15 grid"):
        game.string_to_action("place 15,0")  # only cells outside the grid fail to parse
    # The state reader still uses the topology's own parser, which refuses a cell off the table.
    with pytest.raises(ValueError, match="not on the hex table"):
        game.topo.parse("0,0")
    state = game.to_dict()
    state["board"][0]["cell"] = "0,0"
    with pytest.raises(StateError, match=r"board\[0\]\.cell: cell '0,0' is not on the hex table"):
        Game.from_dict(state)
    # A whole random game never offers an off-table cell.
    rng = random.Random(0)
    while not game.is_terminal():
        legal = game.legal_actions()
        assert all(a >= 6 * n or game.topo.on_table[a % n] for a in legal)
        game.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(
    "text", ["PASS", "place 7;6", "place 15,0", "place -1,3", "pay ECO", "move-to 7", "move-to 1,2,3", "place-tile", ""]
)
def test_malformed_strings_are_rejected(text):
    with pytest.raises(IllegalActionError, match="cannot parse"):
        Game.new("core-4p", seed=0).string_to_action(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("take EXP-01-M11", "card must be one of EXP-01-M01, "),
        ("play M02", "card must be one of"),
        ("target-player P4", "player must be P0..P3"),
        ("target-player 1", "player must be P0..P3"),
        ("target 15,0", "outside the 15x15 grid"),
        ("exchange XYZ", "resort must be one of DOM, FOR, INF, ECO"),
        ("decline now", "unknown verb 'decline'"),
        ("take", "expected '<verb> <argument>'"),
    ],
)
def test_malformed_measure_strings_are_rejected(text, message):
    with pytest.raises(IllegalActionError, match=f"cannot parse.*{re.escape(message)}"):
        Game.new("exp01-4p", seed=0).string_to_action(text)


# ---------------------------------------------------------------------------- docs agree with the engine


def test_actions_md_layout_table_matches_the_engine():
    game = Game.new("core-4p", seed=0)
    lay = game.layout
    rows = table(read("docs/actions.md"), "| block | first | last |")
    got = {row[0]: (int(row[1]), int(row[2])) for row in rows}
    n = lay.n
    expected = {name: (k * n, k * n + n - 1) for k, name in enumerate(VERBS[:6])}
    expected["pass"] = (lay.pass_, lay.pass_)
    expected["pay DOM, FOR, INF"] = (lay.pay, lay.gain - 1)
    expected["gain DOM, FOR, INF"] = (lay.gain, lay.num_actions - 1)
    assert got == expected
    assert lay.num_actions == 1357 and "6·225 + 1 + 2·3 = 1357" in read("docs/actions.md")


def test_actions_md_layout_table_for_exp01_4p_matches_the_engine():
    """The Measure blocks follow the core blocks (RULINGS R20, R21); EXP-01 adds ECO (EXP-01-00-03)."""
    game = Game.new("exp01-4p", seed=0)
    lay = game.layout
    rows = table(read("docs/actions.md"), "| block (exp01-4p) | first | last |")
    got = {row[0]: (int(row[1]), int(row[2])) for row in rows}
    n = lay.n
    expected = {name: (k * n, k * n + n - 1) for k, name in enumerate(VERBS[:6])}
    expected["pass"] = (lay.pass_, lay.pass_)
    expected["pay DOM, FOR, INF, ECO"] = (lay.pay, lay.gain - 1)
    expected["gain DOM, FOR, INF, ECO"] = (lay.gain, lay.take - 1)
    expected["take EXP-01-M01 .. M10"] = (lay.take, lay.play - 1)
    expected["play EXP-01-M01 .. M10"] = (lay.play, lay.target - 1)
    expected["target"] = (lay.target, lay.target_player - 1)
    expected["target-player P0 .. P3"] = (lay.target_player, lay.exchange - 1)
    expected["exchange DOM, FOR, INF, ECO"] = (lay.exchange, lay.decline - 1)
    expected["decline"] = (lay.decline, lay.num_actions - 1)
    assert got == expected
    assert lay.num_actions == 1613 and "7·225 + 2 + 3·4 + 2·10 + 4 = 1613" in read("docs/actions.md")


@pytest.mark.parametrize("preset", ["exp01-2p", "exp01-4p", "exp01-6p", "exp01-v1.3-4p"])
@pytest.mark.parametrize("size", [3, 15])
def test_actions_md_layout_formula_with_an_expansion(preset, size):
    config = RulesConfig.preset(preset).replace(table_size=size)
    game = Game.new(config, 0)
    n, r, c, p = size * size, 4, 10, config.players
    assert game.num_actions == 6 * n + 1 + 2 * r + 2 * c + n + p + r + 1 == 7 * n + 2 + 3 * r + 2 * c + p
    assert game.layout.take == 6 * n + 1 + 2 * r


def test_actions_md_layout_formula_holds_for_other_tables():
    for size in (3, 9, 15, 21):
        config = RulesConfig.preset("core-2p").replace(table_size=size)
        assert Game.new(config, 0).num_actions == 6 * size * size + 1 + 2 * 3


def _logged_events() -> dict[str, tuple[set[str], set[str]]]:
    """Event type -> (literal rule IDs, field names) of every ``log(type, rule, key=value, ...)`` and
    ``event(type, rule, "key", value, ...)`` call in the engine."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for path in sorted((ROOT / "bc_env" / "rules").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("log", "event")
            ):
                continue
            if len(node.args) < 2 or not isinstance(node.args[0], ast.Constant):
                continue
            rules, fields = out.setdefault(node.args[0].value, (set(), set()))
            rule = node.args[1]
            for part in (rule.body, rule.orelse) if isinstance(rule, ast.IfExp) else (rule,):
                if isinstance(part, ast.Constant):
                    rules.add(part.value)
            fields.update(kw.arg for kw in node.keywords if kw.arg)
            if node.func.attr == "event":  # the data as key, value, key, value, ...
                fields.update(str(a.value) for a in node.args[2::2] if isinstance(a, ast.Constant))
    return out


def test_state_schema_documents_every_event_type_with_its_rules_and_fields():
    logged = _logged_events()
    assert {"setup", "draw", "place-tile", "produce", "game-over"} <= set(logged)
    rows = {code_spans(row[0])[0]: row for row in table(read("docs/state-schema.md"), "| type | rule | fields |")}
    assert sorted(rows) == sorted(logged), "the event table lists exactly the event types the engine logs"
    for type_, (rules, fields) in logged.items():
        row = rows[type_]
        assert rules <= set(code_spans(row[1])), f"{type_}: rules {sorted(rules)} vs {row[1]}"
        assert fields <= set(code_spans(row[2])), f"{type_}: fields {sorted(fields)} vs {row[2]}"


def test_state_schema_lists_the_rules_that_logged_events_cite():
    """The rules of events whose rule is computed (not a literal in the ``log`` call), checked on real games:
    a random game per preset (EXP-01 games prefer Measure actions) and the setup of every player count with and
    without the handicap."""
    rows = {code_spans(row[0])[0]: row for row in table(read("docs/state-schema.md"), "| type | rule | fields |")}
    cited: dict[str, set[str]] = {}
    games = [Game.new(RulesConfig.preset(f"core-{n}p").replace(first_player_handicap=h), 3) for n in range(2, 7)
             for h in (False, True)]  # fmt: skip
    presets = ("core-2p", "core-4p-variants", "core-4p-hex", "core-6p", "exp01-2p", "exp01-4p", "exp01-v1.3-4p")
    for preset in presets:
        for seed in (3, 4, 5) if preset.startswith("exp01") else (3,):
            game, rng = Game.new(preset, seed), random.Random(seed)
            take = game.layout.take
            while not game.is_terminal():
                legal = game.legal_actions()
                measures = [a for a in legal if a >= take]  # TakeMeasure, PlayMeasure, targets, exchanges
                game.apply(rng.choice(measures if measures and rng.random() < 0.7 else legal))
            games.append(game)
    for game in games:
        for e in game.events:
            cited.setdefault(e["type"], set()).add(e["rule"])
    for type_, rules in cited.items():
        assert rules <= set(code_spans(rows[type_][1])), f"{type_}: cites {sorted(rules)}; documented {rows[type_][1]}"
    starting = {"CORE-01-03-04", "CORE-01-03-05", "CORE-01-03-06", "ADD56-01-02-01", "ADD56-01-02-02", "VAR-01-02-02"}
    assert cited["starting-influence"] == starting == set(code_spans(rows["starting-influence"][1]))
    assert {"play-measure", "measure-effect", "measure-applied", "additional-action"} <= set(cited)
    assert {"EXP-01-06-09", "CORE-01-04-22"} <= cited["pay"]


def test_state_schema_lists_every_measure_effect_rule_of_both_editions():
    """measure-effect and measure-applied cite the card's effect rule, of the standalone text or of v1.3."""
    rows = {code_spans(row[0])[0]: row for row in table(read("docs/state-schema.md"), "| type | rule | fields |")}
    rules = {rule for spec in exp01.MEASURES for rule in spec.rules}
    assert len(rules) == 20
    assert rules <= set(code_spans(rows["measure-effect"][1]))
    assert rules <= set(code_spans(rows["measure-applied"][1]))


def test_state_schema_documents_every_field():
    game = Game.new("core-4p", seed=0)
    state = game.to_dict()
    text = read("docs/state-schema.md")

    def documented(header: str) -> set[str]:
        return {code_spans(row[0])[0] for row in table(text, header)}

    # The top-level table lists the core fields, the expansions' own (`measures` with any expansion, `regulations`
    # with EXP-02, `countdown` with EXP-03), and `stack`, which exists only while frames are paused below the
    # pending decision.
    expansion_keys = {"measures", "regulations", "countdown"}
    assert expansion_keys <= set(Game.new("all-4p", seed=0).to_dict())
    assert documented("| field | type | meaning |") == set(state) | expansion_keys | {"stack", "set_aside"}
    assert "measures" not in state and "measures" in Game.new("exp01-4p", seed=0).to_dict()
    assert documented("| field | type | default | meaning |") >= set(state["config"]) - {"exp01", "exp02", "exp03"}
    board_fields = {"cell", "tile", "influence", "resolved"}
    assert {k for entry in state["board"] for k in entry} <= board_fields
    board_rows = [t for t in text.split("### ") if t.startswith("`board[i]`")][0]
    assert {code_spans(row[0])[0] for row in table(board_rows, "| field |")} == board_fields
    player_rows = [t for t in text.split("### ") if t.startswith("`players[p]`")][0]
    assert {code_spans(row[0])[0] for row in table(player_rows, "| field |")} == set(state["players"][0])


def test_state_schema_documents_the_measures_and_the_active_effects():
    """EXP-01-02-15/16: the Measure zones, hands and counters; the fields of an active effect."""
    text = read("docs/state-schema.md")
    section = [t for t in text.split("### ") if t.startswith("`measures`")][0]
    measures = Game.new("exp01-v1.3-4p", seed=0).to_dict()["measures"]
    assert {code_spans(row[0])[0] for row in table(section, "| field | type | meaning |")} == set(measures)
    deck_rows = table(section, "| `decks[deck]` field | type | meaning |")
    assert {code_spans(row[0])[0] for row in deck_rows} == set(measures["decks"]["EXP-01"])
    effects_section = [t for t in text.split("### ") if t.startswith("`active_effects[i]`")][0]
    rows = table(effects_section, "| field | meaning |")
    assert {code_spans(row[0])[0] for row in rows} == {"id", "owner", "until", "from_round", "data"}
    until = next(row for row in rows if code_spans(row[0])[0] == "until")
    assert set(effects.TIMINGS) <= set(code_spans(until[1]))
    data = next(row for row in rows if code_spans(row[0])[0] == "data")
    assert {"cell", "target", "player", "turn", "used"} <= set(code_spans(data[1]))
    phase = next(row for row in table(text, "| field | type | meaning |") if code_spans(row[0]) == ["phase"])
    assert set(PHASE_NAMES) <= set(code_spans(phase[2]))


def test_action_strings_are_canonical_and_decode_names_the_block():
    """parse accepts exactly what to_string writes; decode names an action's block (engine-redesign issue)."""
    lay = Game.new("exp01-4p", seed=0).layout
    bad_strings = ["place  7,6", " place 7,6", "place 7,6 ", "place 07,6", "place +7,6", "place 7,\u0666"]
    bad_strings += ["place\u00a07,6", "target-player P\u00b2", "target-player P01", "pay DOM ", "decline now"]
    for text in bad_strings:
        with pytest.raises(IllegalActionError, match="cannot parse"):
            lay.parse(text)
    assert lay.decode(lay.parse("formalize 6,7")) == ("formalize", 7 * 15 + 6, -1, -1, -1)
    assert lay.decode(lay.parse("pay ECO")).resort == 3
    assert lay.decode(lay.parse("play EXP-01-M03")).card == 2
    assert lay.decode(lay.parse("target-player P3")).player == 3
    assert lay.decode(lay.decline).verb == "decline"
    assert [b.name for b in lay.blocks][-6:] == ["take", "play", "target", "target-player", "exchange", "decline"]
    for bad in (True, 1.0, "5", None):
        with pytest.raises(IllegalActionError, match="must be an integer"):
            lay.to_string(bad)
    game = Game.new("core-2p", seed=0)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        game.apply(True)
