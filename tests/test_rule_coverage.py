"""tools/rule_coverage.py and docs/rule-coverage.md.

Every rule ID of CORE-01.md is cited in the engine, read by a ruling or a definition (the tool's
``DEFINITIONS``); the generated report is up to date. If the last test fails, refresh the report with
``python tools/rule_coverage.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("rule_coverage", ROOT / "tools" / "rule_coverage.py")
rc = importlib.util.module_from_spec(_spec)
sys.modules["rule_coverage"] = rc
_spec.loader.exec_module(rc)

SPEC_DIR = rc.find_spec_dir(None)
pytestmark = pytest.mark.skipif(not (SPEC_DIR / "CORE-01.md").is_file(), reason=f"no spec at {SPEC_DIR}")
SPEC = rc.parse_spec(SPEC_DIR) if (SPEC_DIR / "CORE-01.md").is_file() else rc.Spec([])

#: Rules with no citation in bc_env/rules, no ruling and no definition entry yet: missing implementation
#: comments or real gaps. Each is an expected failure; remove an ID here once the engine cites it. None is
#: left: every rule of CORE-01.md (with VAR-01 and ADD56-01) is cited, ruled or a definition.
KNOWN_GAPS: dict[str, str] = {}


def ids(cites) -> list[str]:
    return list(cites.direct)


# ---------------------------------------------------------------------------- the spec


def test_spec_ids_are_parsed_with_their_text():
    assert len(SPEC.ids) == len(set(SPEC.ids)) > 150
    for rid in ("CORE-01-00-01", "CORE-01-00-T05", "CORE-01-02-04G", "CORE-01-05-03A", "CORE-01-06-16-00"):
        assert rid in SPEC.known
    for rid in ("VAR-01-01-06", "VAR-01-02-08", "ADD56-01-01-16", "ADD56-01-03-00-01", "ADD56-01-03-01"):
        assert rid in SPEC.known
    assert "CORE-01-00" not in SPEC.known and "VAR-01" not in SPEC.known  # section headings
    text = {r.id: r.text for r in SPEC.rules}
    assert text["CORE-01-04-05"] == "A tile placement is legal only if adjacent to at least one Tile in Board."
    assert "8 Influence" in text["ADD56-01-03-00-01"]  # a titled rule gets its first sentence
    assert all("|" not in t and len(t) <= 110 for t in text.values())


def test_definitions_name_real_rules():
    assert set(rc.DEFINITIONS) <= SPEC.known
    assert set(KNOWN_GAPS) <= SPEC.known
    assert not set(KNOWN_GAPS) & set(rc.DEFINITIONS)


# ---------------------------------------------------------------------------- citation grammar


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# CORE-01-04-05: adjacency", ["CORE-01-04-05"]),
        ("(CORE-01-04-06/07, VAR-01-01)", ["CORE-01-04-06", "CORE-01-04-07"]),
        (
            "CORE-01-06-04..08: a Hotspot",
            ["CORE-01-06-04", "CORE-01-06-05", "CORE-01-06-06", "CORE-01-06-07", "CORE-01-06-08"],
        ),
        (
            "amount  # CORE-01-03-04..06, ADD56-01-02-01/02",
            ["CORE-01-03-04", "CORE-01-03-05", "CORE-01-03-06", "ADD56-01-02-01", "ADD56-01-02-02"],
        ),
        ("(CORE-01-08-06, -06A)", ["CORE-01-08-06", "CORE-01-08-06A"]),
        ("zone (CORE-01-00-01, -05, -06).", ["CORE-01-00-01", "CORE-01-00-05", "CORE-01-00-06"]),
        ("(CORE-01-05-01/02, -03A)", ["CORE-01-05-01", "CORE-01-05-02", "CORE-01-05-03A"]),
        ("R1 (CORE-01-00-10..11, T01..T02)", ["CORE-01-00-10", "CORE-01-00-11", "CORE-01-00-T01", "CORE-01-00-T02"]),
        ("CORE-01-00-T01/T02: adjacency", ["CORE-01-00-T01", "CORE-01-00-T02"]),
        ("CORE-01-06-16 (a) 3-4, floor", ["CORE-01-06-16"]),
        ("ADD56-01-03-00-01 and CORE-01-06-16-00", ["ADD56-01-03-00-01", "CORE-01-06-16-00"]),
        ("EXP-02-02-C, EXP-03-06-03, -04 and RULINGS R18", []),
        ("(CORE-01-04-14, -21)", ["CORE-01-04-14", "CORE-01-04-21"]),
    ],
)
def test_dashed_citations(text, expected):
    assert ids(rc.cite_dashed(text, SPEC)) == expected


def test_a_section_citation_is_kept_apart():
    cites = rc.cite_dashed("recycle (VAR-01-01)", SPEC)
    assert cites.direct == []
    assert [rid for rid, _ in cites.section] == [f"VAR-01-01-0{k}" for k in range(1, 7)]
    assert {section for _, section in cites.section} == {"VAR-01-01"}


def test_an_unknown_citation_is_reported():
    cites = rc.cite_dashed("see CORE-01-04-23 and CORE-01-04-05..99", SPEC)
    assert cites.direct == ["CORE-01-04-05"]  # the start of the broken range is still a rule
    assert cites.unknown == ["CORE-01-04-23", "CORE-01-04-05..99"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("def test_CORE_01_04_05_placement_needs_adjacent_tile():", ["CORE-01-04-05"]),
        ("def test_CORE_01_04_06_07_discard_and_redraw():", ["CORE-01-04-06", "CORE-01-04-07"]),
        ("def test_CORE_01_03_04_to_06_starting_influence():", ["CORE-01-03-04", "CORE-01-03-05", "CORE-01-03-06"]),
        ("def test_ADD56_01_03_00_01_cap_is_8():", ["ADD56-01-03-00-01"]),
        ("def test_CORE_01_00_T01_adjacency():", ["CORE-01-00-T01"]),
        ("def test_CORE_01_05_03A_majority_bc11():", ["CORE-01-05-03A"]),
        ("def test_core_01_09_03_winner():", ["CORE-01-09-03"]),
        ("def test_CORE_01_08_01_7_is_the_cap():", ["CORE-01-08-01"]),
        ("def test_bc05_payment():", []),
    ],
)
def test_underscored_citations(name, expected):
    assert ids(rc.cite_underscored(name, SPEC)) == expected


def test_test_citations_are_reported_per_test_function(tmp_path, monkeypatch):
    (tmp_path / "test_sample.py").write_text(
        '"""Module about CORE-01-09-01."""\n\n\n'
        "def test_CORE_01_04_05_x():\n"
        "    assert True  # and CORE-01-04-08\n\n\n"
        "class TestGroup:\n"
        "    def test_y(self):\n"
        "        pass  # CORE-01-06-05\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(rc, "TESTS_DIR", tmp_path)
    cov = rc.Coverage()
    rc.scan_tests(SPEC, cov)
    assert cov.tests["CORE-01-09-01"] == ["test_sample.py"]
    assert cov.tests["CORE-01-04-05"] == ["test_sample.py::test_CORE_01_04_05_x"]
    assert cov.tests["CORE-01-04-08"] == ["test_sample.py::test_CORE_01_04_05_x"]
    assert cov.tests["CORE-01-06-05"] == ["test_sample.py::TestGroup::test_y"]


# ---------------------------------------------------------------------------- coverage


@pytest.fixture(scope="module")
def coverage():
    return rc.collect(SPEC, SPEC_DIR)


@pytest.mark.parametrize(
    "rid",
    [
        pytest.param(rid, marks=pytest.mark.xfail(strict=True, reason=f"known gap: {KNOWN_GAPS[rid]}"))
        if rid in KNOWN_GAPS
        else rid
        for rid in SPEC.ids
    ],
)
def test_rule_is_implemented_ruled_or_a_definition(coverage, rid):
    status = rc._status(SPEC, coverage, rid)
    assert status in ("implemented", "ruling", "definition"), (
        f"{rid} is not cited in bc_env/rules, not read by a ruling and not in DEFINITIONS"
    )


def test_engine_citations_name_real_rules(coverage):
    engine = [(where, bad) for where, bad in coverage.unknown if not where.startswith(("test", "R", "BC-"))]
    assert engine == [], "citations in bc_env/rules that name no rule of CORE-01.md"


def test_rulings_are_read(coverage):
    assert "R3" in coverage.rulings["CORE-01-04-05"]
    assert "R1" in coverage.rulings["CORE-01-00-T03"]  # "CORE-01-00-07..11, T01..T05"
    assert "BC-13" in coverage.rulings["CORE-01-04-12"]


# ---------------------------------------------------------------------------- the report


def test_parse_table_ignores_order_and_the_fired_column(coverage):
    plain = rc.render(SPEC, coverage)
    lines = plain.splitlines()
    start = lines.index(rc.TABLE_HEAD) + 2
    end = start + len(SPEC.ids)
    shuffled = lines[:start] + list(reversed(lines[start:end])) + lines[end:]
    assert rc.parse_table("\n".join(shuffled)) == rc.parse_table(plain)
    counts = rc.Counter({"CORE-01-04-04": 5})
    with_fired = rc.render(SPEC, coverage, (counts, ["core-2p"], 1))
    assert "| fired (1 × 1 presets) |" in with_fired
    assert rc.parse_table(with_fired) == rc.parse_table(plain)
    assert set(rc.parse_table(plain)) == SPEC.known


def test_fired_mode_counts_the_rules_in_the_event_log():
    counts, presets = rc.fired_counts(1)
    assert "core-4p" in presets and "core-4p-hex" in presets
    assert counts["CORE-01-03-01"] == len(presets)  # one setup event per game
    assert counts["CORE-01-09-03"] == len(presets)  # one game-over event per game
    assert counts["CORE-01-04-04"] >= counts["CORE-01-04-05"] > 0  # draws and placements


def test_check_mode(tmp_path):
    out = tmp_path / "coverage.md"
    assert rc.main(["--out", str(out)]) == 0
    assert rc.main(["--out", str(out), "--check"]) == 0
    text = out.read_text(encoding="utf-8")
    out.write_text(text.replace("| CORE-01-04-05 |", "| CORE-01-04-05-X |"), encoding="utf-8")
    assert rc.main(["--out", str(out), "--check"]) == 1


def test_rule_coverage_doc_is_up_to_date():
    doc = ROOT / "docs" / "rule-coverage.md"
    assert doc.is_file(), "docs/rule-coverage.md is missing: run python tools/rule_coverage.py"
    current = rc.parse_table(doc.read_text(encoding="utf-8"))
    fresh = rc.parse_table(rc.build(str(SPEC_DIR)))
    stale = sorted(rid for rid in set(current) | set(fresh) if current.get(rid) != fresh.get(rid))
    assert not stale, f"docs/rule-coverage.md is out of date for {stale[:10]}...: run python tools/rule_coverage.py"
