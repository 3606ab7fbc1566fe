"""tools/rule_coverage.py and docs/rule-coverage.md.

Every rule of CORE-01.md and of both EXP-01 texts (EXP-01.md, edition standalone; EXP-01-v1.3.md, edition
v1.3; spec README 3 and 5) is cited in the engine, read by a ruling or a definition (the tool's
``DEFINITIONS``, each with its reason); the generated report is up to date. If the last test fails, refresh
the report with ``python tools/rule_coverage.py --fired 30``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("rule_coverage", ROOT / "tools" / "rule_coverage.py")
rc = importlib.util.module_from_spec(_spec)
sys.modules["rule_coverage"] = rc
_spec.loader.exec_module(rc)

try:  # the rule texts live beside the repository (../shared/spec), not in it: a bare clone has none
    SPEC_DIR = rc.find_spec_dir(None)
    SPEC = rc.parse_spec(SPEC_DIR)
except rc.SpecNotFoundError as exc:
    pytestmark = pytest.mark.skip(reason=str(exc))
    SPEC_DIR, SPEC = rc.DEFAULT_SPEC, rc.Spec([])

#: Rules with no citation in bc_env/rules, no ruling and no definition entry yet: missing implementation
#: comments or real gaps. Each is an expected failure; remove an ID here once the engine cites it. None is
#: left: every rule of CORE-01.md (with VAR-01 and ADD56-01), EXP-01.md and EXP-01-v1.3.md is cited, ruled
#: or a definition.
KNOWN_GAPS: dict[str, str] = {}
#: The rule counts of the EXP-01 texts; a change means the spec changed or the parser lost rules.
EXP01_RULES = {"EXP-01.md": 125, "EXP-01-v1.3.md": 115}
HAS_EXP01 = all((SPEC_DIR / name).is_file() for name in EXP01_RULES)
needs_exp01 = pytest.mark.skipif(not HAS_EXP01, reason=f"no EXP-01 texts at {SPEC_DIR}")


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
    assert all(len(reason) > 10 for reason in rc.DEFINITIONS.values()), "every definition says why"
    assert set(KNOWN_GAPS) <= SPEC.known
    assert not set(KNOWN_GAPS) & set(rc.DEFINITIONS)


def _printed_rule_lines(name: str) -> list[str]:
    """The rule IDs at the start of a line of a spec file (a cruder reading than the tool's)."""
    text = (SPEC_DIR / name).read_text(encoding="utf-8")
    return re.findall(r"^(EXP-01(?:-[0-9A-Z]+){2,})\s", text, re.M)


@needs_exp01
def test_EXP_01_both_texts_are_parsed_with_every_rule():
    for name, count in EXP01_RULES.items():
        rules = SPEC.of(name)
        assert len(rules) == count == len(_printed_rule_lines(name)), name
        assert [r.bare for r in rules] == _printed_rule_lines(name)
    assert all(r.id == f"{r.bare} (v1.3)" and r.section == "v1.3" for r in SPEC.of("EXP-01-v1.3.md"))
    text = {r.id: r.text for r in SPEC.rules}
    assert text["EXP-01-06-02"] == "TakeMeasure moves exactly one Measure from OpenMeasures to PlayerHand."
    assert text["EXP-01-06-02 (v1.3)"] == "A player may perform at most one PlayMeasure per round."
    assert text["EXP-01-08-M01-05 (v1.3)"].startswith("Effect: The targeted Hotspot does not resolve")
    assert text["EXP-01-02-05"].endswith("DrawPile: ECO-W1 ×2, ECO-W2 ×1, ECO-W3 ×1")  # a list intro + its items


@needs_exp01
def test_EXP_01_reused_ids_are_distinct_rows_labelled_with_their_section():
    """Spec README 5: EXP-01.md reuses EXP-01-06-01..06 (Restrictions) and EXP-01-07-01..04 (Rule Interaction)."""
    standalone = [r.id for r in SPEC.of("EXP-01.md")]
    labelled = [rid for rid in standalone if "(" in rid]
    assert labelled == [f"EXP-01-06-0{k} (Restrictions)" for k in range(1, 7)] + [
        f"EXP-01-07-0{k} (Rule Interaction)" for k in range(1, 5)
    ]
    text = {r.id: r.text for r in SPEC.rules}
    assert text["EXP-01-06-02 (Restrictions)"] == "ECO does not alter Control calculation."
    assert text["EXP-01-07-04 (Rule Interaction)"] == "If EXP-01 is inactive, ECO and all Measure rules do not exist."
    assert "EXP-01-06-02" in SPEC.known and "EXP-01-07-01" not in SPEC.known


@needs_exp01
def test_EXP_01_same_rule_ids_state_the_same_rule_in_both_texts():
    for bare in rc.SAME_RULE:
        assert bare in SPEC.known and f"{bare} (v1.3)" in SPEC.known, bare
    # IDs the two texts share with different rules are not in SAME_RULE.
    assert not {"EXP-01-00-05", "EXP-01-01-03", "EXP-01-05-01", "EXP-01-06-02", "EXP-01-07-01"} & rc.SAME_RULE


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
        ("EXP-02-02-C, EXP-03-06-03, -04 and RULINGS R18", ["EXP-03-06-03", "EXP-03-06-04"]),
        ("(CORE-01-04-14, -21)", ["CORE-01-04-14", "CORE-01-04-21"]),
    ],
)
def test_dashed_citations(text, expected):
    assert ids(rc.cite_dashed(text, SPEC)) == expected


