"""docs/state.schema.json, the machine-readable JSON Schema of ``Game.to_dict()``, agrees with the engine.

* Every sampled state of random games of every preset validates (plain random games, and for the expansions
  games in which every player starts rich and prefers the expansions' actions, so that Regulations, transfers,
  replacements and the like occur), and so does a paused Round Settlement (the production tax, RULINGS R28).
* The schema refuses malformed states (a wrong type, an unknown phase, key, frame or effect).
* The schema's enumerations are the engine's: the decision kinds, the stack frames, the Measure effects with
  their data keys, the timings, the event types, the rules options, the top-level fields; and
  docs/state-schema.md names every decision kind and frame.
"""

from __future__ import annotations

import ast
import copy
import json
import random
import re
from dataclasses import fields
from functools import cache
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from bc_env.rules import Game, RulesConfig, StateError, effects  # noqa: E402
from bc_env.rules.config import preset_names  # noqa: E402
from bc_env.rules.decisions import FRAME_TYPES, PHASE_NAMES, Resolution  # noqa: E402
from bc_env.rules.expansions import exp02  # noqa: E402
from bc_env.rules.state import TOP_KEYS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "docs" / "state.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
#: Verbs of the core game's routine actions; the other verbs are the expansions' (preferred in the rich games).
ROUTINE = frozenset(("place-tile", "place", "move-from", "move-to", "pass", "formalize", "convert"))


def errors(state: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(state)]


def assert_valid(state: dict) -> None:
    found = errors(state)
    assert not found, f"phase {state.get('phase')!r}: {found[:3]}"


def decision_kinds() -> set[str]:
    """Every name ``phase`` can hold: the core and EXP-01 decisions (PHASE_NAMES) and the kinds of the expansions'
    decision frames (their ``kind``, a Resolution's ``pay_kind``, the modes of EXP-02's RegulationChoice)."""
    Game.new("all-4p", seed=0)  # every expansion registered
    kinds = set(PHASE_NAMES) | set(exp02._KINDS)
    for cls in FRAME_TYPES.values():
        kinds |= class_defaults(cls, ("kind", "pay_kind"))
    kinds |= class_defaults(Resolution, ("pay_kind",))
    return kinds


def class_defaults(cls: type, names: tuple[str, ...]) -> set[str]:
    """The string values a frame class gives the attributes ``names`` by default, each from the nearest class of
    its MRO that assigns it (as ``getattr`` would). Read from the source: the compiled build's class attributes
    are descriptors, not the defaults."""
    found: set[str] = set()
    for name in names:
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] != "bc_env":
                continue
            assigned = _class_assignments(klass.__module__, klass.__name__)
            if name in assigned:
                if isinstance(assigned[name], str):
                    found.add(assigned[name])
                break
    return found


@cache
def _class_assignments(module: str, name: str) -> dict[str, object]:
    """The annotated constants ``attr: T = value`` in the body of class ``name`` of the engine module ``module``."""
    tree = _module_tree(module)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    constants = (s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.value, ast.Constant))
    return {s.target.id: s.value.value for s in constants if isinstance(s.target, ast.Name)}


@cache
def _module_tree(module: str) -> ast.Module:
    return ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))


def rich(config: RulesConfig, seed: int, amount: int = 6) -> Game:
    """A new game in which every player holds ``amount`` Resources of every resort (taken from the Bank)."""
    state = Game.new(config, seed).to_dict()
    for player in state["players"]:
        for r in player["resources"]:
            player["resources"][r] += amount
            state["bank"][r] -= amount
    return Game.from_dict(state)


def play_and_validate(game: Game, seed: int, every: int, prefer_expansions: bool) -> set[str]:
    """Play ``game`` to the end by random legal actions; validate every ``every``-th state, every state of an
    expansion's decision, and the final state. Returns the phases validated."""
    rng = random.Random(seed)
    seen: set[str] = set()
    step = 0
    while not game.is_terminal():
        phase = game.phase_name
        if step % every == 0 or phase not in PHASE_NAMES or phase not in seen:
            state = game.to_dict()
            # the log only grows: its events are validated once, in the final state
            assert_valid({**state, "events": state["events"][-3:]})
            seen.add(phase)
        legal = game.legal_actions()
        rare = [a for a in legal if game.layout.decode(a).verb not in ROUTINE] if prefer_expansions else []
        game.apply(rng.choice(rare if rare and rng.random() < 0.8 else legal))
        step += 1
    state = game.to_dict()
    assert_valid(state)
    assert json.loads(json.dumps(state)) == state
    return seen | {"over"}


@pytest.mark.parametrize("preset", preset_names())
def test_random_games_of_every_preset_validate(preset):
    phases = play_and_validate(Game.new(preset, seed=1), seed=1, every=40, prefer_expansions=False)
    assert {"place_tile", "political", "over"} <= phases


