"""The batched self-play environment (bc_env.vector): the encoder's write-into-buffer path, a differential test
against the AEC environment on every preset (observations, masks, seats, rewards for the same seeds and actions),
determinism, bad input, and the Gymnasium learner view."""

from __future__ import annotations

import numpy as np
import pytest

from bc_env.encoding import Encoder
from bc_env.env import raw_env
from bc_env.env.errors import EnvOptionError
from bc_env.rules import Game, IllegalActionError, RulesConfig, preset_names
from bc_env.vector import LearnerVectorEnv, SelfPlayVectorEnv

PRESETS = preset_names()


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)


# ---------------------------------------------------------------------------- encoder: encode_into, fork


@pytest.mark.parametrize("preset", ["core-4p", "exp01-4p", "all-4p"])
def test_encode_into_writes_the_bytes_of_encode_into_a_batch_row(preset):
    config = RulesConfig.preset(preset)
    enc, other = Encoder(config), Encoder(config)
    batch = np.full((3, enc.size_total), 7.0, dtype=np.float32)  # stale values everywhere: all must be overwritten
    game = Game.new(config, 5)
    rng = np.random.default_rng(0)
    for step in range(40):
        for seat in range(config.players):
            enc.encode_into(game, seat, batch[1])
            assert batch[1].tobytes() == other.encode(game, seat).tobytes(), (step, seat)
        game.apply(int(rng.choice(game.legal_actions())))
    assert (batch[0] == 7.0).all() and (batch[2] == 7.0).all()


def test_encode_into_refuses_an_array_it_cannot_fill():
    config = RulesConfig.preset("core-2p")
    enc, game = Encoder(config), Game.new(config, 0)
    for bad in (
        np.zeros(enc.size_total, dtype=np.float64),
        np.zeros(enc.size_total + 1, dtype=np.float32),
        np.zeros((2, enc.size_total), dtype=np.float32)[:, 0],
        np.zeros((enc.size_total, 2), dtype=np.float32)[:, 0],  # not contiguous
        [0.0] * enc.size_total,
    ):
        with pytest.raises(ValueError, match="out must be"):
            enc.encode_into(game, 0, bad)


def test_forked_encoders_track_their_own_games():
    config = RulesConfig.preset("core-2p")
    base = Encoder(config)
    a, b = base.fork(), base.fork()
    ga, gb = Game.new(config, 1), Game.new(config, 2)
    rng = np.random.default_rng(1)
    for _ in range(30):
        for g in (ga, gb):
            g.apply(int(rng.choice(g.legal_actions())))
        assert np.array_equal(a.encode(ga, 0), Encoder(config).encode(ga, 0))
        assert np.array_equal(b.encode(gb, 1), Encoder(config).encode(gb, 1))
    assert a.rebuilds == 1 and b.rebuilds == 1  # one build each, then incremental: they never disturbed each other


# ---------------------------------------------------------------------------- differential against the AEC env


def _record(preset: str, num_envs: int, steps: int, seed: int, scheme: str = "zero_sum"):
    """Play random legal actions in a SelfPlayVectorEnv; per game: seed, [(obs, mask, seat, action)], rewards."""
    env = SelfPlayVectorEnv(preset, num_envs, seed=seed, reward_scheme=scheme)
    obs, mask, to_move = env.reset()
    rng = np.random.default_rng(seed)
    live = [{"seed": s, "steps": [], "rewards": None} for s in env.seeds]
    games = []
    for _ in range(steps):
        actions = _random_actions(mask, rng)
        for i, g in enumerate(live):
            g["steps"].append((obs[i].copy(), mask[i].copy(), int(to_move[i]), int(actions[i])))
        obs, mask, to_move, rewards, done = env.step(actions)
        assert not rewards[~done].any()
        for i in np.flatnonzero(done):
            live[i]["rewards"] = rewards[i].tolist()
            games.append(live[i])
            live[i] = {"seed": env.seeds[i], "steps": [], "rewards": None}
    return games + live


