"""Replays (docs/replays.md): a game is its config, its seed and its actions."""

from __future__ import annotations

import copy
import json
import random

import pytest

from balance_control.cli import main as cli_main
from bc_env.rules import (
    ConfigError,
    Game,
    IllegalActionError,
    RulesConfig,
    StateError,
    load_replay,
    record,
    replay,
    save_replay,
)


def random_game(config: RulesConfig | str, seed: int, limit: int | None = None) -> tuple[Game, list[int]]:
    """A game played by a seeded random policy (its own RNG), with the actions it took."""
    game = Game.new(config, seed)
    rng = random.Random(seed)
    actions: list[int] = []
    while not game.is_terminal() and (limit is None or len(actions) < limit):
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        actions.append(action)
        game.apply(action)
    return game, actions


@pytest.fixture(scope="module")
def finished() -> tuple[Game, list[int]]:
    return random_game("core-3p", 5)


@pytest.fixture
def doc(finished) -> dict:
    game, actions = finished
    return json.loads(json.dumps(record(game, 5, actions)))


@pytest.mark.parametrize("preset", ["core-2p", "core-4p-variants", "core-4p-hex", "core-6p"])
def test_replay_reproduces_the_game_from_ints_and_from_strings(preset):
    game, actions = random_game(preset, 21)
    config = RulesConfig.preset(preset)
    strings = [game.action_to_string(a) for a in actions]
    from_ints = replay(config, 21, actions)
    from_strings = replay(config, 21, strings)
    mixed = replay(preset, 21, [s if i % 2 else a for i, (a, s) in enumerate(zip(actions, strings))])
    expected = game.to_dict()
    assert from_ints.to_dict() == expected
    assert from_strings.to_dict() == expected
    assert mixed.to_dict() == expected
    assert from_strings.events == game.events
    assert from_strings.winners() == game.winners() and from_strings.returns() == game.returns()


def test_replay_of_an_unfinished_game_gives_the_position_after_the_last_action():
    game, actions = random_game("core-4p", 3, limit=40)
    assert not game.is_terminal()
    doc = record(game, 3, actions)
    assert "result" not in doc
    again = load_replay(json.loads(json.dumps(doc)))
    assert again.to_dict() == game.to_dict()
    assert again.legal_actions() == game.legal_actions()


def test_record_writes_the_documented_fields(finished, doc):
    game, actions = finished
    assert sorted(doc) == ["actions", "config", "digest", "format", "result", "seed", "version"]
    assert doc["format"] == "balance-control-replay" and doc["version"] == 1 and doc["seed"] == 5
    assert doc["config"] == game.config.to_dict()
    assert doc["actions"] == [game.action_to_string(a) for a in actions]
    assert doc["result"] == {"winners": game.winners(), "returns": game.returns()}


def test_save_and_load_round_trip_through_a_file(tmp_path, finished):
    game, actions = finished
    path = tmp_path / "game.json"
    save_replay(path, game, 5, actions)
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert on_disk == json.loads(json.dumps(record(game, 5, actions)))
    for source in (path, str(path)):
        again = load_replay(source)
        assert again.to_dict() == game.to_dict()


def test_a_custom_config_travels_in_full_with_the_replay(tmp_path):
    config = RulesConfig.preset("core-2p").replace(
        table_size=9, tile_recycling=True, bank_stock=12, action_tiles_require_control=True, name="custom-test"
    )
    game, actions = random_game(config, 4)
    path = tmp_path / "custom.json"
    save_replay(path, game, 4, actions)
    again = load_replay(path)
    assert again.config == config
    assert again.num_actions == 6 * 81 + 1 + 2 * 3
    assert again.to_dict() == game.to_dict()


def test_the_seed_is_part_of_the_replay(doc):
    doc["seed"] = 6
    with pytest.raises(IllegalActionError, match=r"replay action #\d+"):
        load_replay(doc)


def test_tampered_winners_are_rejected(finished, doc):
    game, _ = finished
    doc["result"]["winners"] = [p for p in range(3) if p not in game.winners()] or [0]
    with pytest.raises(StateError, match="result mismatch"):
        load_replay(doc)


def test_tampered_returns_are_rejected(finished, doc):
    game, _ = finished
    assert doc["result"]["returns"] == game.returns()
    doc["result"]["returns"] = [1.0, -0.5, -0.5]
    assert doc["result"]["returns"] != game.returns()
    with pytest.raises(StateError, match=r"result mismatch: recorded returns \[1\.0, -0\.5, -0\.5\]"):
        load_replay(doc)