#: Games of the expansion presets played rich (EXP-02 with the production tax on, RULINGS R28): (preset, seed) and
#: the decisions of EXP-02/03 each reaches; together they reach every one.
RICH = {
    ("exp0203-4p", 5): {"inner-order", "regulation-place", "regulation-pick", "regulation-move-to", "transfer"},
    ("exp0203-4p", 4): {"replacement"},
    ("exp0102-4p", 2): {"regulation-pay"},
    ("all-4p", 4): {"production-tax"},
}


def test_the_rich_games_reach_every_expansion_decision():
    assert set().union(*RICH.values()) == decision_kinds() - set(PHASE_NAMES)


@pytest.mark.parametrize(("preset", "seed"), sorted(RICH))
def test_rich_expansion_games_validate_in_every_decision(preset, seed):
    config = RulesConfig.preset(preset)
    if config.exp02:
        config = config.replace(cost_regulations_tax_production=True)
    phases = play_and_validate(rich(config, seed), seed, every=40, prefer_expansions=True)
    assert RICH[preset, seed] <= phases, sorted(phases)


def test_a_paused_round_settlement_validates():
    """The production tax pauses the Round Settlement (frames settlement, after-settlement in the stack)."""
    from exp02_support import Scenario02

    sc = Scenario02(RulesConfig(players=4, exp02=True, cost_regulations_tax_production=True))
    sc.put("8,7", "Committee")
    sc.put("7,8", "DOM-W3", influence=[0, 0, 1, 0])
    sc.reg("7,8", "administration")
    sc.at(player=3, turns_in_round=3)
    game = sc.game()
    game.apply(game.string_to_action("place 8,7"))  # the round's last Political Action: the Round Settlement
    state = game.to_dict()
    assert state["phase"] == "production-tax" and state["pending"] is None
    assert [f["frame"] for f in state["stack"]] == ["after-settlement", "settlement", "production-tax"]
    assert_valid(state)


# ---------------------------------------------------------------------------- the schema refuses malformed states


@pytest.fixture(scope="module")
def sample() -> dict:
    """A mid-game state of all-4p with Measures in hands and an effect in force."""
    game = rich(RulesConfig.preset("all-4p"), seed=2)
    rng = random.Random(2)
    while not (game.active_effects and game.phase_name == "political"):
        legal = game.legal_actions()
        rare = [a for a in legal if game.layout.decode(a).verb not in ROUTINE]
        game.apply(rng.choice(rare or legal))
    state = game.to_dict()
    assert_valid(state)
    return state


def _set(path: str, value):
    def edit(state: dict) -> None:
        *parents, last = path.split(".")
        node = state
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


def _delete(path: str):
    def edit(state: dict) -> None:
        *parents, last = path.split(".")
        node = state
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[last]

    return edit


