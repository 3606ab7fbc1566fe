"""The single-agent Gymnasium wrapper for sb3-contrib MaskablePPO: checkers, seat rotation,
opponents, terminal reward delivery (RULINGS R9), masks under SubprocVecEnv, a short training run."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from checkers import GYMNASIUM_NO_SPEC, SB3_PLANES_NOT_AN_IMAGE, strict_warnings
from gymnasium.utils.env_checker import check_env as gym_check_env

from bc_env.env.single_agent import ModelOpponent, SingleAgentEnv
from bc_env.rules import IllegalActionError

torch = pytest.importorskip("torch")
sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")


class FirstLegal:
    """A deterministic opponent that records every decision it makes."""

    name = "first-legal"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, game):
        self.calls += 1
        return game.legal_actions()[0]


def _random_learner(env: SingleAgentEnv, seed: int):
    rng = np.random.default_rng(seed)

    def pick() -> int:
        return int(rng.choice(np.flatnonzero(env.action_masks())))

    return pick


# ---------------------------------------------------------------------------- checkers


@pytest.mark.parametrize("obs_format", ["flat", "planes"])
def test_gymnasium_and_sb3_env_checkers(obs_format):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with strict_warnings(*GYMNASIUM_NO_SPEC, *SB3_PLANES_NOT_AN_IMAGE):
        gym_check_env(SingleAgentEnv("core-2p", obs_format=obs_format))
        sb3_check_env(SingleAgentEnv("core-3p", obs_format=obs_format))


@pytest.mark.parametrize(("preset", "obs_format"), [("exp01-4p", "flat"), ("exp01-v1.3-4p", "planes")])
def test_EXP_01_gymnasium_and_sb3_env_checkers(preset, obs_format):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with strict_warnings(*GYMNASIUM_NO_SPEC, *SB3_PLANES_NOT_AN_IMAGE):
        gym_check_env(SingleAgentEnv(preset, obs_format=obs_format))
        sb3_check_env(SingleAgentEnv(preset, obs_format=obs_format))


# ---------------------------------------------------------------------------- episodes


def test_learner_sees_only_its_own_decisions_and_masks_are_its_legal_actions():
    env = SingleAgentEnv("core-3p", opponents=FirstLegal())
    obs, info = env.reset(seed=5)
    seat = info["learner_seat"]
    pick = _random_learner(env, 5)
    steps = 0
    while True:
        game = env.game
        assert game.current_player == env.seat == seat
        assert np.array_equal(env.action_masks(), game.legal_action_mask())
        v = env.encoder.views(obs)
        assert v["to_act"].tolist() == [1.0, 0.0, 0.0], "seat-relative: the learner is player 0"
        obs, reward, terminated, truncated, info = env.step(pick())
        steps += 1
        assert not truncated
        if terminated:
            break
        assert reward == 0.0
    assert env.game.is_terminal()
    assert reward == pytest.approx(env.game.returns()[env.seat])
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert steps > 20


@pytest.mark.parametrize("preset", ["exp01-2p", "exp01-v1.3-4p"])
def test_EXP_01_learner_decides_measures_and_targets_with_its_own_masks(preset):
    """The learner owns every decision it sees (RULINGS R23), also the new ones (a Measure's target, the v1.3
    additional Political Action, EXP-01-06-05 (v1.3)), and its mask is the engine's legal actions."""
    env = SingleAgentEnv(preset, learner_seat=1)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    take = env.game.layout.take
    phases = set()
    terminated = False
    while not terminated:
        game = env.game
        assert game.current_player == 1
        mask = env.action_masks()
        assert np.array_equal(mask, game.legal_action_mask())
        assert env.encoder.views(obs)["to_act"][0] == 1.0
        phases.add(game.phase_name + ("+additional" if game.ext["measures"].extra else ""))
        if game.ext["measures"].extra:
            assert env.encoder.views(obs)["additional_action"][0] == 1.0
        legal = np.flatnonzero(mask)
        pref = legal[legal >= take]
        choice = pref if len(pref) and rng.random() < 0.7 else legal
        obs, reward, terminated, _t, _i = env.step(int(rng.choice(choice)))
    assert env.game.is_terminal() and reward == pytest.approx(env.game.returns()[1])
    assert "political" in phases and "target" in phases
    assert ("political+additional" in phases) == (preset == "exp01-v1.3-4p")


def test_seats_rotate_between_episodes_and_restart_with_a_seed():
    env = SingleAgentEnv("core-3p")
    seats = [env.reset(seed=1 if k == 0 else None)[1]["learner_seat"] for k in range(7)]
    assert seats == [0, 1, 2, 0, 1, 2, 0]
    assert env.reset(seed=8)[1]["learner_seat"] == 0
    fixed = SingleAgentEnv("core-3p", learner_seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(4)} == {2}
    rnd = SingleAgentEnv("core-3p", learner_seat="random")
    rnd.reset(seed=0)
    assert {rnd.reset()[1]["learner_seat"] for _ in range(30)} == {0, 1, 2}
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("core-3p", learner_seat=3)


