#!/usr/bin/env python3
"""Rule-coverage report: every rule ID of CORE-01 (with its topology attachment, VAR-01 and ADD56-01), of
both texts of EXP-01 (``EXP-01.md``, edition standalone; ``EXP-01-v1.3.md``, edition v1.3), of EXP-02 and of
EXP-03, with where the engine cites it, which tests cite it and which rulings read it.

Usage (from the repository root)::

    python tools/rule_coverage.py                # rewrite docs/rule-coverage.md
    python tools/rule_coverage.py --fired 30     # ... with a column: how often each rule fired in events
    python tools/rule_coverage.py --check        # exit 1 when docs/rule-coverage.md is out of date
    python tools/rule_coverage.py --stdout       # print the report instead of writing it

Sources:

* rule IDs and texts: ``<spec>/CORE-01.md``, ``EXP-01.md``, ``EXP-01-v1.3.md``, ``EXP-02.md``, ``EXP-03.md``
  (``--spec``; default ``../shared/spec`` relative to the repository root: ``shared/`` beside the checkout);
* "implemented at": citations in ``bc_env/rules/**/*.py`` (``file:line``, relative to ``bc_env/rules``);
* "tested in": citations in ``tests/**/*.py``, with dashes in comments and docstrings or with underscores in
  names (``test_CORE_01_04_05_...``), reported as ``file::function`` (``file`` for module-level text);
* "ruling": ``RULINGS.md`` R-entries (next to the spec directory) and ``docs/rulings.md`` BC-entries.

Citation grammar (as written in code and rulings): a full ID (``CORE-01-04-05``), optionally followed by
``/NN`` (a list: ``CORE-01-04-06/07``), ``..NN`` (a range of siblings in spec order: ``CORE-01-06-04..08``),
or ``, -NN`` / ``, TNN`` shorthands that replace the last component(s) of the preceding full ID
(``CORE-01-00-01, -05, -06``; ``CORE-01-00-07..11, T01..T05``; ``EXP-01-06-M02-03, -M05-03``). A citation of
a section that is not itself a rule (``VAR-01-01``, ``CORE-01-03``, ``EXP-01-04-B``) is listed as
``(§ VAR-01-01)`` and does not count as a citation of each rule in it. Measure card keys (``EXP-01-M03``)
are not rule IDs.

EXP-01 rule labels (spec README, points 3 and 5). Each row is labelled with its rule ID, except:

* ``EXP-01.md`` reuses IDs: its Restrictions section numbers its rules EXP-01-06-01..06 (the IDs of the
  Political Action extension and TakeMeasure) and its Rule Interaction section EXP-01-07-01..04. A rule whose
  ID does not belong to the ``#`` section it stands in is labelled with that section:
  ``EXP-01-06-02 (Restrictions)``, ``EXP-01-07-01 (Rule Interaction)``;
* every rule of ``EXP-01-v1.3.md`` is labelled ``<ID> (v1.3)``, since many of its IDs name other rules in
  ``EXP-01.md`` (EXP-01-06-02 is TakeMeasure there and the PlayMeasure limit in v1.3).

A citation names such a row with the same suffix right after it, for every ID of the citation:
``EXP-01-06-01..06 (Restrictions)``, ``EXP-01-07-03/04 (v1.3)``. Without a suffix an EXP-01 ID names the rule
of the default edition (``EXP-01.md``) and, where both texts state the same rule under the same ID
(``SAME_RULE``), the v1.3 rule too; an ID that only ``EXP-01-v1.3.md`` has (``EXP-01-08-M01-05``,
``EXP-01-09-03``) names that rule. A bare EXP-01-07-01..04 is ambiguous (Rule Interaction, or the v1.3 Measure
System) and is reported with the citations that name no rule. ``EXP-03.md`` prints its usage-flag rule as
"EXP-01-07-03"; its row is EXP-03-07-03 (RULINGS R59, ``MISPRINTED``). In test names (underscores) the words ``v13``,
``Restrictions`` or ``Rule_Interaction`` right after an ID are its suffix when the ID exists with it
(``test_EXP_01_06_05_v13_...``, ``test_EXP_01_07_04_Rule_Interaction_...``).
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The rule texts are not part of the repository: they sit in ``shared/spec`` beside the checkout.
DEFAULT_SPEC = ROOT.parent / "shared" / "spec"
DOC = ROOT / "docs" / "rule-coverage.md"
ENGINE_DIR = ROOT / "bc_env" / "rules"
TESTS_DIR = ROOT / "tests"
BC_RULINGS = ROOT / "docs" / "rulings.md"
#: Test files that exercise this tool, the docs or the balance report (they quote IDs as sample data, not as
#: rules tested).
EXCLUDED_TESTS = ("test_rule_coverage.py", "test_benchmarking_report.py", "test_benchmarking_tournament.py")

#: The spec files, in report order: (file, label suffix of its rows, title). CORE-01.md is required.
SPEC_FILES: tuple[tuple[str, str, str], ...] = (
    ("CORE-01.md", "", "CORE-01 core rules, VAR-01 variants, ADD56-01 5–6 player add-on"),
    ("EXP-01.md", "", "EXP-01 Economy & Labor, edition `standalone` (the default)"),
    ("EXP-01-v1.3.md", "v1.3", 'EXP-01 Economy & Labor, edition `v1.3` (`exp01_edition = "v1.3"`)'),
    ("EXP-02.md", "", "EXP-02 Security & Order"),
    ("EXP-03.md", "", "EXP-03 Climate & Future"),
)
V13 = "v1.3"
#: The suffixes a citation may carry (spec README 5; "(v1.3)" for the v1.3 text's IDs).
SUFFIXES = ("v1.3", "Restrictions", "Rule Interaction")

#: EXP-01 IDs under which both texts state the same rule (wording aside): an unsuffixed citation names both
#: rows. All other IDs the two texts share name different rules and are told apart by "(v1.3)".
SAME_RULE = frozenset(
    (
        "EXP-01-00-01",  # EXP-01 extends CORE-01
        "EXP-01-00-02",  # CORE-01 remains valid unless overridden
        "EXP-01-00-03",  # EXP-01 introduces ECO
        "EXP-01-00-04",  # victory conditions unchanged
        "EXP-01-03-01",  # ECO ResortTiles shuffled into the DrawPile
        "EXP-01-03-02",  # MeasureDrawPile
        "EXP-01-03-03",  # three OpenMeasures
        "EXP-01-03-04",  # no change to Starting Influence
        "EXP-01-03-05",  # no change to the turn / round structure
        "EXP-01-06-01",  # the five Political Actions
    )
)

#: Printed IDs that name the wrong text (RULINGS R59): EXP-03.md prints its per-round usage-flag rule as
#: "EXP-01-07-03" (between EXP-03-07-02 and -04); its row is EXP-03-07-03, the text says what was printed.
MISPRINTED: dict[tuple[str, str], str] = {("EXP-03.md", "EXP-01-07-03"): "EXP-03-07-03"}

#: Event types whose ``rule`` is a v1.3 rule that the engine logs without its "(v1.3)" suffix (they happen in
#: edition v1.3 only), for the ``fired`` column.
EVENT_SUFFIX = {"additional-action": V13}

#: Rules that define terms, state intent, summarize rules stated elsewhere or restrict other rules
#: (hand-kept: the reason says why no line of code can carry the rule by itself). Keys are row labels.
DEFINITIONS: dict[str, str] = {
    "CORE-01-00-02": "defines what a zone is; moves are transfers between the zone lists of the state",
    "CORE-01-00-09": "requirement on setup; the topology is a required rules option (RULINGS R1)",
    "CORE-01-00-11": "a constraint on the topology attachment; nothing else reads the topology (RULINGS R1)",
    "CORE-01-00-T03": "all adjacency goes through Topology.neighbors (a constraint on the code, see T01)",
    "CORE-01-00-T04": "permission, not behaviour; square and hex exist (RULINGS R1)",
    "CORE-01-00-T05": "a constraint: only topology.py knows the topology (RULINGS R1)",
    "CORE-01-01-01": "intent; the victory metric is implemented by CORE-01-09-03",
    "CORE-01-01-02": "intent: Resources exist solely to enable Influence-related actions",
    "CORE-01-01-03": "summary of CORE-01-05-01",
    "CORE-01-01-04": "summary of CORE-01-05-02",
    "CORE-01-02-04B": "name of a resort (no behaviour)",
    "CORE-01-02-04C": "name of a resort (no behaviour)",
    "CORE-01-02-04D": "name of a resort (no behaviour)",
    "CORE-01-02-04E": "defines the term Resource type",
    "CORE-01-02-04F": "restriction on the resort list; expansions add theirs (config.ALL_RESORTS)",
    "CORE-01-02-04G": "a Resource is counted per resort; the state holds counts per resort",
    "CORE-01-02-05": "summary of CORE-01-06-09..16",
    "CORE-01-02-06": "summary of CORE-01-04-13..19",
    "CORE-01-02-07": "summary of CORE-01-04-20..22",
    "CORE-01-02-08": "summary of CORE-01-05-04..06",
    "CORE-01-02-09": "summary of CORE-01-06-01..07",
    "CORE-01-04-01": "structure; the two phases are CORE-01-04-02/03",
    "CORE-01-04-10": "permission; the action is CORE-01-04-11/12",
    "CORE-01-04-13": "permission; the action is CORE-01-04-14..19",
    "CORE-01-04-20": "permission; the action is CORE-01-04-21/22",
    "CORE-01-06-00-01": "defines the term Effect",
    "CORE-01-10-01": "precedence principle; no tile text in the core game overrides a general rule",
    "CORE-01-10-02": "precedence principle for reading the rules",
    "CORE-01-10-03": "precedence principle for reading the rules",
    "CORE-01-10-04": "principle: no effect without a rule (every state change is a logged event)",
    "VAR-01-01-01": "declares the option; the rules option is tile_recycling",
    "VAR-01-02-01": "declares the option; the rules option is first_player_handicap",
    "VAR-01-02-04": "cross-reference: the handicap (VAR-01-02-02/03) applies to CORE-01-03-04",
    "VAR-01-02-05": "cross-reference: the handicap (VAR-01-02-02/03) applies to CORE-01-03-05",
    "VAR-01-02-06": "cross-reference: the handicap (VAR-01-02-02/03) applies to CORE-01-03-06",
    "VAR-01-02-07": "cross-reference: the handicap (VAR-01-02-02/03) applies to ADD56-01-02-01",
    "VAR-01-02-08": "cross-reference: the handicap (VAR-01-02-02/03) applies to ADD56-01-02-02",
    "ADD56-01-01-01": "summary of ADD56-01-01-02..15",
    "ADD56-01-03-01": "principle: the add-on changes nothing else",
}

#: One component of a rule ID: ``04``, ``04A``, ``T01``, ``M06`` (a Measure) or a single letter (``EXP-01-02-A``).
_COMP = r"(?:T\d{2}|M\d{2}|\d{2}[A-Z]?|[A-Z](?![A-Za-z0-9]))"
RULE_LINE = {
    "CORE": re.compile(rf"^((?:CORE|VAR|ADD56)-01(?:-{_COMP}){{2,}})\s+(.*\S)\s*$"),
    "EXP-01": re.compile(rf"^(EXP-0[123](?:-{_COMP}){{2,}})\s+(.*\S)\s*$"),
}
HEADING = re.compile(r"^#\s+((?:(?:CORE|VAR|ADD56)-01|EXP-0[123])(?:-\d{2})?)\s+(.*\S)\s*$")
FULL_ID = re.compile(rf"(?<![A-Za-z0-9_-])(?:(?:CORE|VAR|ADD56)-01|EXP-0[123])(?:-{_COMP})+(?![A-Za-z0-9])")
CARD_KEY = re.compile(r"EXP-0[123]-M")  # a Measure card key such as EXP-01-M03, not a rule ID
CONT = re.compile(rf"(\.\.|/)({_COMP})(?![A-Za-z0-9])")
SHORTHAND = re.compile(rf"(?:,\s*|\s+(?:and|or)\s+)(?:-({_COMP}(?:-{_COMP})*)|(T\d{{2}}))(?![A-Za-z0-9])")
#: A section suffix after a citation, possibly after item markers: "EXP-01-06-05 (b)-(d) (v1.3)".
SUFFIX = re.compile(rf"(?:\s*\([a-z]\)(?:-\([a-z]\))?)*\s*\(({'|'.join(map(re.escape, SUFFIXES))})\)")
_UCOMP = r"(?:[Tt]\d{2}|M\d{2}|\d{2}[A-Z]?|[A-Z](?![A-Za-z0-9]))"
UNDERSCORE_ID = re.compile(
    rf"(?<![A-Za-z0-9])((?:CORE|VAR|ADD56|core|var|add56)_01|(?:EXP|exp)_0[123])((?:_(?:to_)?{_UCOMP}(?![a-z0-9]))+)"
)
UNDERSCORE_SUFFIX = re.compile(r"_(v13|Restrictions|Rule_Interaction)(?![A-Za-z0-9])")
UNDERSCORE_SUFFIXES = {"v13": "v1.3", "Restrictions": "Restrictions", "Rule_Interaction": "Rule Interaction"}
R_ENTRY = re.compile(r"^- \*\*(R\d+)\b")
BC_ROW = re.compile(r"^\|\s*(BC-\d+)\s*\|")
TABLE_HEAD = "| rule | text | implemented at | tested in | ruling |"
DEF_NOTE = re.compile(r"\s*\(definition: .*\)$")


@dataclass
class Rule:
    #: The row label: the rule ID, with its section where the ID is reused (``EXP-01-06-02 (Restrictions)``).
    id: str
    text: str
    #: The ID as printed in the spec.
    bare: str = ""
    #: The label suffix: "", "Restrictions", "Rule Interaction" or "v1.3".
    section: str = ""
    source: str = "CORE-01.md"

    def __post_init__(self) -> None:
        self.bare = self.bare or self.id


@dataclass
class Citations:
    """The rule IDs a piece of text cites, each directly, via its section, or unresolved."""

    direct: list[str] = field(default_factory=list)
    section: list[tuple[str, str]] = field(default_factory=list)  # (rule label, section cited)
    unknown: list[str] = field(default_factory=list)


def label(bare: str, section: str) -> str:
    return f"{bare} ({section})" if section else bare


class Spec:
    """The rules of every spec file. A rule is found by its bare ID and its scope (its label suffix)."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.ids = [r.id for r in rules]
        self.known = set(self.ids)
        self.position = {rid: i for i, rid in enumerate(self.ids)}
        if len(self.known) != len(self.ids):
            dup = sorted(rid for rid, n in Counter(self.ids).items() if n > 1)
            raise ValueError(f"rule labels are not unique: {dup}")
        self.by_key = {(r.bare, r.section): r.id for r in rules}
        self.scopes: dict[str, list[str]] = defaultdict(list)  # bare ID -> the scopes it exists in
        self.scope_ids: dict[str, list[str]] = defaultdict(list)  # scope -> bare IDs in spec order
        for r in rules:
            self.scopes[r.bare].append(r.section)
            self.scope_ids[r.section].append(r.bare)
        self.scope_pos = {s: {b: i for i, b in enumerate(ids)} for s, ids in self.scope_ids.items()}
        self.sources = list(dict.fromkeys(r.source for r in rules))

    @staticmethod
    def parent(rid: str) -> str:
        return rid.rsplit("-", 1)[0]

    def of(self, source: str) -> list[Rule]:
        return [r for r in self.rules if r.source == source]

    def is_bare(self, bare: str) -> bool:
        return bare in self.scopes

    def under(self, section: str, scope: str = "") -> list[str]:
        """Bare IDs of the rules of ``scope`` inside section ``section`` (e.g. ``CORE-01-03``)."""
        return [b for b in self.scope_ids.get(scope, []) if b.startswith(section + "-")]

    def scope_of(self, bare: str, suffix: str | None) -> str | None:
        """The scope a citation of rule ``bare`` (with ``suffix``) names, or None (unknown or ambiguous)."""
        scopes = self.scopes.get(bare, [])
        if suffix is not None:
            return suffix if suffix in scopes else None
        if "" in scopes:
            return ""
        return scopes[0] if len(scopes) == 1 else None

    def section_scope(self, section: str, suffix: str | None) -> str | None:
        if suffix is not None:
            return suffix if self.under(section, suffix) else None
        if self.under(section, ""):
            return ""
        found = [s for s in self.scope_ids if s and self.under(section, s)]
        return found[0] if len(found) == 1 else None

    def expand_range(self, first: str, last: str, suffix: str | None = None) -> list[str] | None:
        """Bare IDs of the siblings from ``first`` to ``last`` in spec order (None if not a range of rules)."""
        scope = self.scope_of(first, suffix)
        if scope is None or self.scope_of(last, suffix) != scope or self.parent(first) != self.parent(last):
            return None
        pos = self.scope_pos[scope]
        lo, hi = pos[first], pos[last]
        parent = self.parent(first)
        return [b for b in self.scope_ids[scope][lo : hi + 1] if self.parent(b) == parent]

    def section_range(self, first: str, last: str, suffix: str | None = None) -> list[str] | None:
        """Sibling sections from ``first`` to ``last`` (``EXP-01-06-M01..M10``), or None."""
        scope = self.section_scope(first, suffix)
        if scope is None or self.section_scope(last, suffix) != scope or self.parent(first) != self.parent(last):
            return None
        depth = first.count("-") + 1
        found: list[str] = []
        for b in self.scope_ids[scope]:
            parts = b.split("-")
            if len(parts) > depth:
                sec = "-".join(parts[:depth])
                if self.parent(sec) == self.parent(first) and sec not in found:
                    found.append(sec)
        if first not in found or last not in found:
            return None
        return found[found.index(first) : found.index(last) + 1]

    def resolve(self, bare: str, out: Citations, suffix: str | None = None) -> None:
        scope = self.scope_of(bare, suffix)
        if scope is not None:
            out.direct.append(self.by_key[(bare, scope)])
            if suffix is None and scope == "" and bare in SAME_RULE and (bare, V13) in self.by_key:
                out.direct.append(self.by_key[(bare, V13)])
            return
        if suffix is None and len(self.scopes.get(bare, [])) > 1:
            names = " or ".join(label(bare, s) for s in self.scopes[bare])
            out.unknown.append(f"{bare} (ambiguous: {names})")
            return
        scope = self.section_scope(bare, suffix)
        if scope is not None:
            cited = label(bare, scope)
            out.section.extend((self.by_key[(sub, scope)], cited) for sub in self.under(bare, scope))
            return
        out.unknown.append(label(bare, suffix or ""))


