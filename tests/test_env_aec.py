"""The PettingZoo AEC environment balance_control_v0: PettingZoo's own tests on every preset, the
wrapper guarantees (order, bounds, illegal actions), decisions by the engine's current player
(RULINGS R23), seeding, terminal rewards (R9) and rendering."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from checkers import PETTINGZOO_DICT_OBSERVATION, strict_warnings
from pettingzoo.test import api_test, render_test, seed_test
from positions import not_legal_message

import bc_env
from bc_env.env import ActionOutOfBoundsError, raw_env
from bc_env.rules import Game, IllegalActionError, RulesConfig, preset_names
from bc_env.rules.config import PRESET_DIR

PRESETS = preset_names()  # the core presets and the EXP-01 presets (exp01-2p, -4p, -6p, -v1.3-4p)
EXP01_PRESETS = [p for p in PRESETS if p.startswith("exp01-")]


def _play_random(env, rng: random.Random, max_steps: int = 10_000) -> int:
    steps = 0
    for _agent in env.agent_iter(max_steps):
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
    return steps


# ---------------------------------------------------------------------------- PettingZoo's tests


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_test(preset):
    with strict_warnings(*PETTINGZOO_DICT_OBSERVATION):  # NaNs, all-zero masks, ... fail
        api_test(bc_env.env(preset), num_cycles=120)  # enough for a whole game


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_seed_test(preset):
    seed_test(lambda: bc_env.env(preset), num_cycles=120)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_render_test(preset, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):  # "human" draws the text board (no window)
        monkeypatch.delenv(name, raising=False)

    def make(render_mode=None):
        return bc_env.env(preset, render_mode=render_mode)

    render_test(make)


def test_pettingzoo_api_test_planes_format():
    with strict_warnings(*PETTINGZOO_DICT_OBSERVATION):
        api_test(bc_env.env("core-3p", obs_format="planes"), num_cycles=60)
    env = bc_env.env("core-3p", obs_format="planes")
    env.reset(seed=1)
    obs = env.observe("player_0")["observation"]
    enc = env.encoder
    assert obs["planes"].shape == (enc.num_channels, enc.size, enc.size)
    assert obs["vector"].shape == (enc.vector_size,)
    flat = enc.encode(env.game, 0)
    assert np.array_equal(np.concatenate([obs["planes"].ravel(), obs["vector"]]), flat)


# ---------------------------------------------------------------------------- construction


def test_metadata_agents_and_cached_spaces():
    env = bc_env.env("core-4p")
    assert env.metadata["name"] == "balance_control_v0"
    assert env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == Game.new("core-4p", 0).num_actions
        assert env.observation_space(agent)["action_mask"].dtype == np.int8
    assert env.observation_space("player_0") is not env.observation_space("player_1")


def test_config_by_preset_name_path_or_rules_config():
    by_name = bc_env.env("core-2p")
    by_path = bc_env.env(str(PRESET_DIR / "core-2p.toml"))
    by_config = bc_env.raw_env(RulesConfig.preset("core-2p"))
    assert by_name.config == by_path.config == by_config.config
    assert isinstance(by_config, raw_env)
    for env in (by_name, by_path, by_config):
        env.reset(seed=9)
    assert by_name.game.to_dict() == by_path.game.to_dict() == by_config.game.to_dict()


def test_bad_options_are_rejected_with_a_clear_message():
    with pytest.raises(ValueError, match="illegal_action"):
        bc_env.env("core-2p", illegal_action="ignore")
    with pytest.raises(ValueError, match="reward_scheme"):
        bc_env.env("core-2p", reward_scheme="elo")
    with pytest.raises(ValueError, match="obs_format"):
        bc_env.env("core-2p", obs_format="image")
    with pytest.raises(ValueError, match="render_mode"):
        bc_env.env("core-2p", render_mode="window")


def test_import_bc_env_rules_does_not_import_pettingzoo_or_gymnasium():
    code = (
        "import bc_env, bc_env.rules, sys; assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules;"
        "import bc_env.env.rewards; e = bc_env.env('core-2p'); r = bc_env.raw_env; print(type(e).__name__, r.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["raw_env", "raw_env"]  # bc_env.env stays callable after the package is imported


# ---------------------------------------------------------------------------- order enforcement


def test_order_enforcement_before_reset():
    env = bc_env.env("core-2p", render_mode="ansi")
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset"):
        env.render()
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")
    with pytest.raises(AssertionError, match="reset"):
        env.agent_iter()
    for name in ("agents", "rewards", "terminations", "truncations", "infos", "agent_selection"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)


def test_out_of_bounds_actions_raise_whatever_the_illegal_action_mode():
    for mode in ("terminate", "raise"):
        env = bc_env.env("core-2p", illegal_action=mode)
        env.reset(seed=1)
        n = env.action_space("player_0").n
        for bad in (-1, n, None, "pass", 1.5):
            with pytest.raises(ActionOutOfBoundsError, match="action space"):
                env.step(bad)
        assert not any(env.terminations.values())
    assert issubclass(ActionOutOfBoundsError, AssertionError) and issubclass(ActionOutOfBoundsError, IllegalActionError)


def test_numpy_integer_actions_are_accepted():
    env = bc_env.env("core-2p")
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    env.step(np.int32(np.flatnonzero(obs["action_mask"])[0]))
    assert env.game.phase_name == "political"


# ---------------------------------------------------------------------------- illegal actions


def _illegal_action(env) -> int:
    obs = env.observe(env.agent_selection)
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def test_illegal_action_terminates_the_game_with_a_penalty_by_default():
    env = bc_env.env("core-3p")
    env.reset(seed=2)
    offender = env.agent_selection
    before = env.game.to_dict()
    with strict_warnings():  # PettingZoo logs the illegal move (EnvLogger), it raises no warning
        env.step(_illegal_action(env))
    assert env.game.to_dict() == before, "an illegal action changes nothing in the game"
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.infos[offender]["illegal_action"] >= 0
    assert not any(env.observe(a)["action_mask"].any() for a in env.possible_agents), "no decision is left"
    seen = {}
    for agent in env.agent_iter():
        _obs, reward, terminated, _truncated, _info = env.last()
        assert terminated
        seen[agent] = reward
        env.step(None)  # the dead-step protocol removes each agent
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


def test_illegal_reward_is_configurable():
    env = bc_env.env("core-2p", illegal_reward=-5)
    env.reset(seed=2)
    offender = env.agent_selection
    with strict_warnings():  # PettingZoo logs the illegal move (EnvLogger), it raises no warning
        env.step(_illegal_action(env))
    assert env._cumulative_rewards[offender] == -5.0


def test_illegal_action_raise_mode_raises_the_engine_error_and_changes_nothing():
    env = bc_env.env("core-3p", illegal_action="raise")
    env.reset(seed=2)
    agent = env.agent_selection
    before = env.game.to_dict()
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(_illegal_action(env))
    assert env.game.to_dict() == before
    assert env.agent_selection == agent and not any(env.terminations.values())
    obs = env.observe(agent)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # the game goes on


# ---------------------------------------------------------------------------- decisions and masks


@pytest.mark.parametrize(
    "preset", ["core-2p", "core-4p-variants", "core-5p", "core-4p-hex", "exp01-4p", "exp01-v1.3-4p"]
)
def test_RULINGS_R23_agent_selection_is_the_engine_current_player_and_masks_match(preset):
    """The mask equals the engine's legal actions, only the deciding agent has one, and every
    masked action applies without error (checked on clones)."""
    env = bc_env.env(preset)
    env.reset(seed=21)
    rng = random.Random(21)
    repeats = 0
    previous = None
    while env.agents and not env.terminations[env.agent_selection]:
        game = env.game
        agent = env.agent_selection
        assert agent == f"player_{game.current_player}"
        for other in env.possible_agents:
            mask = env.observe(other)["action_mask"]
            if other == agent:
                assert mask.dtype == np.int8
                assert np.array_equal(mask.astype(bool), game.legal_action_mask())
            else:
                assert not mask.any(), "an agent that is not deciding has an all-zero mask"
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        for a in rng.sample(list(legal), min(len(legal), 4)):
            game.clone().apply(int(a))  # never raises
        repeats += agent == previous
        previous = agent
        env.step(int(legal[rng.randrange(len(legal))]))
    assert repeats > 0, "the same agent decides several times in a row (tile, then political action)"
    assert game.is_terminal()


@pytest.mark.parametrize("preset", EXP01_PRESETS)
def test_EXP_01_masks_offer_only_actions_the_engine_accepts(preset):
    """Measure-heavy random play through the env: every action in the mask applies on a clone of the game
    (take, play, target, target-player, exchange, decline, pay ...), sampled actions outside it are
    rejected and change nothing, and the agent to act is always the engine's current player."""
    env = bc_env.env(preset)
    env.reset(seed=5)
    rng = random.Random(5)
    take = env.game.layout.take
    phases, verbs = set(), set()
    while not env.terminations[env.agent_selection]:
        game = env.game
        agent = env.agent_selection
        assert agent == f"player_{game.current_player}"
        mask = env.observe(agent)["action_mask"].astype(bool)
        assert np.array_equal(mask, game.legal_action_mask())
        phases.add(game.phase_name)
        legal = np.flatnonzero(mask)
        for a in legal:
            game.clone().apply(int(a))  # never raises
            verbs.add(game.action_to_string(int(a)).split()[0])
        illegal = np.flatnonzero(~mask)
        before = game.to_dict()
        for a in rng.sample(list(illegal), 3):
            with pytest.raises(IllegalActionError, match=not_legal_message(game, int(a), game.phase_name)):
                game.apply(int(a))
        assert game.to_dict() == before
        pref = [a for a in legal if a >= take]
        choice = pref if pref and rng.random() < 0.7 else legal
        env.step(int(choice[rng.randrange(len(choice))]))
    assert env.game.is_terminal()
    assert {"take", "play"} <= verbs and "target" in phases


