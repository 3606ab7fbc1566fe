"""``balance-control compare`` (benchmarking/compare.py): rule variants on paired deals, reproducible for a seed,
with a sign test and bootstrap intervals that behave as stated."""

from __future__ import annotations

import json
import random

import pytest

from balance_control.cli import main
from bc_env.rules import RulesConfig
from benchmarking.compare import METRICS, bootstrap_ci, compare, sign_test


def test_sign_test_known_values():
    assert sign_test(0, 5) == pytest.approx(2 / 32)  # 5 of 5 one way: 2 * 0.5**5
    assert sign_test(3, 3) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)


def test_bootstrap_interval_holds_the_mean_and_is_seeded():
    values = [0.0, 1.0] * 20
    lo, hi = bootstrap_ci(values, random.Random(1))
    assert lo < 0.5 < hi and (lo, hi) == bootstrap_ci(values, random.Random(1))
    assert bootstrap_ci([2.0] * 5, random.Random(0)) == (2.0, 2.0)


@pytest.fixture(scope="module")
def result():
    core = RulesConfig.preset("core-2p")
    return compare([core, core.replace(equal_turns=True, name="equal")], ["random", "random"], deals=2, seed=3)


def test_paired_deals_same_seeds_and_reproducible(result):
    recs = result.records
    assert len(recs) == 8  # 2 configurations x 2 deals x 2 seat rotations
    seeds = [[r["seed"] for r in recs if r["config"] == c] for c in ("core-2p", "equal")]
    assert seeds[0] == seeds[1] == [3, 3, 4, 4]
    core = RulesConfig.preset("core-2p")
    again = compare([core, core.replace(equal_turns=True, name="equal")], ["random", "random"], deals=2, seed=3)
    assert again.to_dict() == result.to_dict()


def test_equal_turns_removes_the_last_turn(result):
    # core-2p: 36 turns to 35, the start player always takes the last turn; equal_turns: 35 each, the last
    # turn is the second player's.
    core, equal = result.per_deal["core-2p"], result.per_deal["equal"]
    assert core["last_turn"] == core["start"]  # the last turn is the start player's
    assert [a + b for a, b in zip(equal["last_turn"], equal["start"])] == [1.0, 1.0]  # ... the other player's
    assert set(result.summary()["differences"]["equal"]) == set(METRICS)


def test_a_configuration_against_itself_differs_by_nothing():
    core = RulesConfig.preset("core-2p")
    same = compare([core, core.replace(name="again")], ["random", "random"], deals=2, seed=1)
    for d in same.summary()["differences"]["again"].values():
        assert d["difference"] == 0 and d["p_sign_test"] == 1.0 and d["deals_up"] == d["deals_down"] == 0


def test_cli_compare_json_and_html(tmp_path, capsys):
    out = tmp_path / "cmp.json"
    with pytest.raises(SystemExit, match="player counts"):  # 2 against 4 players: refused
        main(["compare", "core-2p", "docs/examples/core-4p-fph.toml", "--bots", "random", "--deals", "1"])
    rules = tmp_path / "fph.toml"
    rules.write_text("players = 2\nfirst_player_handicap = true\n")
    code = main(["compare", "core-2p", str(rules), "--bots", "random", "--deals", "1", "--json", str(out),
                 "--html", str(tmp_path / "rep")])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "| start player's win rate |" in text and "fph (vs core-2p)" in text
    data = json.loads(out.read_text())
    assert data["deals"] == 1 and set(data["summary"]["configs"]) == {"core-2p", "fph"}
    page = (tmp_path / "rep" / "report.html").read_text()
    assert page.index("Findings") < page.index("Paired comparison") < page.index("Games per configuration")