class SpecNotFoundError(FileNotFoundError):
    """The rule texts are not where they were looked for; the message names the path and how to give another."""


def find_spec_dir(arg: str | None) -> Path:
    """``arg`` (relative to the current directory, else to the repository root) or ``../shared/spec`` relative to
    the repository root; :class:`SpecNotFoundError` when it holds no ``CORE-01.md``."""
    path = DEFAULT_SPEC
    if arg:
        path = Path(arg)
        if not path.is_absolute() and not path.exists():
            path = ROOT / path
    if not (path / "CORE-01.md").is_file():
        where = "--spec" if arg else "the default, ../shared/spec relative to the repository root"
        raise SpecNotFoundError(
            f"no rule texts: {path / 'CORE-01.md'} does not exist ({where}); "
            "give the directory of CORE-01.md, EXP-01.md, ... with --spec DIR"
        )
    return path


def _strip_item(line: str) -> str:
    return re.sub(r"^(?:[*•-]\s+)", "", line)


def parse_file(path: Path, suffix: str) -> list[Rule]:
    """The rules of one spec file in document order, each with a one-line text.

    A rule whose text does not end with a period takes its continuation lines: a titled rule
    ("Immunity Scope:") its first sentence, a list intro ("add:") its items.
    """
    family = "CORE" if path.name.startswith("CORE") else "EXP-01"
    rule_line = RULE_LINE[family]
    lines = path.read_text(encoding="utf-8").splitlines()
    rules: list[Rule] = []
    heading = ""
    heading_title = ""
    for i, line in enumerate(lines):
        h = HEADING.match(line)
        if h:
            heading, heading_title = h.group(1), h.group(2)
            continue
        m = rule_line.match(line)
        if not m:
            continue
        bare, text = m.group(1), m.group(2)
        printed = bare
        bare = MISPRINTED.get((path.name, bare), bare)
        if not text.endswith("."):
            more: list[str] = []
            j = i + 1
            if text.endswith(":"):
                while j < len(lines) and not lines[j].strip():
                    j += 1  # a list may follow after a blank line
            while j < len(lines):
                nxt = lines[j].strip()
                if not nxt or rule_line.match(nxt) or nxt.startswith("#") or nxt == "---":
                    break
                more.append(_strip_item(nxt))
                j += 1
                if family == "CORE":
                    break  # a titled core rule: its first sentence
            if more:
                text = f"{text.rstrip(':')}: {more[0]}"
                for prev, item in zip(more, more[1:]):
                    text += (" " if prev.endswith((".", ",", ";")) else ", ") + item
        if printed != bare:
            text = f"(printed {printed}) {text}"
        if len(text) > 110:
            text = text[:109].rstrip() + "…"
        section = suffix
        if not suffix and family == "EXP-01" and heading.count("-") == 2 and not bare.startswith(heading + "-"):
            section = heading_title.title()  # a reused ID: "EXP-01-06-02 (Restrictions)"
        rules.append(Rule(label(bare, section), text.replace("|", "/"), bare, section, path.name))
    return rules