def test_seeded_reset_replays_the_engine_game_and_unseeded_resets_differ():
    env = bc_env.env("core-4p")
    env.reset(seed=7)
    assert env.game.to_dict() == Game.new("core-4p", 7).to_dict()
    first = env.game.to_dict()
    env.reset()
    second = env.game.to_dict()
    env.reset(seed=7)
    env.reset()
    assert env.game.to_dict() == second, "seed=None draws from the env's own RNG, seeded by the last seed"
    assert second != first
    a, b = bc_env.env("core-4p"), bc_env.env("core-4p")
    a.reset(seed=3)
    b.reset(seed=3)
    ra, rb = random.Random(0), random.Random(0)
    assert _play_random(a, ra) == _play_random(b, rb)
    assert a.game.to_dict() == b.game.to_dict()


def test_reset_from_a_saved_state():
    game = Game.new("core-2p", 5)
    for _ in range(10):
        game.apply(game.legal_actions()[-1])
    env = bc_env.env("core-2p")
    env.reset(options={"state": json.loads(json.dumps(game.to_dict()))})
    assert env.game.to_dict() == game.to_dict()
    assert env.agent_selection == f"player_{game.current_player}"
    with pytest.raises(ValueError, match="configuration"):
        bc_env.env("core-3p").reset(options={"state": game.to_dict()})


