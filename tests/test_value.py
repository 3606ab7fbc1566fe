"""The value network (policies/value.py): export parity with torch, features, the shipped files, bad files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import policies
from bc_env.rules import Game
from policies.neural import PolicyFileError
from policies.value import FORMAT, VALUES_DIR, ValueNet, features, load_value, num_features

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))


def _position(config: str, seed: int, decisions: int) -> Game:
    g = Game.new(config, seed)
    bots = [policies.load("expert", seed=seed + q) for q in range(g.num_players)]
    for _ in range(decisions):
        g.apply(bots[g.current_player].act(g))
    return g


def _manifest(players: int, layers: int) -> dict:
    return {"format": FORMAT, "config": "test", "players": players, "layers": layers, "slope": 1.5}


def test_export_parity_torch_forward_equals_numpy_forward(tmp_path):
    torch = pytest.importorskip("torch")
    import train_value

    torch.manual_seed(0)
    width = num_features(2)
    net = torch.nn.Sequential(
        torch.nn.Linear(width, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
    )
    rng = np.random.default_rng(1)
    mean = rng.normal(size=width).astype(np.float32)
    std = (rng.random(width) + 0.5).astype(np.float32)
    arrays = train_value.to_arrays(net, mean, std)
    np.savez(tmp_path / "v.npz", **arrays)
    (tmp_path / "v.json").write_text(json.dumps(_manifest(2, 2)))
    numpy_net = load_value(tmp_path / "v")
    g = _position("core-2p", 3, 60)
    x = np.stack([features(g, p) for p in range(2)] + [rng.normal(size=width).astype(np.float32) for _ in range(6)])
    with torch.no_grad():
        expected = net(torch.from_numpy((x - mean) / std))[:, 0].numpy()
    assert numpy_net.margin(x) == pytest.approx(expected, abs=1e-5)
    v = numpy_net.values(g)
    assert v[0] == pytest.approx(-v[1]) and -1 <= v[0] <= 1


def test_features_are_the_players_view_in_seat_order_after_it():
    g = _position("core-4p", 5, 80)
    f1 = features(g, 1)
    assert f1.shape == (num_features(4),) and f1.dtype == np.float32
    assert f1[0] == g.on_board[1] and f1[9] == g.on_board[2] and f1[27] == g.on_board[0]
    assert f1[4] == g.turns_left(1) and f1[-3] == len(g.draw_pile) and f1[-1] == float(g.active == 1)


@pytest.mark.parametrize("config", ["core-2p", "core-4p"])
def test_shipped_value_networks_load_and_evaluate(config):
    path = VALUES_DIR / f"value-{config}"
    if not path.with_suffix(".npz").is_file():
        pytest.skip(f"no shipped value network for {config}")
    g = _position(config, 7, 40)
    net = load_value(g)
    assert isinstance(net, ValueNet) and net.players == g.num_players
    v = net.values(g)
    assert len(v) == g.num_players and all(-1 <= x <= 1 for x in v)


def test_bad_value_files_raise_a_clear_error(tmp_path):
    with pytest.raises(PolicyFileError, match="no v.npz"):
        load_value(tmp_path / "v")
    (tmp_path / "v.npz").write_bytes(b"not a zip")
    (tmp_path / "v.json").write_text(json.dumps(_manifest(2, 0)))
    with pytest.raises(PolicyFileError):
        load_value(tmp_path / "v")
    w = num_features(2)
    np.savez(
        tmp_path / "v.npz",
        mean=np.zeros(w, np.float32),
        std=np.ones(w, np.float32),
        w0=np.zeros((1, w + 1), np.float32),
        b0=np.zeros(1, np.float32),
    )
    with pytest.raises(PolicyFileError, match="layer 0"):
        load_value(tmp_path / "v")
    (tmp_path / "v.json").write_text(json.dumps({**_manifest(2, 0), "format": "pickle"}))
    with pytest.raises(PolicyFileError, match="format"):
        load_value(tmp_path / "v")