def _replay_in_aec(preset: str, game: dict, scheme: str = "zero_sum") -> None:
    aec = raw_env(preset, reward_scheme=scheme)
    aec.reset(seed=game["seed"])
    for k, (obs, mask, seat, action) in enumerate(game["steps"]):
        agent = aec.agent_selection
        assert agent == f"player_{seat}", k
        o = aec.observe(agent)
        assert o["observation"].tobytes() == obs.tobytes(), k
        assert np.array_equal(o["action_mask"].astype(bool), mask), k
        aec.step(action)
    if game["rewards"] is None:
        assert all(not t for t in aec.terminations.values())
    else:
        assert all(aec.terminations.values())
        assert [aec.rewards[a] for a in aec.possible_agents] == pytest.approx(game["rewards"])


@pytest.mark.parametrize("preset", PRESETS)
def test_same_observations_masks_and_seats_as_the_aec_env_on_every_preset(preset):
    for game in _record(preset, num_envs=2, steps=6, seed=11):
        _replay_in_aec(preset, game)


@pytest.mark.parametrize(("preset", "scheme"), [("core-2p", "zero_sum"), ("core-3p", "margin")])
def test_same_outcomes_as_the_aec_env_over_whole_games(preset, scheme):
    games = _record(preset, num_envs=2, steps=260, seed=3, scheme=scheme)
    finished = [g for g in games if g["rewards"] is not None]
    assert finished  # games of these presets end within 260 random decisions
    if scheme == "margin":
        assert any(any(r != 0 for r in g["rewards"]) for g in finished)
    for game in finished:
        _replay_in_aec(preset, game, scheme)


def test_a_seed_fixes_every_game_and_every_output():
    def run(seed):
        env = SelfPlayVectorEnv("core-4p", 3, seed=seed)
        obs, mask, _ = env.reset()
        rng = np.random.default_rng(0)
        seeds = [list(env.seeds)]
        for _ in range(5):
            obs, mask, *_ = env.step(_random_actions(mask, rng))
        return seeds, obs.copy(), mask.copy()

    (s1, o1, m1), (s2, o2, m2), (s3, _, _) = run(4), run(4), run(5)
    assert s1 == s2 and np.array_equal(o1, o2) and np.array_equal(m1, m2)
    assert s1 != s3
    env = SelfPlayVectorEnv("core-4p", 3, seed=9)
    env.reset(seed=4)
    assert [env.seeds] == s1  # reset(seed) restarts the seed sequence


def test_outputs_are_preallocated_and_written_in_place():
    env = SelfPlayVectorEnv("core-2p", 2, seed=0)
    obs, mask, to_move = env.reset()
    out = env.step(_random_actions(mask, np.random.default_rng(0)))
    assert out[0] is obs and out[1] is mask and out[2] is to_move
    assert obs.dtype == np.float32 and obs.shape == (2, env.obs_dim) and mask.shape == (2, env.num_actions)
    assert out[3].shape == (2, 2) and out[3].dtype == np.float32 and out[4].dtype == np.bool_
    assert [g.current_player for g in env.games] == to_move.tolist()


def test_an_illegal_action_raises_naming_the_slot_and_changes_nothing():
    env = SelfPlayVectorEnv("core-2p", 3, seed=0)
    obs, mask, _ = env.reset()
    before = (obs.copy(), [g.to_dict() for g in env.games])
    actions = _random_actions(mask, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~mask[2])[0])
    with pytest.raises(IllegalActionError, match="slot 2"):
        env.step(actions)
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(actions[:2])
    with pytest.raises(IllegalActionError, match="slot 0"):
        env.step(np.full(3, env.num_actions, dtype=np.int64))
    assert np.array_equal(obs, before[0]) and [g.to_dict() for g in env.games] == before[1]


# ---------------------------------------------------------------------------- the Gymnasium learner view


class _First:
    def __init__(self):
        self.calls = 0

    def act(self, game):
        self.calls += 1
        return game.legal_actions()[0]