def parse_spec(spec_dir: Path) -> Spec:
    """Every rule of ``CORE-01.md`` and, where present, of the EXP-01 texts, in document order."""
    rules: list[Rule] = []
    for name, suffix, _ in SPEC_FILES:
        path = spec_dir / name
        if path.is_file():
            rules += parse_file(path, suffix)
    return Spec(rules)


def _replace_tail(rid: str, comps: str) -> str:
    """Replace the last components of ``rid`` by ``comps`` (as many as ``comps`` has)."""
    k = comps.count("-") + 1
    return "-".join([*rid.split("-")[:-k], comps])


def _shorthand(spec: Spec, rid: str, comps: str) -> str:
    """``rid`` with its tail replaced by the shorthand ``comps``: as many components as ``comps`` has, or, where
    that names no rule or section, fewer (``EXP-02-02-E, -F, -G-04``: -G-04 follows the section -F, so it replaces
    one component and adds one: EXP-02-02-G-04)."""

    def known(cand: str) -> bool:
        return spec.is_bare(cand) or spec.section_scope(cand, None) is not None

    parts = rid.split("-")
    k = comps.count("-") + 1
    first = _replace_tail(rid, comps)
    if known(first):
        return first
    for replaced in range(k - 1, 0, -1):
        cand = "-".join([*parts[: len(parts) - replaced], comps])
        if known(cand):
            return cand
    return first