# ---------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("preset", ["core-2p", "core-3p", "core-6p"])
def test_RULINGS_R9_zero_sum_rewards_at_the_end(preset):
    env = bc_env.env(preset)
    env.reset(seed=11)
    rng = random.Random(11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            assert env.infos[agent]["winners"] == [f"player_{p}" for p in env.game.winners()]
            env.step(None)
            continue
        assert reward == 0.0, "no reward before the end"
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    returns = env.game.returns()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(returns)
    assert sum(returns) == pytest.approx(0.0)
    assert env.agents == []


def test_margin_reward_scheme():
    env = bc_env.env("core-3p", reward_scheme="margin")
    env.reset(seed=4)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = random.Random(4)
    for agent in env.agent_iter():
        obs, reward, terminated, _truncated, _info = env.last()
        totals[agent] += reward
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    board = env.game.on_board
    want = [(board[p] - max(board[q] for q in range(3) if q != p)) / 7 for p in range(3)]
    assert [totals[a] for a in env.possible_agents] == pytest.approx(want)
    winners = env.game.winners()
    assert all((totals[f"player_{p}"] >= 0) == (p in winners) for p in range(3))


def test_state_is_the_seat_0_encoding():
    env = bc_env.env("core-2p")
    env.reset(seed=1)
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])


