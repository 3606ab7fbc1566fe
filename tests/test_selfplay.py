"""The selfplay backend of the training core (training/selfplay/): a tiny run end to end (train, resume, export,
load the bot and play), the refused resume, a fixed seed's weights, the worker processes over shared
memory stepping exactly the games of the in-process worker, sampling, the snapshots' stacked pass and the gate
bonus."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch")

import policies  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from training.cli import main as train_main  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.core import train as core_train  # noqa: E402
from training.rundir import RunDirError  # noqa: E402
from training.selfplay.games import KINDS, LEARNER, Games  # noqa: E402
from training.selfplay.trainer import SelfPlayBackend  # noqa: E402

TINY = "configs/train/selfplay-tiny.toml"


def train(cfg, **kw):
    return core_train(SelfPlayBackend(cfg), **kw)


def _cfg(tmp_path, *more):
    sets = [f'runs_dir="{tmp_path}"', "total_steps=64", "eval_every=1000", "ppo.n_steps=8", *more]
    return TrainConfig.load(TINY).override(sets)


def test_a_tiny_run_trains_resumes_exports_and_the_bot_plays(tmp_path):
    first = train(_cfg(tmp_path), progress=False)
    run = tmp_path / "selfplay-tiny"
    assert first["steps"] >= 64 and (run / "checkpoint" / "model.pt").is_file() and (run / "tb").is_dir()
    assert (run / "learning_curve.png").is_file()
    # --resume through the command line, towards a larger budget: the step count goes on, the evaluations add up.
    args = ["--config", TINY, "--resume", "--no-progress", "--set", f'runs_dir="{tmp_path}"', "--set", "ppo.n_steps=8"]
    more = ["--set", "total_steps=128", "--set", "eval_every=1000", "--set", "eval_games=1"]
    assert train_main([*args, *more, "--set", "selfplay.eval_expert=true"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    evals = json.loads((run / "evals.json").read_text())
    assert summary["steps"] >= 128 > first["steps"] and len(evals) == 2 and evals[1]["step"] == summary["steps"]
    assert "expert" not in evals[0] and evals[1]["expert"]["games"] == 1  # selfplay.eval_expert: a third opponent
    assert 0 < evals[0]["wall_seconds"] <= evals[1]["wall_seconds"] <= summary["wall_seconds"]
    bot = policies.load(str(run / "policy"))
    manifest = json.loads((run / "policy.json").read_text())
    assert manifest["training"]["backend"] == "selfplay" and manifest["training"]["steps"] == summary["steps"]
    assert manifest["training"]["git_commit"] and manifest["training"]["imitation"].startswith("none")
    game = Game.new(RulesConfig.preset("core-2p"), 3)
    for _ in range(20):
        action = bot.act(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_a_run_needs_neither_stable_baselines3_nor_sb3_contrib(tmp_path):
    """The selfplay backend is torch alone: a command-line run to its exported bot where the sb3 packages cannot be
    imported (a GPU machine's image without them stopped at the manifest's commit id, which came from the sb3
    backend's export module)."""
    code = (
        "import runpy, sys\n"
        "sys.modules['sb3_contrib'] = sys.modules['stable_baselines3'] = None\n"
        f"sys.argv = ['balance-control', 'train', '--config', {TINY!r}, '--no-progress',"
        f" '--set', 'runs_dir=\"{tmp_path}\"', '--set', 'total_steps=32']\n"
        "runpy.run_module('balance_control', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "done: selfplay-tiny" in done.stdout
    assert json.loads((tmp_path / "selfplay-tiny" / "policy.json").read_text())["training"]["git_commit"]


def test_resume_with_another_network_is_refused(tmp_path):
    train(_cfg(tmp_path, "total_steps=16"), progress=False)
    with pytest.raises(RunDirError, match="net_arch"):
        train(_cfg(tmp_path, "net_arch=[16]"), resume=True, progress=False)
    with pytest.raises(RunDirError, match="already holds a run"):
        train(_cfg(tmp_path), progress=False)


def test_a_run_saved_on_the_cpu_resumes_where_its_tensors_are_loaded_onto_a_gpu(tmp_path, monkeypatch):
    """``torch.load(map_location=cuda)`` moves every tensor of the checkpoint to the GPU, the CPU generator's saved
    state too, and ``torch.set_rng_state`` takes a CPU ByteTensor only: the GPU machine's resume of a run made on 2
    cores stopped there (session 21). Here the saved state comes back as an object that is no tensor until ``.cpu()``,
    as a GPU tensor is no CPU ByteTensor."""
    import torch

    import training.selfplay.trainer as trainer

    class OnTheGpu:
        def __init__(self, tensor):
            self.tensor = tensor

        def cpu(self):
            return self.tensor

    saved = {}
    real_load = torch.load

    def load(*args, **kwargs):
        data = real_load(*args, **kwargs)
        saved["rng"] = data["torch_rng"]
        data["torch_rng"] = OnTheGpu(data["torch_rng"])
        return data

    train(_cfg(tmp_path, "total_steps=16"), progress=False)
    monkeypatch.setattr(trainer.torch, "load", load)
    restored = {}
    monkeypatch.setattr(trainer.torch, "set_rng_state", lambda state: restored.setdefault("rng", state.clone()))
    summary = train(_cfg(tmp_path, "total_steps=32"), resume=True, progress=False)
    assert summary["steps"] >= 32 and torch.equal(restored["rng"], saved["rng"])


def test_a_fixed_seed_trains_the_same_weights_in_process(tmp_path):
    weights = []
    for name in ("a", "b"):
        train(_cfg(tmp_path, f'name="{name}"', "total_steps=32", "pool.snapshot_every=16"), progress=False)
        with np.load(tmp_path / name / "policy.npz") as z:
            weights.append([z[k] for k in sorted(z.files)])
    assert all(np.array_equal(x, y) for x, y in zip(*weights, strict=True))


def test_worker_processes_step_the_same_games_as_the_in_process_worker():
    def run(workers):
        cfg = TrainConfig.load(TINY).override([f"selfplay.workers={workers}", "selfplay.games_per_worker=3"])
        games = Games(cfg, RulesConfig.preset("core-2p"), seed=5)
        rng = np.random.default_rng(0)
        try:
            games.reset()
            out = []
            for _ in range(12):
                v = games.v
                role = v["roles"][np.arange(games.n), v["to_move"]]
                assert (role != -2).all()  # heuristic seats are played inside the workers
                v["actions"][:] = [rng.choice(np.flatnonzero(m)) for m in v["mask"]]
                games.step()
                out.append((v["obs"].copy(), v["mask"].copy(), v["roles"].copy(), v["kind"].copy()))
            return out
        finally:
            games.close()

    local, remote = run(0), run(1)
    for a, b in zip(local, remote, strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
    kinds = np.concatenate([k for *_, k in local])
    assert set(kinds.tolist()) <= set(range(len(KINDS))) and (local[0][2] == LEARNER).any()


def test_advantages_follow_each_seats_own_decisions_and_stop_at_its_game_end():
    from training.selfplay.trainer import chain_advantages

    # One slot: seats 0 and 1 alternate; seat 0's last decision of the game is t=2, seat 1's t=3 (terminal rewards
    # +1 and -1); a new game starts at t=4 (seat 0, still open). A second slot is a snapshot's (not mine).
    seats = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]])
    values = np.array([[0.1, 9], [0.2, 9], [0.3, 9], [0.4, 9], [0.5, 9]], dtype=np.float32)
    rewards = np.zeros((5, 2), dtype=np.float32)
    terminal = np.zeros((5, 2), dtype=bool)
    rewards[2, 0], rewards[3, 0] = 1.0, -1.0
    terminal[2, 0] = terminal[3, 0] = True
    mine = np.zeros((5, 2), dtype=bool)
    mine[:, 0] = True
    adv = chain_advantages(values, rewards, terminal, seats, mine, gamma=1.0, lam=1.0, players=2)
    assert adv[:, 0] == pytest.approx([1 - 0.1, -1 - 0.2, 1 - 0.3, -1 - 0.4, 0.0])
    assert (adv[:, 1] == 0).all()
    adv = chain_advantages(values, rewards, terminal, seats, mine, gamma=0.5, lam=1.0, players=2)
    assert adv[0, 0] == pytest.approx(0.5 * 1 - 0.1)  # discounted once per own decision, not per game decision