def cite_dashed(text: str, spec: Spec) -> Citations:
    """Rule IDs cited in ``text`` with dashes, including lists, ranges, shorthands and section suffixes."""
    out = Citations()
    for m in FULL_ID.finditer(text):
        base = m.group(0)
        if base.count("-") < 2 or CARD_KEY.match(base) or text.startswith("{", m.end()):
            continue  # a card key, or an ID built in code (f"EXP-03-08-M{n:02d}-...")
        pos = m.end()
        current = base
        items: list[tuple[str, str | None]] = [(base, None)]  # (ID, start of the range it ends)
        while True:
            c = CONT.match(text, pos)
            if c:
                op, comp = c.groups()
                nxt = _replace_tail(current, comp)
                items.append((nxt, current if op == ".." else None))
                current = nxt
                pos = c.end()
                continue
            s = SHORTHAND.match(text, pos)
            if s:
                current = _shorthand(spec, current, s.group(1) or s.group(2))
                items.append((current, None))
                pos = s.end()
                continue
            break
        sfx = SUFFIX.match(text, pos)
        suffix = sfx.group(1) if sfx else None
        pending: list[str] = []  # IDs to resolve; ranges are expanded on the spot
        for rid, start in items:
            if start is None:
                pending.append(rid)
                continue
            rng = spec.expand_range(start, rid, suffix) or spec.section_range(start, rid, suffix)
            if rng is None:
                out.unknown.append(f"{start}..{rid.rsplit('-', 1)[1]}")
            else:
                pending.extend(rng)
        for rid in dict.fromkeys(pending):
            spec.resolve(rid, out, suffix)
    return out