# ---------------------------------------------------------------------------- rendering


def test_ansi_render_is_the_engine_text():
    env = bc_env.env("core-2p", render_mode="ansi")
    env.reset(seed=3)
    assert env.render() == env.game.render()


@pytest.mark.parametrize("preset", ["core-4p", "core-4p-hex"])
def test_rgb_render_draws_tiles_influence_and_control(preset):
    env = bc_env.env(preset, render_mode="rgb_array", cell_px=24)
    env.reset(seed=3)
    empty = env.render()
    assert empty.dtype == np.uint8 and empty.ndim == 3 and empty.shape[2] == 3
    _play_random(env, random.Random(3), max_steps=160)
    frame = env.render()
    assert frame.shape == empty.shape
    from bc_env.env.render import KIND_COLOURS, PLAYER_COLOURS, _geometry

    geo = _geometry(env.game.topo, 24)
    cx, cy = geo.centres[env.game.topo.centre]
    assert tuple(frame[int(cy), int(cx)]) == KIND_COLOURS[0], "the Start Committee is gold at the centre"
    controlled = [(c, env.game.controller(c)) for c in env.game.board if env.game.controller(c) >= 0]
    assert controlled, "some tile is controlled after 160 random decisions"
    for c, p in controlled:
        outline = frame.reshape(-1, 3)[geo.band_pixels[c]]
        assert (outline == PLAYER_COLOURS[p]).all(axis=1).mean() > 0.5
    has_dots = [p for p in range(env.game.num_players) if env.game.on_board[p] > 0]
    for p in has_dots:
        assert (frame.reshape(-1, 3) == PLAYER_COLOURS[p]).all(axis=1).any()


def test_EXP_01_rgb_render_shows_eco_tiles_labor_market_investment_program_effects_and_hands():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from exp01_support import M, Scenario

    from bc_env.env.render import CARD_COLOUR, PLAYER_COLOURS, RESORT_COLOURS, SPECIAL_COLOURS, _geometry

    sc = Scenario("exp01-4p", seed=0)
    sc.put("8,7", "ECO-W3", influence=[0, 2, 0, 0])
    sc.put("7,6", "Labor Market", resolved=False)
    sc.put("6,7", "Investment Program")
    sc.hand(0, M["M02"], M["M06"])
    sc.hand(2, M["M09"])
    sc.effect(M["M05"], 3, "end_of_settlement", from_round=1, cell=int(sc.topo.parse("8,7")))
    env = bc_env.env("exp01-4p", render_mode="rgb_array", cell_px=32)
    env.reset(options={"state": sc.data})
    frame = env.render()
    game = env.game
    geo = _geometry(game.topo, 32)

    def centre(label: str) -> tuple[int, int]:
        cx, cy = geo.centres[int(game.topo.parse(label))]
        return int(cy), int(cx)

    assert tuple(frame[centre("7,6")]) == SPECIAL_COLOURS["labor-market"]
    assert tuple(frame[centre("6,7")]) == SPECIAL_COLOURS["investment-program"]
    y, x = centre("8,7")
    eco = np.asarray(RESORT_COLOURS[3], dtype=np.float64)  # ECO-W3: the ECO colour, brightness by value
    assert tuple(frame[y - 8, x + 12]) == tuple(np.clip(eco * (0.55 + 0.33), 0, 255).astype(np.uint8).tolist())
    # Location Debate on (8,7): a square in its owner's colour (seat 3) in the lower left corner.
    assert tuple(frame[y + 5, x - 8]) == PLAYER_COLOURS[3]
    # The status bar: two cards for seat 0, one for seat 2, none for seats 1 and 3.
    bar = frame[geo.height :]
    slot = geo.width / 5
    cards = [
        int((bar[:, int(p * slot) : int((p + 1) * slot)] == CARD_COLOUR).all(axis=2).any(axis=0).sum())
        for p in range(4)
    ]
    assert cards[0] > cards[2] > 0 and cards[1] == cards[3] == 0