@pytest.mark.parametrize("layout", ["compact-v1", "compact-v2"])
def test_a_compact_observation_run_exports_a_bot_that_reads_the_compact_layout(tmp_path, layout):
    """``selfplay.obs_layout = "compact-v1"`` (or ``"compact-v2"``): the network reads the compact layout (a third
    of the core layout's inputs); the exported manifest names the layout, and the loaded bot encodes with it (its
    logits are the torch network's on the compact observation)."""
    import torch

    from bc_env.encoding import CompactEncoder, Encoder

    cfg = _cfg(tmp_path, 'name="compact"', "total_steps=32", f'selfplay.obs_layout="{layout}"')
    train(cfg, progress=False)
    manifest = json.loads((tmp_path / "compact" / "policy.json").read_text())
    assert manifest["observation_layout"] == manifest["encoder_version"] == layout
    bot = policies.load(str(tmp_path / "compact" / "policy"))
    assert bot.observation_layout == layout
    game = Game.new(RulesConfig.preset("core-2p"), 4)
    obs = CompactEncoder("core-2p", layout).encode(game, 0)
    assert obs.size < Encoder("core-2p").size_total // 2 and np.array_equal(bot.observe(game, 0), obs)
    state = torch.load(tmp_path / "compact" / "checkpoint" / "model.pt", weights_only=True)
    assert state["agent"]["pi.0.weight"].shape[1] == obs.size
    # The trainer's network reads the observation times the layout's input scale; the exported first layer carries
    # the scale, so the bot on the raw observation has the network's logits.
    from training.selfplay.trainer import Agent

    agent = Agent(obs.size, game.num_actions, [32], "tanh")
    agent.load_state_dict(state["agent"])
    scale = CompactEncoder("core-2p", layout).input_scale
    assert scale.min() < 0.01 and scale.max() == 1.0
    with torch.no_grad():
        want = agent.pi(torch.from_numpy(obs * scale)[None])[0].numpy()
    assert np.allclose(bot.logits(obs), want, atol=1e-5)
    for _ in range(20):
        action = bot.act(game)
        assert action in game.legal_actions()
        game.apply(action)
    # A resume must keep the layout: the core layout is another network's input.
    with pytest.raises(RunDirError, match="obs_layout"):
        train(_cfg(tmp_path, 'name="compact"', "total_steps=64"), resume=True, progress=False)