def _resolve_with_fallback(spec: Spec, bare: str, suffix: str | None, out: Citations) -> None:
    """Resolve with ``suffix``; if the ID does not exist with it, without (test names only)."""
    if suffix is not None:
        tmp = Citations()
        spec.resolve(bare, tmp, suffix)
        if tmp.direct or tmp.section:
            out.direct.extend(r for r in tmp.direct if r not in out.direct)
            out.section.extend(tmp.section)
            return
    spec.resolve(bare, out)


def cite_underscored(text: str, spec: Spec) -> Citations:
    """Rule IDs in identifiers: ``CORE_01_04_05``. Parts after the longest known ID are siblings
    (``CORE_01_04_06_07``); ``_to_`` makes a range (``CORE_01_03_04_to_06``); ``_v13``,
    ``_Restrictions`` or ``_Rule_Interaction`` right after the ID is its suffix."""
    out = Citations()
    for m in UNDERSCORE_ID.finditer(text):
        prefix = m.group(1).upper().replace("_", "-")
        tokens = m.group(2).upper().replace("_TO_", "_~").strip("_").split("_")
        comps = [t.lstrip("~") for t in tokens]
        sfx = UNDERSCORE_SUFFIX.match(text, m.end())
        suffix = UNDERSCORE_SUFFIXES[sfx.group(1)] if sfx else None
        # The longest known ID (or section) made of the leading components; the rest are siblings.
        for k in range(len(comps), 0, -1):
            if any(t.startswith("~") for t in tokens[:k]):
                continue
            rid = "-".join([prefix, *comps[:k]])
            if spec.is_bare(rid) or (k == len(comps) and spec.section_scope(rid, None) is not None):
                break
        else:
            continue
        found = [rid]
        current = rid
        for tok, comp in zip(tokens[k:], comps[k:]):
            nxt = _replace_tail(current, comp)
            if not spec.is_bare(nxt):
                break  # the rest of the name is words, not rule parts
            if tok.startswith("~"):
                rng = spec.expand_range(current, nxt, suffix) or spec.expand_range(current, nxt)
            else:
                rng = [nxt]
            if rng is None:
                break
            found.extend(r for r in rng if r not in found)
            current = nxt
        for bare in found:
            _resolve_with_fallback(spec, bare, suffix, out)
    return out