@needs_exp01
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# EXP-01-06-02: TakeMeasure", ["EXP-01-06-02"]),
        ("(EXP-01-06-01..06 (Restrictions) / EXP-01-09-01..02 (v1.3))",
         [f"EXP-01-06-0{k} (Restrictions)" for k in range(1, 7)] + ["EXP-01-09-01 (v1.3)", "EXP-01-09-02 (v1.3)"]),
        ("EXP-01-07-01..03 (Rule Interaction) / EXP-01-10-01/02 (v1.3)",
         [f"EXP-01-07-0{k} (Rule Interaction)" for k in range(1, 4)] + ["EXP-01-10-01 (v1.3)", "EXP-01-10-02 (v1.3)"]),
        ("EXP-01-06-18 / EXP-01-06-02 (v1.3), RULINGS R20", ["EXP-01-06-18", "EXP-01-06-02 (v1.3)"]),
        ("EXP-01-06-13..15 / EXP-01-07-03/04 (v1.3)",
         ["EXP-01-06-13", "EXP-01-06-14", "EXP-01-06-15", "EXP-01-07-03 (v1.3)", "EXP-01-07-04 (v1.3)"]),
        ("(EXP-01-06-M02-03, -M05-03 / EXP-01-08-M02-04, -M04-04)",
         ["EXP-01-06-M02-03", "EXP-01-06-M05-03", "EXP-01-08-M02-04 (v1.3)", "EXP-01-08-M04-04 (v1.3)"]),
        ("EXP-01-06-04..06, -11..13", ["EXP-01-06-04", "EXP-01-06-05", "EXP-01-06-06", "EXP-01-06-11",
                                       "EXP-01-06-12", "EXP-01-06-13"]),
        ("EXP-01-00-01/02, both texts", ["EXP-01-00-01", "EXP-01-00-01 (v1.3)", "EXP-01-00-02", "EXP-01-00-02 (v1.3)"]),
        ("EXP-01-08-M01-05, EXP-01-04-B-02", ["EXP-01-08-M01-05 (v1.3)", "EXP-01-04-B-02 (v1.3)"]),
        ("EXP-01-02-C-03..05 (v1.3)", ["EXP-01-02-C-03 (v1.3)", "EXP-01-02-C-04 (v1.3)", "EXP-01-02-C-05 (v1.3)"]),
        ("EXP-01-06-05 (v1.3) (b)-(d)", ["EXP-01-06-05 (v1.3)"]),
        ("EXP-01-06-05 (c) (v1.3): not as the additional action", ["EXP-01-06-05 (v1.3)"]),
        ("EXP-01-06-05 (b) refill", ["EXP-01-06-05"]),
        ("the cards EXP-01-M03 and f'EXP-01-M{i:02d}' are no rules", []),
    ],
)  # fmt: skip
def test_EXP_01_dashed_citations_with_sections_and_editions(text, expected):
    cites = rc.cite_dashed(text, SPEC)
    assert (ids(cites), cites.unknown) == (expected, [])


@needs_exp01
def test_EXP_01_a_bare_reused_rule_interaction_id_is_ambiguous():
    """A bare EXP-01-07-01 is Rule Interaction in EXP-01.md and the Measure System in v1.3: reported."""
    cites = rc.cite_dashed("EXP-01-07-01", SPEC)
    assert cites.direct == [] and cites.section == []
    assert cites.unknown == ["EXP-01-07-01 (ambiguous: EXP-01-07-01 (Rule Interaction) or EXP-01-07-01 (v1.3))"]