def test_the_compact_layout_is_refused_for_an_expansion_and_unknown_layouts_are_refused(tmp_path):
    from training.config import TrainConfigError

    with pytest.raises(TrainConfigError, match="obs_layout"):
        train(_cfg(tmp_path, 'rules="exp01-2p"', 'selfplay.obs_layout="compact-v1"'), progress=False)
    with pytest.raises(TrainConfigError, match="obs_layout must be"):
        _cfg(tmp_path, 'selfplay.obs_layout="tiny"')


def test_sampling_draws_only_legal_actions_with_the_softmax_probabilities(monkeypatch):
    """``trainer.sample``: one draw per row by the inverse of the cumulative distribution. Masked actions (logit
    -1e9) are never drawn, even when the draw rounds up to the total; the frequencies match the softmax."""
    import torch

    from training.selfplay.trainer import masked_logits, sample

    torch.manual_seed(0)
    logits = torch.tensor([[0.0, 1.0, 2.0, 0.5, -1.0]]).repeat(20_000, 1)
    mask = torch.tensor([[True, False, True, True, False]]).repeat(20_000, 1)
    drawn = sample(masked_logits(logits, mask))
    assert mask.gather(1, drawn[:, None]).all()
    freq = torch.bincount(drawn, minlength=5).double() / len(drawn)
    want = torch.softmax(masked_logits(logits[:1], mask[:1]), dim=1)[0].double()
    assert torch.allclose(freq, want, atol=0.015)
    # a draw at the very top of the distribution (a uniform number that rounds up to 1) takes the last legal
    # action, not the masked one after it
    monkeypatch.setattr(torch, "rand", lambda shape, device=None: torch.ones(shape))
    assert sample(masked_logits(logits[:3], mask[:3])).tolist() == [3, 3, 3]


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_the_snapshot_stack_gives_each_row_its_own_snapshots_logits(activation):
    """``SnapshotStack``: the snapshots' rows in one batched pass (grouped, padded); each row gets what its own
    snapshot's network gives it, whatever the order of the rows, for ids with gaps and snapshots with no row."""
    import torch

    from training.selfplay.trainer import SnapshotStack, _mlp

    torch.manual_seed(1)
    nets = {k: _mlp([12, 8, 8, 5], activation, 0.01).requires_grad_(False) for k in (0, 3, 4, 9)}
    stack = SnapshotStack(nets, "cpu")
    obs = torch.randn(11, 12)
    ids = np.array([9, 0, 9, 4, 0, 9, 9, 0, 4, 9, 0])  # snapshot 3 acts nowhere
    want = torch.stack([nets[int(k)](obs[i]) for i, k in enumerate(ids)])
    assert torch.allclose(stack(obs, ids), want, atol=1e-6)
    assert torch.allclose(stack(obs[:1], ids[:1]), want[:1], atol=1e-6)


def _gate_games(seed):
    """One game in the in-process worker, every seat's action chosen here, the gate bonus on."""
    cfg = TrainConfig.load(TINY).override(
        [
            "selfplay.workers=0",
            "selfplay.games_per_worker=1",
            "selfplay.gate_bonus=0.01",
            "pool.p_random=1.0",
            "pool.p_heuristic=0.0",
        ]
    )
    games = Games(cfg, RulesConfig.preset("core-2p"), seed=seed)
    games.reset()
    return games


def _names(game):
    return {a: game.action_to_string(a).split()[0] for a in game.legal_actions()}