# ---------------------------------------------------------------------------- sources


@dataclass
class Coverage:
    code: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    tests: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    rulings: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (where, citation)

    def add(self, table: dict[str, list[str]], cites: Citations, where: str) -> None:
        for rid in cites.direct:
            if where not in table[rid]:
                table[rid].append(where)
        for rid, section in cites.section:
            label_ = f"{where} (§ {section})"
            if where not in table[rid] and label_ not in table[rid]:
                table[rid].append(label_)
        for bad in cites.unknown:
            self.unknown.append((where, bad))


def _py_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts and "__pycache__" not in p.parts)


def scan_code(spec: Spec, cov: Coverage) -> None:
    for path in _py_files(ENGINE_DIR):
        rel = path.relative_to(ENGINE_DIR).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "-01" in line or "EXP-0" in line:
                cov.add(cov.code, cite_dashed(line, spec), f"{rel}:{n}")


def _functions(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every top-level function and method, decorators included."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.append((first, node.end_lineno or node.lineno, prefix + node.name))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")

    visit(tree.body, "")
    return out


def scan_tests(spec: Spec, cov: Coverage) -> None:
    if not TESTS_DIR.is_dir():
        return
    for path in _py_files(TESTS_DIR):
        if path.name in EXCLUDED_TESTS:
            continue
        rel = path.relative_to(TESTS_DIR).as_posix()
        source = path.read_text(encoding="utf-8")
        funcs = _functions(source)
        for n, line in enumerate(source.splitlines(), 1):
            if "01" not in line and "EXP" not in line:
                continue
            owner = next((name for lo, hi, name in funcs if lo <= n <= hi), None)
            where = f"{rel}::{owner}" if owner else rel
            cov.add(cov.tests, cite_dashed(line, spec), where)
            cov.add(cov.tests, cite_underscored(line, spec), where)


def scan_rulings(spec: Spec, cov: Coverage, spec_dir: Path) -> None:
    shared = spec_dir.parent / "RULINGS.md"
    if shared.is_file():
        entry, text = None, ""
        for line in [*shared.read_text(encoding="utf-8").splitlines(), ""]:
            m = R_ENTRY.match(line)
            if entry and (m or not line.startswith(" ")):
                cov.add(cov.rulings, cite_dashed(text, spec), entry)
                entry, text = None, ""
            if m:
                entry, text = m.group(1), line
            elif entry:
                text += " " + line.strip()
    if BC_RULINGS.is_file():
        for line in BC_RULINGS.read_text(encoding="utf-8").splitlines():
            m = BC_ROW.match(line)
            if m:
                cov.add(cov.rulings, cite_dashed(line, spec), m.group(1))


def collect(spec: Spec, spec_dir: Path) -> Coverage:
    cov = Coverage()
    scan_code(spec, cov)
    scan_tests(spec, cov)
    scan_rulings(spec, cov, spec_dir)
    return cov