def test_seeded_episodes_are_reproducible():
    def run() -> list[np.ndarray]:
        env = SingleAgentEnv("core-2p")
        obs, _ = env.reset(seed=42)
        pick = _random_learner(env, 1)
        out = [obs]
        terminated = False
        while not terminated:
            obs, _r, terminated, _t, _i = env.step(pick())
            out.append(obs)
        return out

    a, b = run(), run()
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_RULINGS_R9_terminal_reward_is_delivered_when_an_opponent_ends_the_game():
    """The game ends when the next player must draw from an empty DrawPile (R8); when the opponent's
    Political Action is the last decision, the learner's last step still returns its reward."""
    found = decided = 0
    for seed in range(60):
        opponent = FirstLegal()
        env = SingleAgentEnv("core-2p", opponents=opponent, learner_seat=0)
        env.reset(seed=seed)
        pick = _random_learner(env, seed)
        terminated = False
        while not terminated:
            before = opponent.calls
            _obs, reward, terminated, _t, info = env.step(pick())
        if opponent.calls > before:  # the opponent decided after the learner's last action
            found += 1
            decided += env.game.returns()[0] != 0
            assert reward == pytest.approx(env.game.returns()[0])
            assert info["winners"] == env.game.winners() and info["rewards"][0] == reward
            assert info["is_success"] == (0 in env.game.winners() and len(env.game.winners()) < 2)
        if found >= 3 and decided:
            break
    assert found >= 3 and decided, "cases where an opponent ends a game the learner did not draw"


def test_margin_reward_scheme():
    env = SingleAgentEnv("core-2p", reward_scheme="margin", learner_seat=1)
    env.reset(seed=3)
    pick = _random_learner(env, 3)
    terminated = False
    while not terminated:
        _obs, reward, terminated, _t, _i = env.step(pick())
    board = env.game.on_board
    assert reward == pytest.approx((board[1] - board[0]) / 7)


def test_illegal_learner_action_terminates_or_raises():
    env = SingleAgentEnv("core-2p")
    env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    strict = SingleAgentEnv("core-2p", illegal_action="raise")
    strict.reset(seed=2)
    before = strict.game.to_dict()
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step(illegal)
    assert strict.game.to_dict() == before


# ---------------------------------------------------------------------------- opponents


def test_opponents_as_list_callable_and_model():
    a, b = FirstLegal(), FirstLegal()
    env = SingleAgentEnv("core-3p", opponents=[a, b], learner_seat=0)
    env.reset(seed=1)
    pick = _random_learner(env, 1)
    for _ in range(10):
        env.step(pick())
    assert a.calls > 0 and b.calls > 0

    made = []

    def factory():
        made.append(FirstLegal())
        return made[-1]

    env = SingleAgentEnv("core-2p", opponents=factory)
    env.reset(seed=1)
    env.reset()
    assert len(made) == 2, "the callable is asked once per episode"

    class FakeModel:
        def __init__(self) -> None:
            self.masks = []

        def predict(self, obs, action_masks=None, deterministic=False):
            assert obs.shape == (env.encoder.size_total,)
            self.masks.append(action_masks)
            return np.int64(np.flatnonzero(action_masks)[-1]), None

    model = FakeModel()
    env = SingleAgentEnv("core-2p", opponents=ModelOpponent(model, "core-2p"), learner_seat=0)
    env.reset(seed=4)
    env.step(_random_learner(env, 4)())
    while env.game.current_player != 0:
        env.step(_random_learner(env, 4)())
    assert model.masks and all(m.dtype == bool and m.any() for m in model.masks)

    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("core-3p", opponents=[FirstLegal()]).reset(seed=0)


def test_policies_package_opponents_work():
    import policies

    env = SingleAgentEnv("core-2p", opponents=policies.load("random", seed=0))
    env.reset(seed=0)
    pick = _random_learner(env, 0)
    terminated = False
    while not terminated:
        _obs, _r, terminated, _t, _i = env.step(pick())
    assert env.game.is_terminal()


# ---------------------------------------------------------------------------- SB3 integration


def test_action_masks_through_subproc_vec_env():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([functools.partial(SingleAgentEnv, "core-2p") for _ in range(2)])
    try:
        vec.seed(3)
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, vec.action_space.n) and masks.dtype == bool
        assert masks.any(axis=1).all()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        vec.step(actions)
        assert get_action_masks(vec).any(axis=1).all()
    finally:
        vec.close()


def test_maskable_ppo_trains_for_a_few_thousand_steps():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor

    torch.set_num_threads(1)
    env = Monitor(SingleAgentEnv("core-2p"), info_keywords=("is_success",))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=2,
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    assert len(env.get_episode_rewards()) > 0, "whole games were played"
    inner = env.unwrapped
    obs, _ = inner.reset(seed=0)
    action, _ = model.predict(obs, action_masks=inner.action_masks(), deterministic=True)
    assert inner.action_masks()[int(action)], "the trained policy respects the mask"