def test_learner_view_shows_only_the_learners_decisions_and_rotates_seats():
    opponent = _First()
    env = LearnerVectorEnv("core-2p", 4, opponents=opponent, seed=2)
    obs, info = env.reset()
    assert env.observation_space.shape == (4, env.core.obs_dim)
    rng = np.random.default_rng(0)
    seats_seen = set()
    ended = 0
    for _ in range(250):
        assert np.array_equal(env.core.to_move, env.seat)
        seats_seen.update(env.seat.tolist())
        obs, reward, terminated, truncated, info = env.step(_random_actions(env.action_masks(), rng))
        assert not truncated.any() and not reward[~terminated].any()
        ended += int(terminated.sum())
    assert ended > 0 and opponent.calls > 0 and seats_seen == {0, 1}
    assert info["action_mask"] is env.action_masks()


def test_next_step_autoreset_shows_the_final_observation_then_the_next_game():
    """Gymnasium's NEXT_STEP mode (RLlib's env runners): the same games, rewards and observations as SAME_STEP, with
    one more step per game: the step that ends it shows the learner's final observation, the next one starts the
    next game and ignores that row's action."""
    from gymnasium.vector import AutoresetMode

    same = LearnerVectorEnv("core-2p", 1, seed=4)
    nxt = LearnerVectorEnv("core-2p", 1, seed=4, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert nxt.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs_a, _ = same.reset()
    obs_b, _ = nxt.reset()
    assert obs_b is not nxt.core.obs and np.array_equal(obs_a, obs_b)
    encoder, ended, pending = Encoder("core-2p"), 0, False
    while ended < 3:
        if pending:  # the row of the game that ended: any action, even an illegal one, is ignored
            obs_b, reward, terminated, _, info = nxt.step(np.array([-1]))
            assert reward[0] == 0 and not terminated[0] and np.array_equal(obs_b, obs_a)
            assert np.array_equal(nxt.action_masks(), same.action_masks())
            pending = False
            continue
        action = np.argmax(same.action_masks(), axis=1)
        seat = int(same.seat[0])
        obs_a, reward_a, terminated_a, _, _ = same.step(action)
        obs_b, reward, terminated, _, info = nxt.step(action)
        assert reward[0] == reward_a[0] and terminated[0] == terminated_a[0]
        if terminated[0]:
            game = nxt.core.ended[0]
            assert reward[0] == game.returns()[seat] and not info["action_mask"].any()
            np.testing.assert_array_equal(obs_b[0], encoder.encode(game, seat))
            ended, pending = ended + 1, True
        else:
            assert np.array_equal(obs_a, obs_b) and np.array_equal(nxt.action_masks(), same.action_masks())


def test_a_callable_draws_the_opponents_of_every_new_game():
    drawn: list[_First] = []

    def draw() -> _First:
        drawn.append(_First())
        return drawn[-1]

    env = LearnerVectorEnv("core-2p", 3, opponents=draw, seed=1)
    env.reset()
    assert len(drawn) == 3 and [o[0] for o in env.slot_opponents] == drawn
    ended, rng = 0, np.random.default_rng(0)
    while ended < 2:
        _, _, terminated, _, _ = env.step(_random_actions(env.action_masks(), rng))
        ended += int(terminated.sum())
    assert len(drawn) == 3 + ended and sum(o.calls > 0 for o in drawn) >= 3
    with pytest.raises(EnvOptionError, match="act"):
        LearnerVectorEnv("core-2p", 2, opponents=lambda: "heuristic", seed=1).reset()


def test_maskable_ppo_learns_on_the_learner_view_through_the_sb3_adapter():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from bc_env.vector.sb3 import SB3VecEnv

    env = SB3VecEnv(LearnerVectorEnv("core-2p", 4, seed=0))
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]}, seed=0, device="cpu"
    )
    model.learn(total_timesteps=64)
    assert model.num_timesteps == 64
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.env_method("action_masks")[0][actions[0]]  # legal
