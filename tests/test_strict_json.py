"""Every JSON document the project reads from outside goes through one strict reader (bc_env.rules.jsonread.
strict_loads): non-finite numbers, lone surrogates and repeated keys are refused with an error naming the field, at
every surface that reads a file (states, replays, rules files) and in Game.from_dict's free-form event values
(issue 30, causes 1 and 2)."""

from __future__ import annotations

import copy
import json
import math

import pytest

from balance_control.cli import main
from bc_env.rules import ConfigError, Game, RulesConfig, StateError, load_replay, record
from bc_env.rules.jsonread import check_data, strict_loads
from bc_env.rules.replay import read_json_file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": [1, NaN]}', r"state\.a\[1\]: NaN is not a JSON number"),
        ('{"a": {"b": Infinity}}', r"state\.a\.b: Infinity is not a JSON number"),
        ('{"a": -Infinity}', r"state\.a: -Infinity is not a JSON number"),
        ('{"a": {"b": 1e400}}', r"state\.a\.b: 1e400 is out of the range of a double"),
        ('{"a": -1E+999}', r"state\.a: -1E\+999 is out of the range"),
        ('{"id": "\\ud800"}', r"state\.id: the string '\\ud800' holds a lone surrogate"),
        ('{"x": ["ok", "a\\udfff"]}', r"state\.x\[1\]: the string 'a\\udfff' holds a lone surrogate"),
        ('{"x": {"\\udc00": 1}}', r"state\.x: the key '\\udc00' holds a lone surrogate"),
        ('{"a": 1, "b": {"c": 1, "c": 2}}', r"state\.b: the key 'c' appears twice"),
        ("{", r"state: not valid JSON"),
        ("[" * 100_000, r"state: JSON nested too deeply"),
        ("9" * 5000, r"state: not a readable JSON document"),
    ],
)
def test_strict_loads_refuses_and_names_the_field(text, message):
    with pytest.raises(StateError, match=message):
        strict_loads(text, "state")
    with pytest.raises(StateError, match=message):
        strict_loads(text.encode("utf-8"), "state")


def test_strict_loads_reads_plain_json_as_json_does():
    text = '{"a": [1, 2.5, -0.0, 1e308, "\\u00e9\\ud83d\\ude00", "\\\\ud800", null, true], "b": {}}'
    assert strict_loads(text) == json.loads(text)
    assert strict_loads(text)["a"][4] == "é😀"  # a surrogate pair is one character, not a lone surrogate
    with pytest.raises(StateError, match="not UTF-8 text"):
        strict_loads(b'{"a": "\xff"}')
    with pytest.raises(StateError, match="byte order mark"):
        strict_loads(b"\xef\xbb\xbf{}")
    with pytest.raises(StateError, match="lone surrogate"):
        strict_loads('{"a": "\ud800"}')  # a str that already holds one (a caller's text)


def test_check_data_names_values_python_handed_over():
    check_data({"a": [1, 2.5, "é"]}, "x")
    with pytest.raises(StateError, match=r"x\.a\[1\]: inf is not a JSON number"):
        check_data({"a": [1, math.inf]}, "x")
    with pytest.raises(StateError, match=r"x\.a: the string '\\udc80' holds"):
        check_data({"a": "\udc80"}, "x")


def _state() -> dict:
    game = Game.new("core-2p", 1)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    return game.to_dict()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (math.nan, "nan is not a JSON number"),
        (math.inf, "inf is not a JSON number"),
        ("\ud800", r"the string '\\ud800' is not Unicode text"),
    ],
)
def test_from_dict_refuses_non_finite_or_non_text_event_values(value, message):
    state = _state()
    bad = copy.deepcopy(state)
    bad["events"][2]["extra"] = [1, {"v": value}]
    with pytest.raises(StateError, match=rf"state\.events\[2\]\.extra\[1\]\.v: {message}"):
        Game.from_dict(bad)
    bad = copy.deepcopy(state)
    bad["events"][2][value if isinstance(value, str) else "ok"] = 1
    if isinstance(value, str):
        with pytest.raises(StateError, match=r"state\.events\[2\]: the key '\\ud800' is not Unicode text"):
            Game.from_dict(bad)


def test_state_and_replay_files_are_read_strictly(tmp_path):
    state = _state()
    text = json.dumps(state).replace('{"schema"', '{"x": NaN, "schema"', 1)
    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateError, match=r"s\.json: state\.x: NaN is not a JSON number"):
        read_json_file(path, "state")

    game = Game.new("core-2p", 2)
    actions = []
    for _ in range(4):
        actions.append(game.legal_actions()[0])
        game.apply(actions[-1])
    doc = record(game, 2, actions)
    replay = tmp_path / "r.json"
    replay.write_text(json.dumps(doc).replace('"seed": 2', '"seed": 2e400'), encoding="utf-8")
    with pytest.raises(StateError, match=r"r\.json: replay\.seed: 2e400 is out of the range"):
        load_replay(replay)
    replay.write_text(json.dumps(doc).replace('"format"', '"format": "x", "format"', 1), encoding="utf-8")
    with pytest.raises(StateError, match="the key 'format' appears twice"):
        load_replay(replay)


@pytest.mark.parametrize(
    ("args", "content", "suffix"),
    [
        (["show"], '{"schema": "balance-control-state", "x": Infinity}', ".json"),
        (["show"], '{"schema": "balance-control-state", "x": "\\ud800"}', ".json"),
        (["watch", "--config"], '{"players": 2, "name": "\\ud800"}', ".json"),
        (["match", "--games", "1", "--config"], '{"players": 2, "name": "bad\\udfff"}', ".json"),
        (["watch", "--config"], "players = 2\nname = 'x'\n[grassroots]\nratio = nan\n", ".toml"),
    ],
)
def test_the_commands_refuse_such_files_with_one_line(tmp_path, capsys, args, content, suffix):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content, encoding="utf-8")
    try:
        status = main([*args, str(path)])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status not in (0, None), err
    assert "Traceback" not in err
    assert any(s in (err + str(status)) for s in ("surrogate", "not a JSON number", "out of the range", "nan"))


def test_rules_files_refuse_non_finite_numbers_and_non_text(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"players": 2, "countdown_supply": 1e999}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"r\.json: rules\.countdown_supply: 1e999 is out of the range"):
        RulesConfig.load(path)
    toml = tmp_path / "r.toml"
    toml.write_text("players = 2\ncountdown_supply = inf\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"r\.toml: rules\.countdown_supply: inf is not a JSON number"):
        RulesConfig.load(toml)
    with pytest.raises(ConfigError, match=r"name holds a lone surrogate \('\\ud800'\)"):
        RulesConfig(players=2, name="\ud800")
    with pytest.raises(ConfigError, match="grassroots_texts"):
        RulesConfig.from_dict({"players": 2, "grassroots_texts": [{"text": "a\udfffb"}]})