@needs_exp01
def test_EXP_01_a_wrong_suffix_is_reported():
    cites = rc.cite_dashed("EXP-01-09-01 (Restrictions), EXP-01-06-07 (Rule Interaction)", SPEC)
    assert cites.direct == []
    assert cites.unknown == ["EXP-01-09-01 (Restrictions)", "EXP-01-06-07 (Rule Interaction)"]


@needs_exp01
def test_EXP_01_section_citations():
    cites = rc.cite_dashed("(EXP-01-04-B, EXP-01-06-M01..M03)", SPEC)
    assert cites.direct == [] and cites.unknown == []
    sections = {}
    for rid, section in cites.section:
        sections.setdefault(section, []).append(rid)
    assert sections["EXP-01-04-B (v1.3)"] == [f"EXP-01-04-B-0{k} (v1.3)" for k in range(1, 7)]
    assert sections["EXP-01-06-M01"] == [f"EXP-01-06-M01-0{k}" for k in range(1, 5)]
    assert list(sections) == ["EXP-01-04-B (v1.3)", "EXP-01-06-M01", "EXP-01-06-M02", "EXP-01-06-M03"]


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


@needs_exp01
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("def test_EXP_01_06_02_04_take_and_refill():", ["EXP-01-06-02", "EXP-01-06-04"]),
        ("def test_EXP_01_06_05_v13_one_additional_action():", ["EXP-01-06-05 (v1.3)"]),
        ("def test_EXP_01_07_04_Rule_Interaction_no_eco():", ["EXP-01-07-04 (Rule Interaction)"]),
        ("def test_EXP_01_06_02_Restrictions_control():", ["EXP-01-06-02 (Restrictions)"]),
        ("def test_EXP_01_06_M08_05_06_two_resorts():", ["EXP-01-06-M08-05", "EXP-01-06-M08-06"]),
        ("def test_EXP_01_02_08_EXP_01_04_01_eco():", ["EXP-01-02-08", "EXP-01-04-01"]),
        ("def test_EXP_01_02_C_04_labor_market():", ["EXP-01-02-C-04 (v1.3)"]),
        ("def test_EXP_01_08_M04_04_v13_this_settlement():", ["EXP-01-08-M04-04 (v1.3)"]),
        ("def test_EXP_01_06_M06_v13_self_deficit():", []),  # a section; "v13" is the edition here
    ],
)
def test_EXP_01_underscored_citations(name, expected):
    cites = rc.cite_underscored(name, SPEC)
    assert (ids(cites), cites.unknown) == (expected, [])


@needs_exp01
def test_EXP_01_an_underscored_section_with_an_edition_word_falls_back_to_the_section():
    cites = rc.cite_underscored("def test_EXP_01_06_M06_v13_self_deficit():", SPEC)
    assert {section for _, section in cites.section} == {"EXP-01-06-M06"}


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
    """Also: no ambiguous EXP-01 citation (a bare EXP-01-07-01..04) and no wrong section suffix."""
    engine = [(where, bad) for where, bad in coverage.unknown if not where.startswith(("test", "R", "BC-"))]
    assert engine == [], "citations in bc_env/rules that name no rule of the spec"


@needs_exp01
def test_EXP_01_every_rule_of_both_texts_is_cited_ruled_or_a_definition(coverage):
    """The per-rule test above, summed up per EXP-01 text (both editions are required)."""
    for name in EXP01_RULES:
        missing = [r.id for r in SPEC.of(name) if rc._status(SPEC, coverage, r.id) == "gap"]
        assert sorted(set(missing) - set(KNOWN_GAPS)) == [], f"{name}: not cited, ruled or a definition"


@needs_exp01
def test_EXP_01_engine_cites_the_reused_and_the_v13_rules_with_their_suffix(coverage):
    for rid in ("EXP-01-06-02 (Restrictions)", "EXP-01-07-01 (Rule Interaction)", "EXP-01-06-05 (v1.3)"):
        assert [w for w in coverage.code.get(rid, []) if "(§" not in w], f"{rid}: no direct citation in bc_env/rules"


