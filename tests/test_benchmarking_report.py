"""The balance report (benchmarking/report.py): built headless from a tournament log, one self-contained HTML
file with every section, correct seat and Measure statistics, rules fired and never fired."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from balance_control.cli import main
from bc_env.rules import RulesConfig
from benchmarking.report import DEFAULT_RULES_DOC, build_report, event_row, read_rule_catalogue, write_report
from benchmarking.tournament import TournamentSpec, run_tournament

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """4 games each of core-2p, core-2p with FirstPlayerHandicap and exp01-4p; random and heuristic bots."""
    core = RulesConfig.preset("core-2p").to_dict()
    fph = RulesConfig.from_dict(core | {"first_player_handicap": True, "name": "fph"})
    configs = (RulesConfig.preset("core-2p"), fph, RulesConfig.preset("exp01-4p"))
    spec = TournamentSpec(("random", "heuristic"), configs, 4, seed=2)
    return run_tournament(spec, tmp_path_factory.mktemp("r") / "log.jsonl", workers=1).ordered()


def test_rule_catalogue_is_read_from_the_coverage_report():
    cat = read_rule_catalogue(DEFAULT_RULES_DOC)
    assert cat is not None
    assert len(cat.in_file("CORE-01.md")) == 161  # the counts docs/rule-coverage.md states
    assert len(cat.in_file("EXP-01.md")) == 125 and len(cat.in_file("EXP-01-v1.3.md")) == 115
    assert cat.rows["CORE-01-00-02"][2] is True  # a definition
    assert event_row("EXP-01-06-02", "v1.3", cat) == "EXP-01-06-02 (v1.3)"
    assert event_row("EXP-01-06-02", "standalone", cat) == "EXP-01-06-02"
    assert read_rule_catalogue(ROOT / "no-such-file.md") is None


def test_report_statistics(records):
    report = build_report(records, ["log.jsonl"])
    st = report.stats
    assert set(st.by_config) == {"core-2p", "fph", "exp01-4p"}
    for group in st.by_config.values():
        total = sum(r.successes for r in group.seat_wins)
        assert total == pytest.approx(group.games)  # one victory per game, shares included
    # By turn position: position 0 is the start player, so its wins are the start players' wins.
    core = [r for r in records if r["config"] == "core-2p"]
    starts = sum(1.0 / len(r["winners"]) for r in core if r["start_player"] in r["winners"])
    assert st.by_config["core-2p"].seat_wins[0].successes == pytest.approx(starts)
    exp = [r for r in records if r["config"] == "exp01-4p"]
    assert st.by_players[2].games == 8 and st.by_players[4].games == len(exp) >= 4
    assert ("first_player_handicap", "true") in st.by_option and ("exp01", "true") in st.by_option
    assert st.handicap_pairs == [("core-2p", "fph")]  # the exp01-4p games differ in more than the variant
    taken = sum(1 for r in exp for m in r["measures"] if m[0] == "take-measure")
    assert sum(st.taken.values()) == taken > 0
    for card, rate in st.played_win.items():
        assert rate.n == st.played[card]
    fired = sum(n for r in records for n in r["rules"].values())
    assert sum(st.fired.values()) == fired
    assert st.fired["CORE-01-09-03"] == len(records)  # one game-over event per game
    shared = sum(len(r["winners"]) > 1 for r in records)
    assert sum(g.shared for g in st.by_config.values()) == shared


def test_report_html_is_self_contained_with_every_section(records, tmp_path):
    report = build_report(records, ["log.jsonl"])
    path = write_report(report, tmp_path / "out")
    text = path.read_text()
    for heading in (
        "Games per configuration",
        "Ratings",
        "Win rate by turn position",
        "FirstPlayerHandicap (VAR-01-02)",
        "By player count",
        "By variant and rules option",
        "Measure cards (EXP-01)",
        "Game length",
        "Shared victories and the Influence cap",
        "Rules fired",
        "CORE-01.md:",
        "EXP-01.md:",
    ):
        assert heading in text, heading
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 5 and all(base64.b64decode(i).startswith(b"\x89PNG") for i in images)
    assert 'src="http' not in text and "<script" not in text  # nothing to fetch
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "endings.png",
        "game-length.png",
        "measures.png",
        "ratings.png",
        "report.html",
        "seat-win-rate.png",
    ]
    never = re.search(r"CORE-01.md: (\d+) of 161 rules never fired", text)
    assert never and 0 < int(never.group(1)) < 161
    # Rules the engine logs (they fired in rule-coverage.md's random games) but these games never reached:
    core = text.split("CORE-01.md: ")[1].split("EXP-01.md: ")[0]
    logged, other = core.split(" are definitions")
    assert "fired in the random games of rule-coverage.md" in logged
    assert "CORE-01-03-05" in logged  # 3-player setup: fires in 3-player games, there are none here
    assert "CORE-01-00-02" not in logged and "CORE-01-04-05" not in core  # a definition; a rule that fired


def test_cli_report_runs_headless(records, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("MPLBACKEND", "TkAgg")  # the report picks Agg itself
    log = tmp_path / "log.jsonl"
    spec = TournamentSpec(("random", "heuristic"), (RulesConfig.preset("core-2p"),), 2, seed=0)
    run_tournament(spec, log, workers=1)
    assert main(["report", str(log), "--out", str(tmp_path / "rep")]) == 0
    assert "report.html (2 games" in capsys.readouterr().out
    assert "No Measure was taken" in (tmp_path / "rep" / "report.html").read_text()
    with pytest.raises(SystemExit, match="balance-control: error: .*not a tournament log"):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps({"format": "balance-control-replay"}) + "\n")
        main(["report", str(bad)])


def test_same_configuration_in_two_logs_is_reported_apart(tmp_path, capsys):
    for name, bots in (("a.jsonl", ("random", "heuristic")), ("b.jsonl", ("heuristic",))):
        spec = TournamentSpec(bots, (RulesConfig.preset("core-2p"),), 2, seed=0)
        run_tournament(spec, tmp_path / name, workers=1)
    logs = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    assert main(["rate", *logs]) == 0
    out = capsys.readouterr().out
    assert "## core-2p [a.jsonl]: 2 games" in out and "## core-2p [b.jsonl]: 2 games" in out
    assert main(["report", *logs, "--out", str(tmp_path / "rep")]) == 0
    assert "core-2p [b.jsonl]" in (tmp_path / "rep" / "report.html").read_text()
    with pytest.raises(SystemExit, match="is given twice"):
        main(["rate", logs[0], logs[0]])