def test_each_recorded_result_field_is_checked_on_its_own(finished, doc):
    game, _ = finished
    del doc["result"]["winners"]  # only the returns recorded: they are still compared
    assert load_replay(copy.deepcopy(doc)).returns() == game.returns()
    doc["result"]["returns"] = [0.0] * 3
    with pytest.raises(StateError, match="recorded returns"):
        load_replay(doc)


@pytest.mark.parametrize("result", [[0, 1], "winners", 3])
def test_a_result_that_is_not_an_object_is_rejected(doc, result):
    doc["result"] = result
    with pytest.raises(StateError, match=r"replay\.result must be an object"):
        load_replay(doc)


@pytest.mark.parametrize("seed", ["5", 5.0, True, None])
def test_a_seed_that_is_not_an_integer_is_rejected(doc, seed):
    doc["seed"] = seed
    with pytest.raises(StateError, match=r"replay\.seed must be an integer"):
        load_replay(doc)


def test_an_illegal_action_names_its_index_and_the_legal_options(doc):
    doc["actions"][3] = "pass"  # parses, but a Political Action is legal there (RULINGS R7)
    with pytest.raises(IllegalActionError, match=r"replay action #3 \('pass'\).*not legal.*legal: "):
        load_replay(doc)


def test_an_action_after_the_end_is_rejected(doc):
    doc["actions"].append("pass")
    with pytest.raises(IllegalActionError, match="game is over"):
        load_replay(doc)


@pytest.mark.parametrize("bad", [1357, -1, 2.5, None])
def test_a_bad_integer_action_is_rejected(doc, bad):
    doc["actions"][0] = bad
    with pytest.raises(IllegalActionError, match=r"replay action #0"):
        load_replay(doc)


def test_an_unparsable_action_string_is_rejected(doc):
    doc["actions"][3] = "bogus 1,1"
    with pytest.raises(IllegalActionError, match="cannot parse action 'bogus 1,1'"):
        load_replay(doc)


def test_an_unparsable_action_string_names_its_index(doc):
    doc["actions"][3] = "bogus 1,1"
    with pytest.raises(IllegalActionError, match=r"replay action #3 \('bogus 1,1'\): cannot parse action"):
        load_replay(doc)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="something-else"), "not a replay"),
        (lambda d: d.update(version=2), "unsupported replay version 2"),
        (lambda d: d.pop("actions"), r"replay\.actions is missing"),
        (lambda d: d.pop("seed"), r"replay\.seed is missing"),
        (lambda d: d.pop("config"), r"replay\.config is missing"),
        (lambda d: d.update(actions="place-tile 7,6"), r"replay\.actions must be a list"),
    ],
)
def test_a_malformed_document_is_rejected_with_a_state_error(doc, edit, message):
    edit(doc)
    with pytest.raises(StateError, match=message):
        load_replay(doc)


def test_a_bad_config_is_rejected_naming_the_option(doc):
    doc["config"]["players"] = 9
    with pytest.raises(ConfigError, match="players"):
        load_replay(doc)
    del doc["config"]["players"]
    doc["config"]["colour"] = "red"
    with pytest.raises(ConfigError, match="colour"):
        load_replay(doc)


def test_a_file_that_is_not_a_replay_is_rejected(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(Game.new("core-2p", 1).to_dict()), encoding="utf-8")
    with pytest.raises(StateError, match="not a replay"):
        load_replay(path)


def test_load_replay_does_not_change_the_document(doc):
    before = copy.deepcopy(doc)
    load_replay(doc)
    assert doc == before


def test_cli_replay_prints_the_final_position(tmp_path, capsys, finished):
    game, actions = finished
    path = tmp_path / "game.json"
    save_replay(path, game, 5, actions)
    assert cli_main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == game.render().strip()
    assert "game over" in out and "winners:" in out


def test_cli_replay_refuses_a_tampered_file(tmp_path, doc, capsys):
    doc["result"]["winners"] = [9]
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli_main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("balance-control: error: ") and err.count("\n") == 1
    assert "replay result mismatch" in err and str(path) in err


def test_an_edited_action_list_does_not_load_as_another_game(finished, doc):
    """The digest of the final position (docs/replays.md) catches an edit that keeps every action legal and the
    result unchanged (hardening issue: no silently different game)."""
    game, actions = finished
    edited = json.loads(json.dumps(doc))
    edited["actions"] = edited["actions"][:-2]  # an unfinished game: no result to compare, a different position
    del edited["result"]
    with pytest.raises(StateError, match="replay digest mismatch"):
        load_replay(edited)
    edited["digest"] = 5
    with pytest.raises(StateError, match="replay.digest must be a string"):
        load_replay(edited)
    del edited["digest"]  # files written before the digest still load
    assert load_replay(edited).turn < game.turn
