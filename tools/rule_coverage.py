#!/usr/bin/env python3
"""Rule-coverage report: every rule ID of CORE-01, its topology attachment, VAR-01 and ADD56-01, with
where the engine cites it, which tests cite it and which rulings read it.

Usage (from the repository root)::

    python tools/rule_coverage.py                # rewrite docs/rule-coverage.md
    python tools/rule_coverage.py --fired 200    # ... with a column: how often each rule fired in events
    python tools/rule_coverage.py --check        # exit 1 when docs/rule-coverage.md is out of date
    python tools/rule_coverage.py --stdout       # print the report instead of writing it

Sources:

* rule IDs and texts: ``<spec>/CORE-01.md`` (``--spec``; default ``../shared/spec`` relative to the
  repository root, falling back to ``/work/shared/spec``);
* "implemented at": citations in ``bc_env/rules/**/*.py`` (``file:line``, relative to ``bc_env/rules``);
* "tested in": citations in ``tests/**/*.py``, with dashes in comments and docstrings or with underscores in
  names (``test_CORE_01_04_05_...``), reported as ``file::function`` (``file`` for module-level text);
* "ruling": ``RULINGS.md`` R-entries (next to the spec directory) and ``docs/rulings.md`` BC-entries.

Citation grammar (as written in code and rulings): a full ID (``CORE-01-04-05``), optionally followed by
``/NN`` (a list: ``CORE-01-04-06/07``), ``..NN`` (a range of siblings in spec order: ``CORE-01-06-04..08``),
or ``, -NN`` / ``, TNN`` shorthands that replace the last component of the preceding full ID
(``CORE-01-00-01, -05, -06``; ``CORE-01-00-07..11, T01..T05``). A citation of a section that is not
itself a rule (``VAR-01-01``, ``CORE-01-03``) is listed as ``(§ VAR-01-01)`` and does not count as a
citation of each rule in it.
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
DEFAULT_SPEC = ROOT.parent / "shared" / "spec"
FALLBACK_SPEC = Path("/work/shared/spec")
DOC = ROOT / "docs" / "rule-coverage.md"
ENGINE_DIR = ROOT / "bc_env" / "rules"
TESTS_DIR = ROOT / "tests"
BC_RULINGS = ROOT / "docs" / "rulings.md"
#: Test files that exercise this tool or the docs (they quote IDs as sample data, not as rules tested).
EXCLUDED_TESTS = ("test_rule_coverage.py",)

#: Rules that define terms, state intent, summarize rules stated elsewhere or restrict other rules
#: (hand-kept: the reason says why no line of code can carry the rule by itself).
DEFINITIONS: dict[str, str] = {
    "CORE-01-00-02": "defines what a zone is; moves are transfers between the zone lists of the state",
    "CORE-01-00-09": "requirement on setup; the topology is a required rules option (RULINGS R1)",
    "CORE-01-00-11": "a constraint on the topology attachment; nothing else reads the topology (RULINGS R1)",
    "CORE-01-00-12": "expansion zones; no expansion is implemented yet",
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

RULE_LINE = re.compile(r"^((?:CORE|VAR|ADD56)-01(?:-(?:T\d{2}|\d{2}[A-Z]?)){2,})\s+(.*\S)\s*$")
_COMP = r"(?:T\d{2}|\d{2}[A-Z]?)"
FULL_ID = re.compile(rf"(?<![A-Za-z0-9_-])(?:CORE|VAR|ADD56)-01(?:-{_COMP})+(?![A-Za-z0-9])")
CONT = re.compile(rf"(\.\.|/)({_COMP})(?![A-Za-z0-9])")
SHORTHAND = re.compile(rf"(?:,\s*|\s+(?:and|or)\s+)(?:-({_COMP})|(T\d{{2}}))(?![A-Za-z0-9])")
UNDERSCORE_ID = re.compile(
    r"(?<![A-Za-z0-9])(?:CORE|VAR|ADD56|core|var|add56)_01((?:_(?:to_)?(?:[Tt]\d{2}|\d{2}[A-Z]?)(?![a-z0-9]))+)"
)
R_ENTRY = re.compile(r"^- \*\*(R\d+)\b")
BC_ROW = re.compile(r"^\|\s*(BC-\d+)\s*\|")
TABLE_HEAD = "| rule | text | implemented at | tested in | ruling |"
DEF_NOTE = re.compile(r"\s*\(definition: .*\)$")


@dataclass
class Rule:
    id: str
    text: str


@dataclass
class Citations:
    """The rule IDs a piece of text cites, each directly, via its section, or unresolved."""

    direct: list[str] = field(default_factory=list)
    section: list[tuple[str, str]] = field(default_factory=list)  # (rule id, section cited)
    unknown: list[str] = field(default_factory=list)


class Spec:
    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.ids = [r.id for r in rules]
        self.known = set(self.ids)
        self.position = {rid: i for i, rid in enumerate(self.ids)}

    @staticmethod
    def parent(rid: str) -> str:
        return rid.rsplit("-", 1)[0]

    def under(self, section: str) -> list[str]:
        return [rid for rid in self.ids if rid.startswith(section + "-")]

    def expand_range(self, first: str, last: str) -> list[str] | None:
        """Siblings of ``first`` from ``first`` to ``last`` in spec order (None if either is unknown)."""
        if first not in self.known or last not in self.known or self.parent(first) != self.parent(last):
            return None
        lo, hi = self.position[first], self.position[last]
        parent = self.parent(first)
        return [rid for rid in self.ids[lo : hi + 1] if self.parent(rid) == parent]

    def resolve(self, rid: str, out: Citations) -> None:
        if rid in self.known:
            out.direct.append(rid)
        elif self.under(rid):
            out.section.extend((sub, rid) for sub in self.under(rid))
        else:
            out.unknown.append(rid)


def find_spec_dir(arg: str | None) -> Path:
    if arg:
        path = Path(arg)
        if not path.is_absolute() and not path.exists():
            path = ROOT / path  # relative to the repository root unless it exists from here
        return path
    return DEFAULT_SPEC if (DEFAULT_SPEC / "CORE-01.md").is_file() else FALLBACK_SPEC


def parse_spec(spec_dir: Path) -> Spec:
    """Every rule ID of ``CORE-01.md`` in document order, with a one-line text."""
    lines = (spec_dir / "CORE-01.md").read_text(encoding="utf-8").splitlines()
    rules: list[Rule] = []
    for i, line in enumerate(lines):
        m = RULE_LINE.match(line)
        if not m:
            continue
        rid, text = m.group(1), m.group(2)
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not text.endswith(".") and nxt and not RULE_LINE.match(nxt) and not nxt.startswith("#"):
            text = f"{text.rstrip(':')}: {nxt}"  # a titled rule ("Immunity Scope:") + its first sentence
        if len(text) > 110:
            text = text[:109].rstrip() + "…"
        rules.append(Rule(rid, text.replace("|", "/")))
    return Spec(rules)


def _replace_last(rid: str, comp: str) -> str:
    return f"{Spec.parent(rid)}-{comp}"


def cite_dashed(text: str, spec: Spec) -> Citations:
    """Rule IDs cited in ``text`` with dashes, including lists, ranges and shorthands."""
    out = Citations()
    for m in FULL_ID.finditer(text):
        base = m.group(0)
        if base.count("-") < 2:
            continue
        pos = m.end()
        current = base
        pending = [base]  # IDs to resolve; ranges are expanded on the spot
        while True:
            c = CONT.match(text, pos)
            if c:
                op, comp = c.groups()
                nxt = _replace_last(current, comp)
                if op == "..":
                    rng = spec.expand_range(current, nxt)
                    if rng is None:
                        out.unknown.append(f"{current}..{comp}")
                    else:
                        pending.extend(rng)
                else:
                    pending.append(nxt)
                current = nxt
                pos = c.end()
                continue
            s = SHORTHAND.match(text, pos)
            if s:
                comp = s.group(1) or s.group(2)
                current = _replace_last(current, comp)
                pending.append(current)
                pos = s.end()
                continue
            break
        for rid in dict.fromkeys(pending):
            spec.resolve(rid, out)
    return out


def cite_underscored(text: str, spec: Spec) -> Citations:
    """Rule IDs in identifiers: ``CORE_01_04_05``. Parts after the longest known ID are siblings
    (``CORE_01_04_06_07``); ``_to_`` makes a range (``CORE_01_03_04_to_06``)."""
    out = Citations()
    for m in UNDERSCORE_ID.finditer(text):
        prefix = m.group(0).split("_", 1)[0].upper()
        tokens = m.group(1).upper().replace("_TO_", "_~").strip("_").split("_")
        comps = [t.lstrip("~") for t in tokens]
        # The longest known ID (or section) made of the leading components; the rest are siblings.
        for k in range(len(comps), 0, -1):
            if any(t.startswith("~") for t in tokens[:k]):
                continue
            rid = "-".join([prefix, "01", *comps[:k]])
            if rid in spec.known or (k == len(comps) and spec.under(rid)):
                break
        else:
            continue
        if k == len(comps):
            spec.resolve(rid, out)
            continue
        out.direct.append(rid)
        current = rid
        for tok, comp in zip(tokens[k:], comps[k:]):
            nxt = _replace_last(current, comp)
            rng = spec.expand_range(current, nxt) if tok.startswith("~") else [nxt]
            if rng is None or nxt not in spec.known:
                break  # the rest of the name is words, not rule parts
            out.direct.extend(r for r in rng if r not in out.direct)
            current = nxt
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
            label = f"{where} (§ {section})"
            if where not in table[rid] and label not in table[rid]:
                table[rid].append(label)
        for bad in cites.unknown:
            self.unknown.append((where, bad))


def _py_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts and "__pycache__" not in p.parts)


def scan_code(spec: Spec, cov: Coverage) -> None:
    for path in _py_files(ENGINE_DIR):
        rel = path.relative_to(ENGINE_DIR).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "-01" in line:
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
            if "01" not in line:
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


def fired_counts(games: int, seed: int = 0) -> tuple[Counter[str], list[str]]:
    """How often each ``rule`` appears in ``game.events`` over ``games`` random games per core preset."""
    sys.path.insert(0, str(ROOT))
    from bc_env.rules import Game, preset_names

    presets = [p for p in preset_names() if p.startswith("core-")]
    counts: Counter[str] = Counter()
    for i, preset in enumerate(presets):
        for k in range(games):
            game = Game.new(preset, seed + k)
            rng = random.Random((i << 32) + seed + k)  # the policy's own RNG; the game has its own
            while not game.is_terminal():
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
            counts.update(e["rule"] for e in game.events)
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
    """Rule IDs that are neither cited in engine code, nor read by a ruling, nor a definition."""
    return [rid for rid in spec.ids if _status(spec, cov, rid) == "gap"]


def uncited_in_code(spec: Spec, cov: Coverage) -> list[str]:
    """Rule IDs without a direct citation in the engine code (definitions excluded)."""
    return [rid for rid in spec.ids if rid not in DEFINITIONS and not any("(§" not in w for w in cov.code.get(rid, []))]


def _cell(where: list[str]) -> str:
    """Citations of one column; section-only citations are shown when there is no direct one."""
    direct = [w for w in where if "(§" not in w]
    return ", ".join(direct or where)


def table_rows(spec: Spec, cov: Coverage) -> list[list[str]]:
    rows = []
    for rule in spec.rules:
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


def render(spec: Spec, cov: Coverage, fired: tuple[Counter[str], list[str], int] | None = None) -> str:
    rows = table_rows(spec, cov)
    statuses = Counter(_status(spec, cov, rid) for rid in spec.ids)
    tested = sum(1 for rid in spec.ids if cov.tests.get(rid))
    out = [
        "# Rule coverage",
        "",
        "Generated by `python tools/rule_coverage.py` from `spec/CORE-01.md`, the engine code, the tests and the",
        "rulings. Do not edit by hand: run the tool to refresh it (`--fired N` adds how often each rule fired in",
        "the event log of N random games per core preset; `--check` tells whether this file is up to date).",
        "",
        "- *implemented at*: citations in `bc_env/rules/` (`file:line`);",
        "- *tested in*: citations in `tests/` (`file::test`); test names write IDs with underscores;",
        "- *ruling*: `R<n>` in `../shared/RULINGS.md`, `BC-<nn>` in [`rulings.md`](rulings.md);",
        "- `(§ X)`: cited only as part of section X (shown when nothing cites the rule itself);",
        "- *definition*: a rule with no behaviour of its own (the reason is kept in the tool's `DEFINITIONS`).",
        "",
        f"{len(spec.ids)} rules: {statuses['implemented']} cited in the engine, {statuses['definition']} "
        f"definitions, {statuses['ruling']} only read by a ruling, {statuses['gap']} neither; "
        f"{tested} cited by a test.",
        "",
    ]
    head = TABLE_HEAD
    sep = "|---|---|---|---|---|"
    if fired is not None:
        counts, presets, games = fired
        head += f" fired ({games} × {len(presets)} presets) |"
        sep += "--:|"
        for row in rows:
            row.append(str(counts.get(row[0], 0)))
    out += [head, sep]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    missing = uncited_in_code(spec, cov)
    out += ["", "## Rules without a citation in the engine code", ""]
    out += [", ".join(missing) if missing else "None."]
    if cov.unknown:
        out += ["", "## Citations that name no rule of CORE-01.md", ""]
        out += [f"- `{where}`: `{bad}`" for where, bad in sorted(set(cov.unknown))]
    if fired is not None:
        counts, presets, games = fired
        other = sorted((r, n) for r, n in counts.items() if r not in spec.known)
        out += ["", "## Events citing rulings or other rules", ""]
        out += [f"Presets: {', '.join(presets)}; {games} games each."]
        out += [""] + ([f"- `{r}`: {n}" for r, n in other] or ["None fired."])
    return "\n".join(out) + "\n"


def parse_table(markdown: str) -> dict[str, tuple[str, frozenset[str], frozenset[str], frozenset[str]]]:
    """The coverage table of a report, order-free: rule -> (text, code, tests, rulings); ignores ``fired``."""
    rows = {}
    in_table = False
    for line in markdown.splitlines():
        if line.startswith(TABLE_HEAD):
            in_table = True
            continue
        if not in_table or line.startswith("|---"):
            continue
        if not line.startswith("|"):
            break
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
        counts, presets = fired_counts(fired)
        extra = (counts, presets, fired)
    return render(spec, cov, extra)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", help="spec directory (default ../shared/spec, else /work/shared/spec)")
    ap.add_argument("--fired", type=int, default=0, metavar="N", help="play N random games per core preset")
    ap.add_argument("--out", default=str(DOC), help="output file (default docs/rule-coverage.md)")
    ap.add_argument("--stdout", action="store_true", help="print the report instead of writing it")
    ap.add_argument("--check", action="store_true", help="exit 1 if the output file's table is out of date")
    args = ap.parse_args(argv)
    spec_dir = find_spec_dir(args.spec)
    if not (spec_dir / "CORE-01.md").is_file():
        print(f"rule_coverage: {spec_dir / 'CORE-01.md'} not found (use --spec)", file=sys.stderr)
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
