"""Bots that check their game (issue 13): a trained bot refuses rules other than its manifest's, naming both;
every manifest field is checked; any corrupted bot file raises one PolicyFileError (a BalanceControlError)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

import policies
from balance_control.cli import main
from bc_env.rules import BalanceControlError, Game
from policies import BOTS_DIR, NeuralPolicy, PolicyConfigError, PolicyFileError, UnknownPolicyError
from policies.sample_bots import write_mlp_bot, write_spatial_bot

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bots")
    return {"mlp": write_mlp_bot(folder / "mlp"), "spatial": write_spatial_bot(folder / "spatial")}


def _copy(src: Path, dst: Path, manifest_edit=None, arrays_edit=None) -> Path:
    manifest = json.loads(src.with_suffix(".json").read_text(encoding="utf-8"))
    if manifest_edit is not None:
        manifest_edit(manifest)
    dst.with_suffix(".json").write_text(json.dumps(manifest), encoding="utf-8")
    if arrays_edit is None:
        shutil.copy(src.with_suffix(".npz"), dst.with_suffix(".npz"))
    else:
        with np.load(src.with_suffix(".npz"), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        arrays_edit(arrays)
        np.savez(dst.with_suffix(".npz"), **arrays)
    return dst


def test_the_error_classes_are_the_projects():
    assert issubclass(PolicyFileError, BalanceControlError)
    assert issubclass(PolicyConfigError, PolicyFileError)
    assert issubclass(UnknownPolicyError, BalanceControlError)


def test_a_2_player_bot_refuses_a_4_player_game_naming_both():
    with pytest.raises(PolicyConfigError, match=r"ppo-core-2p was trained for rules core-2p .*this game is core-4p"):
        policies.load("ppo-core-2p", config="core-4p")
    bot = policies.load("ppo-core-2p")
    with pytest.raises(PolicyConfigError, match=r"core-2p .*core-4p"):
        bot.act(Game.new("core-4p", 0))
    assert bot.act(Game.new("core-2p", 0)) in Game.new("core-2p", 0).legal_actions()


def test_a_bot_refuses_other_rules_with_the_same_players():
    bot = policies.load("ppo-core-4p")
    with pytest.raises(PolicyConfigError, match="core-4p-variants"):
        bot.act(Game.new("core-4p-variants", 0))


def test_the_rule_based_bots_play_any_rules():
    for name in ("random", "heuristic"):
        assert policies.load(name, seed=0, config="core-4p").name == name


def test_unknown_names_raise_the_projects_error():
    with pytest.raises(UnknownPolicyError, match="unknown policy 'alphazero'"):
        policies.load("alphazero")
    with pytest.raises(UnknownPolicyError):
        policies.load("")


def test_the_cli_names_both_configs_in_one_line(capsys):
    rc = main(["match", "--config", "core-4p", "--bots", "ppo-core-2p,random,random,random", "--games", "1"])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1
    assert "ppo-core-2p" in err and "core-2p" in err and "core-4p" in err and "Traceback" not in err


def _set(path: list, value):
    def edit(doc):
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value

    return edit


def _drop(path: list):
    def edit(doc):
        for key in path[:-1]:
            doc = doc[key]
        del doc[path[-1]]

    return edit


@pytest.mark.parametrize(
    ("kind", "edit", "message"),
    [
        ("spatial", _set(["rules", "players"], 4), "network.planes is 27"),  # a manifest edited to 4 players
        ("spatial", _set(["network", "layers"], 1), "unexpected array"),  # layers=1 with the arrays of 2
        ("spatial", _set(["network", "layers"], 3), "missing array 'conv1.w'"),
        ("spatial", _set(["network", "channels"], True), "network.channels must be an integer"),
        ("spatial", _set(["network", "size"], 1.0), "network.size must be an integer"),
        ("spatial", _set(["network", "extra"], 8), "network.extra is 8"),
        ("spatial", _set(["network", "type"], "transformer"), "unknown network type 'transformer'"),
        ("spatial", _drop(["network", "global"]), "missing: global"),
        ("spatial", _set(["network", "activation"], "gelu"), "network.activation must be"),
        ("mlp", _drop(["network", "layers"]), "network.layers"),
        ("mlp", _set(["network", "layers"], [[6235, 8]]), "the last layer gives 8 logits"),
        ("mlp", _set(["network", "layers"], [[6235, 8], [9, 1357]]), r"network.layers\[1\] takes 9"),
        ("mlp", _set(["network", "layers"], [[100, 8], [8, 1357]]), "first layer takes 100 inputs"),
        ("mlp", _set(["network", "layers"], [[6235, "8"], [8, 1357]]), r"network.layers\[0\] must be an integer"),
        ("mlp", _set(["network", "layers"], [6235, 8]), r"network.layers\[0\] must be \[in, out\]"),
        ("mlp", _set(["network", "hidden"], [16]), "network.hidden"),
        ("mlp", _set(["network"], "mlp"), "no 'network'"),
        ("mlp", _set(["encoder_version"], 1), "encoder version 1"),
        ("mlp", _set(["encoder_version"], True), "encoder version True"),
        ("mlp", _set(["encoder_version"], 2.0), "encoder version 2.0"),
        ("mlp", _set(["version"], 1.0), "not a balance-control-policy v1 manifest"),
        ("mlp", _set(["action_layout", "version"], 1.0), "action_layout must be an object with version 1"),
        ("mlp", _drop(["encoder_version"]), "encoder version None"),
        ("mlp", _set(["action_layout", "num_actions"], 1000), "num_actions is 1000"),
        ("mlp", _set(["action_layout", "num_actions"], "1357"), "num_actions must be an integer"),
        ("mlp", _drop(["action_layout"]), "action_layout must be an object"),
        ("mlp", _drop(["rules"]), "no 'rules'"),
        ("mlp", _set(["rules"], [2]), "rules configuration must be a table"),
        ("mlp", _set(["rules", "players"], "two"), "players"),
        ("mlp", _set(["rules", "colour"], "red"), "colour"),
        ("mlp", _set(["name"], 7), "name must be a non-empty string"),
        ("mlp", _set(["version"], True), "not a balance-control-policy v1 manifest"),
        ("mlp", _set(["format"], "onnx"), "not a balance-control-policy v1 manifest"),
        ("mlp", _set(["training"], "yesterday"), "training"),
        ("mlp", _set(["rules_preset"], 2), "rules_preset must be a string"),
        ("mlp", _set(["observation_layout"], "tiny"), "observation_layout must be one of core, compact-v1, compact-v2"),
        ("mlp", _set(["observation_layout"], 1), "observation_layout must be one of"),
        # The core network's manifest relabelled compact: the encoder version and the first layer disagree.
        ("mlp", _set(["observation_layout"], "compact-v1"), "trained with encoder version 2"),
        ("spatial", _set(["observation_layout"], "compact-v1"), "trained with encoder version 2"),
    ],
)
def test_every_manifest_field_is_checked(bots, tmp_path, kind, edit, message):
    path = _copy(bots[kind], tmp_path / "bad", manifest_edit=edit)
    with pytest.raises(PolicyFileError, match=message):
        NeuralPolicy(path)


def _reshape(name):
    def edit(arrays):
        arrays[name] = arrays[name].reshape(-1)

    return edit


def _nan(name):
    def edit(arrays):
        arrays[name] = arrays[name].copy()
        arrays[name].reshape(-1)[0] = np.nan

    return edit


@pytest.mark.parametrize(
    ("kind", "edit", "message"),
    [
        ("mlp", lambda a: a.pop("w1"), "missing array 'w1'"),
        ("mlp", lambda a: a.update(w2=np.zeros(3, np.float32)), "unexpected array"),
        ("mlp", lambda a: a.update(w0=a["w0"].T.copy()), "layer 0 must be float32 weight"),
        ("mlp", lambda a: a.update(b0=a["b0"].astype(np.float64)), "must be float32"),
        ("mlp", _nan("w1"), "not finite"),
        ("mlp", lambda a: a.update(w0=np.array(["x"])), "must be float32"),
        ("spatial", _reshape("mix.w"), "mix.w has shape"),
        ("spatial", lambda a: a.pop("conv0.b"), "missing array 'conv0.b'"),
        ("spatial", _nan("cell.b"), "not finite"),
    ],
)
def test_wrong_arrays_are_refused(bots, tmp_path, kind, edit, message):
    path = _copy(bots[kind], tmp_path / "bad", arrays_edit=edit)
    with pytest.raises(PolicyFileError, match=message):
        NeuralPolicy(path)


@pytest.mark.parametrize("kind", ["mlp", "spatial"])
@pytest.mark.parametrize("keep", [0, 10, 100, 1000, -100, -1])
def test_a_truncated_zip_is_a_policy_file_error(bots, tmp_path, kind, keep):
    path = _copy(bots[kind], tmp_path / "cut")
    data = path.with_suffix(".npz").read_bytes()
    path.with_suffix(".npz").write_bytes(data[:keep])
    with pytest.raises(PolicyFileError):
        NeuralPolicy(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"{", "not valid JSON"), (b"\xff\xfe{}", "not UTF-8"), (b"[]", "a manifest is a JSON object"), (b"7", "object")],
)
def test_a_broken_manifest_is_a_policy_file_error(bots, tmp_path, content, message):
    path = _copy(bots["mlp"], tmp_path / "bad")
    path.with_suffix(".json").write_bytes(content)
    with pytest.raises(PolicyFileError, match=message):
        NeuralPolicy(path)


def test_an_npz_that_is_not_a_zip_is_a_policy_file_error(bots, tmp_path):
    path = _copy(bots["mlp"], tmp_path / "bad")
    path.with_suffix(".npz").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    with pytest.raises(PolicyFileError):
        NeuralPolicy(path)
    with zipfile.ZipFile(path.with_suffix(".npz"), "w") as z:
        z.writestr("w0.npy", b"\x93NUMPY garbage")
    with pytest.raises(PolicyFileError):
        NeuralPolicy(path)


def test_the_sample_and_shipped_bots_load_and_play(bots):
    for bot in (
        NeuralPolicy(bots["mlp"]),
        NeuralPolicy(bots["spatial"]),
        policies.load("ppo-core-2p", config="core-2p"),
    ):
        game = Game.new("core-2p", 1)
        assert bot.act(game) in game.legal_actions()
    assert NeuralPolicy(BOTS_DIR / "ppo-core-4p", config="core-4p").name == "ppo-core-4p"


def test_a_seeded_fuzz_of_bot_files_finds_no_foreign_error():
    """300 cases of tools/fuzz_bot_files.py (the script runs 10,000; docs/policies.md records them)."""
    spec = importlib.util.spec_from_file_location("fuzz_bot_files", ROOT / "tools" / "fuzz_bot_files.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.fuzz(300, seed=13, shipped=False)
    assert figures["foreign"] == []
    assert figures["outcomes"].get("PolicyFileError", 0) > 200
    assert sum(figures["outcomes"].values()) == 300