MALFORMED = {
    "round as a string": _set("round", "1"),
    "round 0": _set("round", 0),
    "a boolean turn": _set("turn", True),
    "unknown phase": _set("phase", "trade"),
    "phase in another spelling": _set("phase", "place-tile"),
    "unknown top-level key": _set("rounds", 3),
    "no events": _delete("events"),
    "wrong schema name": _set("schema", "balance-control"),
    "version 2": _set("version", 2),
    "short rng": _set("rng", "0x12"),
    "cell in another notation": _set("board.0.cell", "7;7"),
    "negative Influence": _set("board.0.influence", [-1, 0, 0, 0]),
    "unknown player key": _set("players.0.score", 3),
    "unknown resort": _set("noise.GOLD", 0),
    "negative noise": _set("noise.DOM", -1),
    "pending in phase political": _set("pending", {"kind": "move", "from": "7,7"}),
    "unknown effect id": _set("active_effects.0.id", "EXP-01-M11"),
    "unknown timing": _set("active_effects.0.until", "forever"),
    "a card key in a hand that names no card": _set("measures.hands.0", ["EXP-01-M12"]),
    "three cards in a hand": _set("measures.hands.0", ["EXP-01-M01", "EXP-01-M02", "EXP-01-M03"]),
    "unknown Regulation type": _set("regulations.attached", {"8,7": {"roadblock": 1}}),
    "zero Regulations listed": _set("regulations.attached", {"8,7": {"control": 0}}),
    "unknown event type": _set("events.0.type", "earthquake"),
    "event without rule": _delete("events.0.rule"),
    "no countdown with EXP-03": _delete("countdown"),
    "unknown rules option": _set("config.house_rule", True),
    "even table size": _set("config.table_size", 14),
    "an expansion frame without stack": _set("phase", "inner-order"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_the_schema_refuses_malformed_states(sample, name):
    state = copy.deepcopy(sample)
    MALFORMED[name](state)
    assert errors(state), f"the schema accepted a state with {name}"


def test_the_schema_refuses_malformed_frames_and_effect_data(sample):
    state = copy.deepcopy(sample)
    state["phase"], state["pending"] = "inner-order", None
    state["stack"] = [{"frame": "regulation", "owner": 0, "mode": "inner-order", "rule": "EXP-02-02-G-04",
                       "type": None, "tile": "8,7"}]  # fmt: skip
    assert_valid(state)  # the shape is right (from_dict checks the rest)
    for bad in ({"mode": "vote"}, {"frame": "lobbying"}, {"owner": "P0"}, {"extra": 1}):
        broken = copy.deepcopy(state)
        broken["stack"][0].update(bad)
        assert errors(broken), bad
    broken = copy.deepcopy(sample)
    effect = broken["active_effects"][0]
    effect["data"]["colour"] = 1  # a key no effect has
    assert errors(broken)
    key = next(k for k, h in effects.MODIFIERS.items() if "cell" not in h.data_keys and k.startswith("EXP-0"))
    broken["active_effects"][0] = {"id": key, "owner": 0, "until": "end_of_round", "from_round": 1,
                                   "data": {"cell": 112}}  # fmt: skip
    assert errors(broken), f"{key} has no data key 'cell'"


# ------------------------------------------------------------ the schema and the docs agree with the engine


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_phase_enum_is_every_decision_kind_and_the_docs_name_each():
    kinds = decision_kinds()
    assert set(SCHEMA["$defs"]["phase"]["enum"]) == kinds
    assert len(kinds) == 16  # 8 of the core game and EXP-01, 8 of EXP-02 and EXP-03
    docs = (ROOT / "docs" / "state-schema.md").read_text(encoding="utf-8")
    missing = sorted(k for k in kinds if f"`{k}`" not in docs)
    assert not missing, f"docs/state-schema.md does not name the phase(s) {missing}"
    actions = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    missing = sorted(k for k in kinds if f"`{k}`" not in actions)
    assert not missing, f"docs/actions.md does not name the decision(s) {missing}"


def test_the_frame_shapes_are_the_engines_frames_and_the_docs_name_each():
    frames = {variant["properties"]["frame"]["const"] for variant in SCHEMA["$defs"]["frame"]["oneOf"]}
    assert frames == set(FRAME_TYPES)
    docs = (ROOT / "docs" / "state-schema.md").read_text(encoding="utf-8")
    missing = sorted(f for f in frames if f"`{f}`" not in docs)
    assert not missing, f"docs/state-schema.md does not describe the frame(s) {missing}"


def test_the_effect_ids_data_keys_and_timings_are_the_engines():
    Game.new("all-4p", seed=0)
    cards = {k: h for k, h in effects.MODIFIERS.items() if re.fullmatch(r"EXP-0[1-3]-M\d\d", k)}
    effect = SCHEMA["$defs"]["activeEffect"]
    assert set(effect["properties"]["id"]["enum"]) == set(cards)
    assert effect["properties"]["until"]["enum"] == list(effects.ALL_TIMINGS)
    allowed = {
        rule["if"]["properties"]["id"]["const"]: set(rule["then"]["properties"]["data"]["propertyNames"]["enum"])
        for rule in effect["allOf"]
    }
    assert allowed == {k: set(h.data_keys) for k, h in cards.items()}
    every_key = set().union(*allowed.values())
    assert set(effect["properties"]["data"]["properties"]) == every_key
    docs = (ROOT / "docs" / "state-schema.md").read_text(encoding="utf-8")
    section = docs.split("### `active_effects[i]`")[1].split("\n### ")[0]
    missing = sorted(k for k in every_key | set(effects.ALL_TIMINGS) if f"`{k}`" not in section)
    assert not missing, f"the active_effects section of docs/state-schema.md lacks {missing}"


def test_the_event_types_config_options_and_top_level_fields_are_the_engines():
    from test_docs import _logged_events

    assert set(SCHEMA["$defs"]["event"]["properties"]["type"]["enum"]) == set(_logged_events())
    assert set(SCHEMA["$defs"]["config"]["properties"]) == {f.name for f in fields(RulesConfig)}
    expansion_keys = {st.key for st in Game.new("all-4p", seed=0).ext.values() if st.key}
    assert expansion_keys == {"measures", "regulations", "countdown"}
    with pytest.raises(StateError, match="allowed: ") as refused:  # from_dict names every key it reads
        Game.from_dict(Game.new("all-4p", seed=0).to_dict() | {"unknown-key": 0})
    readable = set(str(refused.value).split("allowed: ")[1].split(", "))
    assert set(SCHEMA["properties"]) == readable
    assert set(SCHEMA["required"]) == set(TOP_KEYS) and set(TOP_KEYS) | {"stack"} | expansion_keys <= readable


def test_protocol_and_state_schema_docs_link_the_schema():
    for name in ("protocol.md", "state-schema.md"):
        assert "(state.schema.json)" in (ROOT / "docs" / name).read_text(encoding="utf-8"), name
