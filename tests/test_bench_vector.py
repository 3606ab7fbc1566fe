"""The batched-env benchmark (``bc_env/bench/vector.py``): its random legal choice and its side-by-side rounds."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bc_env.bench.vector import main, random_legal


def test_random_legal_picks_each_legal_action_of_a_row_uniformly_and_nothing_else():
    mask = np.zeros((4, 12), dtype=bool)
    mask[0, [1, 4, 7]] = True
    mask[1, 11] = True
    mask[2, :] = True
    mask[3, [0, 11]] = True
    rng = np.random.default_rng(3)
    counts = np.zeros(mask.shape)
    draws = 6000
    for _ in range(draws):
        a = random_legal(mask, rng)
        assert a.shape == (4,) and mask[np.arange(4), a].all()
        counts[np.arange(4), a] += 1
    freq = counts / draws
    expected = mask / mask.sum(axis=1, keepdims=True)
    assert np.abs(freq - expected).max() < 0.03  # 4.6 standard deviations of the widest row (p = 1/2, 6,000 draws)


def test_the_benchmark_alternates_the_loops_and_reports_the_ratio_of_each_round(capsys):
    main(["--config", "core-2p", "--seconds", "0.4", "--rounds", "2", "--num-envs", "4", "--obs-layout", "compact-v1"])
    out = capsys.readouterr().out
    assert re.search(r"^\| AEC env \(core-2p\) \| \d+ \|", out, re.M)
    assert re.search(r"^\| SelfPlayVectorEnv\(core-2p, 4, compact-v1\) \| \d+ \|", out, re.M)
    m = re.search(r"over the run; median of 2 rounds (\d+\.\d\d)x \((\d+\.\d\d), (\d+\.\d\d)\)", out)
    assert m, out
    low, high = float(m.group(2)), float(m.group(3))
    assert 0 < low <= float(m.group(1)) <= high
    assert re.search(r"compact-v1\): \d+% of its CPU time went to choosing the actions", out)


def test_the_benchmark_refuses_zero_rounds(capsys):
    with pytest.raises(SystemExit):
        main(["--rounds", "0"])
    assert "--rounds must be at least 1, got 0" in capsys.readouterr().err
