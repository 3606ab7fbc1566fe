"""Numbers in the docs that the code can compute (issue 13: docs/environment.md said 7,545 for the core-4p
observation, the encoder gives 7,681). Each test reads the number from the doc and computes it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from bc_env.encoding import Encoder
from bc_env.rules import Game
from policies import BOTS_DIR

ROOT = Path(__file__).resolve().parents[1]


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_environment_md_observation_size_of_core_4p():
    match = re.search(r"Box\(0, 1, \(([\d,]+),\), float32\).*on `(core-\dp)`", read("docs/environment.md"))
    assert match, "the observation row of the AEC table"
    assert number(match.group(1)) == Encoder(match.group(2)).size_total


@pytest.mark.parametrize(
    ("pattern", "preset"),
    [
        (r"for `core-4p` \(C = (\d+),\s+vector (\d+), total (\d+)\)", "core-4p"),
        (r"On `exp01-4p`: C = (\d+), vector (\d+), total (\d+)\.", "exp01-4p"),
    ],
)
def test_observation_md_sizes(pattern, preset):
    match = re.search(pattern, read("docs/observation.md"))
    assert match, pattern
    enc = Encoder(preset)
    assert tuple(int(g) for g in match.groups()) == (enc.num_channels, enc.vector_size, enc.size_total)


def test_actions_md_counts_of_the_expansion_presets():
    text = read("docs/actions.md")
    match = re.search(r"= (\d+)\*\* actions \(`exp01-2p`: (\d+), `exp01-6p`: (\d+)", text)
    assert match
    got = [int(g) for g in match.groups()]
    assert got == [Game.new(p, 0).num_actions for p in ("exp01-4p", "exp01-2p", "exp01-6p")]


@pytest.mark.parametrize("name", sorted(path.stem for path in BOTS_DIR.glob("*.npz")))
def test_policies_md_weights_and_size_of_the_shipped_bots(name):
    """docs/policies.md names every shipped bot's size: "`NAME` C channels, W weights, S MB" for a spatial network,
    "`NAME` W weights, S MB" for an MLP."""
    match = re.search(rf"`{name}` (?:(\d+) channels, )?([\d,]+)\s+weights, ([\d.]+) MB", read("docs/policies.md"))
    assert match, name
    with np.load(BOTS_DIR / f"{name}.npz", allow_pickle=False) as z:
        weights = sum(z[k].size for k in z.files)
        channels = z["conv_in.w"].shape[0] if "conv_in.w" in z.files else None
    assert (int(match.group(1)) if match.group(1) else None) == channels
    assert number(match.group(2)) == weights
    assert float(match.group(3)) == round((BOTS_DIR / f"{name}.npz").stat().st_size / 1e6, 2)


def test_every_observation_size_in_the_docs_belongs_to_a_preset():
    """Any 'Box(..., (N,), float32)' in the docs is the observation size of some preset."""
    from bc_env.rules import preset_names

    sizes = {Encoder(p).size_total for p in preset_names()}
    for doc in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        for match in re.finditer(r"Box\([^()]*\((\d[\d,]*),\), float32\)", doc.read_text(encoding="utf-8")):
            assert number(match.group(1)) in sizes, f"{doc.name}: {match.group(0)}"