def event_rule(spec: Spec, event: dict, edition: str) -> str:
    """The row an event's ``rule`` names (the rule string itself for rulings and unknown IDs).

    A rule of both texts (``SAME_RULE``) counts for the edition of the game; ``EVENT_SUFFIX`` adds the suffix
    the engine leaves out."""
    rule = event["rule"]
    suffix = EVENT_SUFFIX.get(event["type"])
    cites = cite_dashed(f"{rule} ({suffix})" if suffix else rule, spec)
    if len(cites.direct) == 1:
        return cites.direct[0]
    if len(cites.direct) == 2:  # SAME_RULE: the standalone and the v1.3 row
        return cites.direct[1] if edition == V13 else cites.direct[0]
    return rule


def fired_counts(games: int, seed: int = 0, spec: Spec | None = None) -> tuple[Counter[str], list[str]]:
    """How often each rule appears in ``game.events`` over ``games`` random games per preset (every preset)."""
    sys.path.insert(0, str(ROOT))
    from bc_env.rules import Game, RulesConfig, preset_names

    if spec is None:
        spec = parse_spec(find_spec_dir(None))
    presets = list(preset_names())
    counts: Counter[str] = Counter()
    cache: dict[tuple[str, str, str], str] = {}
    for i, preset in enumerate(presets):
        config = RulesConfig.preset(preset)
        edition = config.exp01_edition if config.exp01 else ""
        for k in range(games):
            game = Game.new(config, seed + k)
            rng = random.Random((i << 32) + seed + k)  # the policy's own RNG; the game has its own
            while not game.is_terminal():
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
            for e in game.events:
                key = (e["type"], e["rule"], edition)
                if key not in cache:
                    cache[key] = event_rule(spec, e, edition)
                counts[cache[key]] += 1
    return counts, presets


# ---------------------------------------------------------------------------- report


def _status(spec: Spec, cov: Coverage, rid: str) -> str:
    direct_code = any("(§" not in w for w in cov.code.get(rid, []))
    direct_ruling = any("(§" not in w for w in cov.rulings.get(rid, []))
    if direct_code:
        return "implemented"
    if rid in DEFINITIONS:
        return "definition"
    if direct_ruling:
        return "ruling"
    return "gap"


def gaps(spec: Spec, cov: Coverage) -> list[str]:
    """Rule labels that are neither cited in engine code, nor read by a ruling, nor a definition."""
    return [rid for rid in spec.ids if _status(spec, cov, rid) == "gap"]


def uncited_in_code(spec: Spec, cov: Coverage, source: str | None = None) -> list[str]:
    """Rule labels without a direct citation in the engine code (definitions excluded)."""
    return [
        r.id
        for r in spec.rules
        if (source is None or r.source == source)
        and r.id not in DEFINITIONS
        and not any("(§" not in w for w in cov.code.get(r.id, []))
    ]


def _cell(where: list[str]) -> str:
    """Citations of one column; section-only citations are shown when there is no direct one."""
    direct = [w for w in where if "(§" not in w]
    return ", ".join(direct or where)


def table_rows(spec: Spec, cov: Coverage, source: str | None = None) -> list[list[str]]:
    rows = []
    for rule in spec.rules:
        if source is not None and rule.source != source:
            continue
        rid = rule.id
        impl = _cell(cov.code.get(rid, []))
        if rid in DEFINITIONS:
            note = f"(definition: {DEFINITIONS[rid]})"
            impl = f"{impl} {note}" if impl else note
        rows.append(
            [
                rid,
                rule.text,
                impl or "—",
                _cell(cov.tests.get(rid, [])) or "—",
                _cell(cov.rulings.get(rid, [])) or "—",
            ]
        )
    return rows


def _summary(spec: Spec, cov: Coverage, source: str) -> str:
    ids = [r.id for r in spec.of(source)]
    statuses = Counter(_status(spec, cov, rid) for rid in ids)
    tested = sum(1 for rid in ids if cov.tests.get(rid))
    return (
        f"{len(ids)} rules: {statuses['implemented']} cited in the engine, {statuses['definition']} "
        f"definitions, {statuses['ruling']} only read by a ruling, {statuses['gap']} neither; "
        f"{tested} cited by a test"
    )