def test_the_gate_bonus_flags_a_political_action_after_which_its_player_alone_keeps_the_gate_closed():
    """``gate_held`` (selfplay.gate_bonus, CORE-01-08-02): seat 0 places all but its last Starting Influence while
    seat 1 places all of its own; seat 0's next Political Action other than Place keeps the gate closed alone
    (flagged), a Place of the last one opens it (not flagged); before seat 1 has placed everything, holding is not
    flagged."""
    for seed in range(20):
        games = _gate_games(seed)
        rng = np.random.default_rng(seed)
        history, flags_before = [], []
        try:
            while True:
                g = games.local.env.games[0]
                if g.over:
                    break
                p, names = g.decision.owner, _names(g)
                places = [a for a, n in names.items() if n == "place"]
                others = [a for a, n in names.items() if n in ("convert", "move-from")]
                political = g.phase_name == "political"
                if political and p == 0 and g.deployed[0] == g.starting[0] - 1 and g.deployed[1] >= g.starting[1]:
                    if places and others:
                        break  # the state wanted
                if political and (p == 1 or g.deployed[0] < g.starting[0] - 1) and places:
                    action = places[0]
                elif political and p == 0 and others:
                    action = others[0]
                else:
                    action = int(rng.choice(list(names)))
                games.v["actions"][:] = action
                games.step()
                history.append(action)
                if political and p == 0 and action in others:
                    flags_before.append(bool(games.v["gate_held"][0]))
        finally:
            games.close()
        if g.over:
            continue
        assert flags_before and not any(flags_before)  # seat 1 still held Starting Influence: not alone
        flags = {}
        for label, action in (("keep", others[0]), ("release", places[0])):
            replay = _gate_games(seed)
            try:
                for a in history:
                    replay.v["actions"][:] = a
                    replay.step()
                replay.v["actions"][:] = action
                replay.step()
                flags[label] = bool(replay.v["gate_held"][0])
            finally:
                replay.close()
        assert flags == {"keep": True, "release": False}
        return
    pytest.fail("no seed reached a state where seat 0 alone held the gate")


def test_the_gate_bonus_falls_linearly_and_bad_values_are_refused(tmp_path):
    from training.config import TrainConfigError

    backend = SelfPlayBackend(_cfg(tmp_path, "selfplay.gate_bonus=0.02", "selfplay.gate_bonus_steps=1000"))
    for steps, want in ((0, 0.02), (250, 0.015), (1000, 0.0), (5000, 0.0)):
        backend.steps = steps
        assert backend.gate_bonus() == pytest.approx(want)
    backend = SelfPlayBackend(_cfg(tmp_path, "selfplay.gate_bonus=0.02"))
    backend.steps = 10**9
    assert backend.gate_bonus() == pytest.approx(0.02)  # gate_bonus_steps = 0: it stays
    for bad in ("selfplay.gate_bonus=-0.1", "selfplay.gate_bonus=2", "selfplay.gate_bonus=true"):
        with pytest.raises(TrainConfigError, match="selfplay.gate_bonus must"):
            _cfg(tmp_path, bad).validate()
    with pytest.raises(TrainConfigError, match="selfplay.gate_bonus_steps must"):
        _cfg(tmp_path, "selfplay.gate_bonus_steps=-1").validate()


def test_holding_the_gate_earns_the_bonus_only_while_the_holder_can_still_reach_the_cap():
    """``holds_gate_alone``: alone holding Starting Influence, and enough turns after this one for a Place per
    Influence not on the Board and a FormalizeInfluence per Influence not yet created (cap 7, Starting 4)."""
    from types import SimpleNamespace

    from training.selfplay.games import holds_gate_alone

    def game(turns, active=1, deployed=(3, 4), on_board=(3, 4)):
        # Game.actions_to_cap (RULINGS R12): a Place per Influence not on the Board, a FormalizeInfluence per
        # Influence not yet created (cap 7, Starting 4, none created)
        return SimpleNamespace(
            deployed=list(deployed),
            starting=[4, 4],
            on_board=list(on_board),
            created=[0, 0],
            cap=7,
            active=active,
            turns_left=lambda p: turns,
            actions_to_cap=lambda p: (7 - on_board[p]) + (7 - 4 - 0),
        )

    # seat 0 needs 4 Places (7 - 3 on the Board) and 3 FormalizeInfluence (7 - 4 Starting - 0 created): 7 turns
    assert holds_gate_alone(game(turns=7), 0) and not holds_gate_alone(game(turns=6), 0)
    assert holds_gate_alone(game(turns=8, active=0), 0) and not holds_gate_alone(game(turns=7, active=0), 0)
    assert not holds_gate_alone(game(turns=30, deployed=(3, 3)), 0)  # seat 1 holds too: not alone
    assert not holds_gate_alone(game(turns=30, deployed=(4, 4)), 0)  # nothing held: the gate is open
    assert not holds_gate_alone(game(turns=30), 1)  # seat 1 has placed everything
