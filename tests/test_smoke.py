"""Quick end-to-end checks of the public API on every core preset."""

import json

import pytest

from bc_env.rules import Game, IllegalActionError, RulesConfig

PRESETS = ["core-2p", "core-3p", "core-4p", "core-5p", "core-6p", "core-4p-variants", "core-4p-hex"]


@pytest.mark.parametrize("preset", PRESETS)
def test_random_game_reaches_the_end_and_round_trips(preset):
    game = Game.new(RulesConfig.preset(preset), seed=11)
    step = 0
    while not game.is_terminal():
        legal = game.legal_actions()
        assert legal, "no legal action before the end"
        game.apply(legal[(step * 7919) % len(legal)])
        step += 1
    assert game.current_player is None
    assert game.winners()
    assert abs(sum(game.returns())) < 1e-9
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.to_dict() == game.to_dict()


def test_illegal_action_leaves_state_unchanged():
    game = Game.new("core-4p", seed=1)
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(game.layout.pass_)
    with pytest.raises(IllegalActionError, match="integer"):
        game.apply("place-tile 7,6")
    assert game.to_dict() == before