def render(spec: Spec, cov: Coverage, fired: tuple[Counter[str], list[str], int] | None = None) -> str:
    titles = {name: title for name, _, title in SPEC_FILES}
    out = [
        "# Rule coverage",
        "",
        "Generated by `python tools/rule_coverage.py` from `spec/CORE-01.md`, `spec/EXP-01.md`,",
        "`spec/EXP-01-v1.3.md`, `spec/EXP-02.md` and `spec/EXP-03.md`, the engine code, the tests and the rulings.",
        "Do not edit by hand: run the tool to refresh it (`--fired N` adds how often each rule fired in the event",
        "log of N random games per preset; `--check` tells whether this file is up to date).",
        "",
        "- *implemented at*: citations in `bc_env/rules/` (`file:line`);",
        "- *tested in*: citations in `tests/` (`file::test`); test names write IDs with underscores;",
        "- *ruling*: `R<n>` in `../shared/RULINGS.md`, `BC-<nn>` in [`rulings.md`](rulings.md);",
        "- `(§ X)`: cited only as part of section X (shown when nothing cites the rule itself);",
        "- *definition*: a rule with no behaviour of its own (the reason is kept in the tool's `DEFINITIONS`).",
        "",
        "EXP-01 labels (spec README 3 and 5): `EXP-01.md` reuses EXP-01-06-01..06 in its Restrictions section and",
        "EXP-01-07-01..04 in its Rule Interaction section, so those rows read `EXP-01-06-02 (Restrictions)`,",
        "`EXP-01-07-01 (Rule Interaction)`; every rule of `EXP-01-v1.3.md` reads `<ID> (v1.3)`. Code cites them the",
        "same way. An EXP-01 ID without a suffix names the standalone rule, and also the v1.3 rule where both",
        "texts state the same rule under that ID (the tool's `SAME_RULE`), or the v1.3 rule if only v1.3 has it.",
        "`EXP-03.md` prints its per-round usage-flag rule as EXP-01-07-03; its row is EXP-03-07-03 (RULINGS R59).",
        "",
    ]
    for source in spec.sources:
        out.append(f"- `{source}`: {_summary(spec, cov, source)}.")
    for source in spec.sources:
        rows = table_rows(spec, cov, source)
        head = TABLE_HEAD
        sep = "|---|---|---|---|---|"
        if fired is not None:
            counts, presets, games = fired
            head += f" fired ({games} × {len(presets)} presets) |"
            sep += "--:|"
            for row in rows:
                row.append(str(counts.get(row[0], 0)))
        out += ["", f"## `{source}`: {titles.get(source, source)}", "", head, sep]
        out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", "## Rules without a citation in the engine code", ""]
    for source in spec.sources:
        missing = uncited_in_code(spec, cov, source)
        out.append(f"- `{source}`: {', '.join(missing) if missing else 'none'}.")
    if cov.unknown:
        out += ["", "## Citations that name no rule of the spec", ""]
        out += [f"- `{where}`: `{bad}`" for where, bad in sorted(set(cov.unknown))]
    if fired is not None:
        counts, presets, games = fired
        other = sorted((r, n) for r, n in counts.items() if r not in spec.known)
        out += ["", "## Events citing rulings or other rules", ""]
        out += [f"Presets: {', '.join(presets)}; {games} games each."]
        out += [""] + ([f"- `{r}`: {n}" for r, n in other] or ["None fired."])
    return "\n".join(out) + "\n"


def parse_table(markdown: str) -> dict[str, tuple[str, frozenset[str], frozenset[str], frozenset[str]]]:
    """The coverage tables of a report, order-free: rule -> (text, code, tests, rulings); ignores ``fired``."""
    rows = {}
    in_table = False
    for line in markdown.splitlines():
        if line.startswith(TABLE_HEAD):
            in_table = True
            continue
        if not in_table or line.startswith("|---"):
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rid, text, impl, tests, ruling = cells[:5]
        note = DEF_NOTE.search(impl)
        impl_items = impl[: note.start()] if note else impl

        def items(cell: str) -> frozenset[str]:
            return frozenset() if cell in ("—", "") else frozenset(x.strip() for x in cell.split(", "))

        code = items(impl_items.strip()) | ({note.group(0).strip()} if note else set())
        rows[rid] = (text, frozenset(code), items(tests), items(ruling))
    return rows


def build(spec_arg: str | None = None, fired: int = 0) -> str:
    spec_dir = find_spec_dir(spec_arg)
    spec = parse_spec(spec_dir)
    cov = collect(spec, spec_dir)
    extra = None
    if fired:
        counts, presets = fired_counts(fired, spec=spec)
        extra = (counts, presets, fired)
    return render(spec, cov, extra)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", help="spec directory (default ../shared/spec relative to the repository root)")
    ap.add_argument("--fired", type=int, default=0, metavar="N", help="play N random games per preset")
    ap.add_argument("--out", default=str(DOC), help="output file (default docs/rule-coverage.md)")
    ap.add_argument("--stdout", action="store_true", help="print the report instead of writing it")
    ap.add_argument("--check", action="store_true", help="exit 1 if the output file's tables are out of date")
    args = ap.parse_args(argv)
    try:
        spec_dir = find_spec_dir(args.spec)
    except SpecNotFoundError as exc:
        print(f"rule_coverage: {exc}", file=sys.stderr)
        return 2
    report = build(str(spec_dir), args.fired)
    out = Path(args.out)
    if args.check:
        current = out.read_text(encoding="utf-8") if out.is_file() else ""
        if parse_table(current) != parse_table(report):
            print(f"{out} is out of date: run python tools/rule_coverage.py", file=sys.stderr)
            return 1
        return 0
    if args.stdout:
        sys.stdout.write(report)
        return 0
    out.write_text(report, encoding="utf-8")
    spec = parse_spec(spec_dir)
    cov = collect(spec, spec_dir)
    missing = uncited_in_code(spec, cov)
    print(f"wrote {out}: {len(spec.ids)} rules, {len(missing)} without a citation in the engine code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