def test_rulings_are_read(coverage):
    assert "R3" in coverage.rulings["CORE-01-04-05"]
    assert "R1" in coverage.rulings["CORE-01-00-T03"]  # "CORE-01-00-07..11, T01..T05"
    assert "BC-13" in coverage.rulings["CORE-01-04-12"]
    if HAS_EXP01:
        assert "R20" in coverage.rulings["EXP-01-06-03"]
        assert "BC-20" in coverage.rulings["EXP-01-06-05 (v1.3)"]  # "EXP-01-06-01..05 (v1.3)"
        assert "BC-22" in coverage.rulings["EXP-01-06-M05-03"]  # "EXP-01-06-M02-03/04, -M05-03/04"
        assert "BC-32" in coverage.rulings["EXP-01-02-C-07 (v1.3)"]


# ---------------------------------------------------------------------------- the report


def test_parse_table_ignores_order_and_the_fired_column(coverage):
    plain = rc.render(SPEC, coverage)
    lines = plain.splitlines()
    heads = [i for i, line in enumerate(lines) if line == rc.TABLE_HEAD]
    expected = (3 if HAS_EXP01 else 1) + (SPEC_DIR / "EXP-02.md").is_file() + (SPEC_DIR / "EXP-03.md").is_file()
    assert len(heads) == len(SPEC.sources) == expected  # one table per spec file
    shuffled = list(lines)
    for head in heads:
        start = end = head + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        shuffled[start:end] = reversed(lines[start:end])
    assert shuffled != lines
    assert rc.parse_table("\n".join(shuffled)) == rc.parse_table(plain)
    counts = rc.Counter({"CORE-01-04-04": 5})
    with_fired = rc.render(SPEC, coverage, (counts, ["core-2p"], 1))
    assert "| fired (1 × 1 presets) |" in with_fired
    assert rc.parse_table(with_fired) == rc.parse_table(plain)
    assert set(rc.parse_table(plain)) == SPEC.known


def test_fired_mode_counts_the_rules_in_the_event_log():
    from bc_env.rules import RulesConfig, preset_names

    counts, presets = rc.fired_counts(1, spec=SPEC)
    assert presets == list(preset_names())  # every preset, the expansions' too
    assert "core-4p" in presets and "core-4p-hex" in presets and "all-6p" in presets
    assert {"exp01-2p", "exp01-4p", "exp01-6p", "exp01-v1.3-4p"} <= set(presets)
    assert counts["CORE-01-03-01"] == len(presets)  # one setup event per game
    assert counts["CORE-01-09-03"] == len(presets)  # one game-over event per game
    assert counts["CORE-01-04-04"] >= counts["CORE-01-04-05"] > 0  # draws and placements
    if HAS_EXP01:
        # EXP-01-03-03 (measure-setup, once per deck and game; the shared Measure system logs it for every deck) is
        # a rule of both texts: counted per edition.
        configs = [RulesConfig.preset(p) for p in presets]
        decks = sum(c.exp01 + c.exp02 + c.exp03 for c in configs)
        v13 = sum(c.exp01 + c.exp02 + c.exp03 for c in configs if c.exp01 and c.exp01_edition == "v1.3")
        assert counts["EXP-01-03-03"] == decks - v13 and counts["EXP-01-03-03 (v1.3)"] == v13 > 0
        assert counts["EXP-01-06-02"] > 0  # TakeMeasure


@needs_exp01
def test_fired_mode_reads_event_rules_per_edition():
    """additional-action logs the bare v1.3 ID EXP-01-06-05; it is counted for the v1.3 rule."""
    assert rc.event_rule(SPEC, {"type": "additional-action", "rule": "EXP-01-06-05"}, "v1.3") == "EXP-01-06-05 (v1.3)"
    assert rc.event_rule(SPEC, {"type": "measure-refill", "rule": "EXP-01-06-04"}, "v1.3") == "EXP-01-06-04"
    assert rc.event_rule(SPEC, {"type": "measure-setup", "rule": "EXP-01-03-03"}, "v1.3") == "EXP-01-03-03 (v1.3)"
    assert rc.event_rule(SPEC, {"type": "measure-setup", "rule": "EXP-01-03-03"}, "standalone") == "EXP-01-03-03"
    assert rc.event_rule(SPEC, {"type": "measure-effect", "rule": "EXP-01-08-M02-05"}, "v1.3") == (
        "EXP-01-08-M02-05 (v1.3)"
    )
    assert rc.event_rule(SPEC, {"type": "pass", "rule": "RULINGS-R7"}, "") == "RULINGS-R7"


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
    assert not stale, (
        f"docs/rule-coverage.md is out of date for {stale[:10]}...: run python tools/rule_coverage.py --fired 30"
    )


