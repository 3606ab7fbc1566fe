"""Env strictness (issue 13): SingleAgentEnv.step takes integers only and raises on ids outside the action space
as the AEC env does; options are checked; opponents may be bot names or paths as on the command line."""

from __future__ import annotations

import numpy as np
import pytest

import bc_env
import policies
from bc_env.env import ActionOutOfBoundsError, SingleAgentEnv
from bc_env.env.errors import EnvOptionError
from bc_env.rules import BalanceControlError
from policies import PolicyConfigError, UnknownPolicyError


def _env(**kw):
    env = SingleAgentEnv("core-2p", learner_seat=0, **kw)
    env.reset(seed=3)
    return env


def _legal(env) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize(
    "make_bad",
    [
        lambda a: a + 0.9,  # a float next to a legal id
        lambda a: float(a),
        lambda a: str(a),
        lambda a: np.float32(a),
        lambda a: True,
        lambda a: np.bool_(True),
        lambda a: None,
        lambda a: [a],
        lambda a: np.array([a]),
        lambda a: float("inf"),
        lambda a: float("nan"),
        lambda a: complex(a),
    ],
)
def test_step_accepts_integers_only(make_bad):
    env = _env()
    before = env.game.to_dict()
    with pytest.raises(ActionOutOfBoundsError, match="not in the action space"):
        env.step(make_bad(_legal(env)))
    assert env.game.to_dict() == before, "nothing changed"
    assert not env._done


@pytest.mark.parametrize("bad", [-1, 1357, 10**6, np.int64(-5), 2**70])
def test_step_raises_on_ids_outside_the_action_space_like_the_aec_env(bad):
    env = _env(illegal_action="terminate")
    with pytest.raises(ActionOutOfBoundsError, match=r"Discrete\(1357\)"):
        env.step(bad)
    aec = bc_env.env("core-2p")
    aec.reset(seed=3)
    with pytest.raises(ActionOutOfBoundsError, match=r"Discrete\(1357\)"):
        aec.step(bad)


@pytest.mark.parametrize("make", [int, np.int64, np.int32, np.uint16, lambda a: np.array(a)])
def test_step_takes_python_and_numpy_integers(make):
    env = _env()
    before = env.game.to_dict()
    env.step(make(_legal(env)))
    assert env.game.to_dict() != before
    # An in-range illegal action still ends the episode with illegal_reward (not an out-of-bounds error).
    env = _env(illegal_reward=-3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(make(illegal))
    assert terminated and reward == -3.0 and info == {"illegal_action": illegal}


def test_the_aec_env_refuses_bools():
    aec = bc_env.env("core-2p")
    aec.reset(seed=0)
    with pytest.raises(ActionOutOfBoundsError):
        aec.step(True)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), "1", None, True, [1]])
@pytest.mark.parametrize("make", [SingleAgentEnv, bc_env.env])
def test_illegal_reward_must_be_a_finite_number(make, value):
    with pytest.raises(EnvOptionError, match="illegal_reward must be a finite number"):
        make("core-2p", illegal_reward=value)


@pytest.mark.parametrize("value", [-2, np.float32(-0.5), 0, 3])
def test_illegal_reward_takes_numbers(value):
    assert SingleAgentEnv("core-2p", illegal_reward=value).illegal_reward == float(value)


@pytest.mark.parametrize("value", [True, False, 2, -1, 1.0, "0", None, "first"])
def test_learner_seat_must_be_a_seat(value):
    with pytest.raises(EnvOptionError, match="learner_seat"):
        SingleAgentEnv("core-2p", learner_seat=value)


def test_learner_seat_takes_numpy_integers():
    env = SingleAgentEnv("core-3p", learner_seat=np.int64(2))
    assert env.reset(seed=0)[1]["learner_seat"] == 2


@pytest.mark.parametrize("value", [0, -5, 3, 129, 2000, 32.0, "32", True, None])
@pytest.mark.parametrize("make", [SingleAgentEnv, bc_env.env])
def test_cell_px_is_bounded(make, value):
    with pytest.raises(EnvOptionError, match="cell_px"):
        make("core-2p", cell_px=value)


def test_cell_px_is_bounded_by_the_frame_size_on_a_large_table():
    from bc_env.rules import RulesConfig

    big = RulesConfig.preset("core-2p").replace(name="big", table_size=41)
    with pytest.raises(EnvOptionError, match="over 4096 pixels"):
        SingleAgentEnv(big, cell_px=128)
    assert SingleAgentEnv(big, cell_px=64).cell_px == 64


def test_option_errors_are_the_projects():
    assert issubclass(EnvOptionError, BalanceControlError)
    with pytest.raises(BalanceControlError, match="obs_format"):
        SingleAgentEnv("core-2p", obs_format=["flat"])
    with pytest.raises(BalanceControlError, match="reward_scheme"):
        bc_env.env("core-2p", reward_scheme=None)


# ---------------------------------------------------------------------------- opponents are objects
def test_opponents_by_name_are_refused_with_what_to_pass_instead():
    """The environment does not import the bots (issue 31): a name is an error that says to use policies.load,
    and nothing of the env is made."""
    for spec in ("heuristic", ["random", policies.load("heuristic", seed=0)], [object(), object()]):
        with pytest.raises(EnvOptionError, match=r"opponents must be .*policies\.load\('heuristic'"):
            SingleAgentEnv("core-3p", opponents=spec, learner_seat=0)
    env = SingleAgentEnv("core-2p", opponents=lambda: "random", learner_seat=0)  # checked when it is called
    with pytest.raises(EnvOptionError, match="opponents"):
        env.reset(seed=0)


def test_bots_from_policies_load_play_like_the_cli():
    env = SingleAgentEnv("core-3p", opponents=policies.load("heuristic", seed=0), learner_seat=0)
    env.reset(seed=1)
    assert all(p.name == "heuristic" for q, p in enumerate(env._seats) if q != 0)
    bots = [policies.load("random", seed=0), policies.load("heuristic", seed=0)]
    mixed = SingleAgentEnv("core-3p", opponents=bots, learner_seat=0)
    mixed.reset(seed=1)
    assert [mixed._seats[1].name, mixed._seats[2].name] == ["random", "heuristic"]


def test_fresh_seeded_bots_per_episode_replay_with_the_seed():
    def episode(env):
        obs, _ = env.reset(seed=5)
        trail = []
        done = False
        while not done:
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, _, done, _, _ = env.step(action)
            trail.append(env.game.to_dict()["round"])
        return env.game.returns(), len(trail)

    def fresh():
        return policies.load("random", seed=3)

    a = episode(SingleAgentEnv("core-2p", opponents=fresh, learner_seat=0))
    env = SingleAgentEnv("core-2p", opponents=fresh, learner_seat=0)
    assert episode(env) == a and episode(env) == a  # the same episode again after a seeded reset


def test_a_trained_bot_by_name_and_by_path_through_policies_load():
    env = SingleAgentEnv("core-2p", opponents=policies.load("ppo-core-2p", config="core-2p"), learner_seat=1)
    env.reset(seed=0)
    assert env._seats[0].name == "ppo-core-2p"
    path = str(policies.BOTS_DIR / "ppo-core-2p")
    env = SingleAgentEnv("core-2p", opponents=[policies.load(path, config="core-2p")], learner_seat=0)
    env.reset(seed=0)
    assert env._seats[1].name == "ppo-core-2p"
    with pytest.raises(UnknownPolicyError, match="alphazero"):
        policies.load("alphazero")
    with pytest.raises(PolicyConfigError, match="core-2p.*core-4p"):
        policies.load("ppo-core-2p", config="core-4p")