# ---------------------------------------------------------------------------- EXP-02 and EXP-03

HAS_EXP0203 = all((SPEC_DIR / name).is_file() for name in ("EXP-02.md", "EXP-03.md"))
needs_exp0203 = pytest.mark.skipif(not HAS_EXP0203, reason=f"no EXP-02/EXP-03 texts at {SPEC_DIR}")


@needs_exp0203
def test_EXP_02_and_EXP_03_are_parsed_with_every_printed_rule():
    for name, count in (("EXP-02.md", 134), ("EXP-03.md", 163)):
        printed = re.findall(r"^(EXP-0\d(?:-[0-9A-Z]+){2,})\s", (SPEC_DIR / name).read_text(encoding="utf-8"), re.M)
        rules = SPEC.of(name)
        assert len(rules) == len(printed) == count, name
        assert all(r.section == "" and r.id == r.bare for r in rules)
    # RULINGS R59: EXP-03.md prints its usage-flag rule as EXP-01-07-03; its row is EXP-03-07-03.
    exp03 = [r.bare for r in SPEC.of("EXP-03.md")]
    assert "EXP-03-07-03" in exp03 and not [b for b in exp03 if not b.startswith("EXP-03-")]
    text = {r.id: r.text for r in SPEC.rules}
    assert text["EXP-03-07-03"].startswith("(printed EXP-01-07-03) Per-Round Usage Flags: If a Measure")
    assert text["EXP-03-10-04"].startswith("If both EXP-01 and EXP-03 production modifiers apply")
    assert text["EXP-02-10-05"] == "Blockade overrides all other modifications."


@needs_exp0203
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(EXP-03-08-M01-05/06, RULINGS R53)", ["EXP-03-08-M01-05", "EXP-03-08-M01-06"]),
        ("EXP-02-04-B-01..03", ["EXP-02-04-B-01", "EXP-02-04-B-02", "EXP-02-04-B-03"]),
        ("(EXP-02-02-E, -F, -G-04, EXP-02-05-02", ["EXP-02-02-G-04", "EXP-02-05-02"]),  # -G-04 after a section
        ("EXP-03-10-02 and EXP-02-10-04", ["EXP-03-10-02", "EXP-02-10-04"]),
        ('the cards EXP-02-M03, EXP-03-M12 and f"EXP-03-08-M{n:02d}-04" are no rules', []),
    ],
)
def test_EXP_02_EXP_03_dashed_citations(text, expected):
    cites = rc.cite_dashed(text, SPEC)
    assert (ids(cites), cites.unknown) == (expected, [])


@needs_exp0203
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("def test_EXP_03_10_04_R40_doubling_first():", ["EXP-03-10-04"]),
        ("def test_EXP_02_10_03_EXP_03_10_02_stack():", ["EXP-02-10-03", "EXP-03-10-02"]),
        ("def test_EXP_02_04_B_01_to_03_order():", ["EXP-02-04-B-01", "EXP-02-04-B-02", "EXP-02-04-B-03"]),
        ("def test_exp03_m12_weather():", []),
    ],
)
def test_EXP_02_EXP_03_underscored_citations(name, expected):
    cites = rc.cite_underscored(name, SPEC)
    assert (ids(cites), cites.unknown) == (expected, [])


@needs_exp0203
def test_test_lines_without_01_are_read(tmp_path, monkeypatch):
    """A test line citing only EXP-02/EXP-03 IDs (no "01" in it) counts too."""
    (tmp_path / "test_sample.py").write_text("def test_x():\n    pass  # EXP-02-04-B-02\n", encoding="utf-8")
    monkeypatch.setattr(rc, "TESTS_DIR", tmp_path)
    cov = rc.Coverage()
    rc.scan_tests(SPEC, cov)
    assert cov.tests["EXP-02-04-B-02"] == ["test_sample.py::test_x"]


def test_a_missing_spec_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(rc.SpecNotFoundError, match=r"CORE-01\.md does not exist \(--spec\); give the directory"):
        rc.find_spec_dir(str(tmp_path))
    assert rc.main(["--spec", str(tmp_path), "--stdout"]) == 2
    assert f"{tmp_path / 'CORE-01.md'} does not exist" in capsys.readouterr().err
