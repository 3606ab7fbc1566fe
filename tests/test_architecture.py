"""The import graph keeps docs/architecture.md true (issue 31, items 4 and 6): every package imports only the
layers below it, no module imports another package's private names, and there is no import circle outside the
engine's type-checking imports.

The checker reads the sources with ``ast`` (nothing is imported), so a lazy import inside a function counts as an
arrow too: an upward arrow is a wrong dependency wherever it is written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The layers, bottom first (docs/architecture.md, "Layers"). A module may import its own layer and the ones
#: before it in this list, never one after it. Layers on one line share a level and may not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("bc_env.rules",),
    ("bc_env.encoding",),
    ("bc_env.env",),
    ("bc_env",),  # bc_env's own modules: the package's entry points (bc_env.env(...), the Gymnasium ids)
    ("bc_env.vector",),  # batched games for learners
    ("bc_env.bench",),  # the benchmarks of the engine, the environment and the batched environment
    ("policies",),
    ("benchmarking",),
    ("training",),
    ("embedding",),
    ("balance_control",),
]
#: Where the checked packages live; tools/ and examples/ are scripts at the top and may import anything.
PACKAGES = ("bc_env", "policies", "benchmarking", "training", "embedding", "balance_control")


def layer_of(module: str) -> str:
    """The layer a dotted module name belongs to: its top package, or bc_env's subpackage."""
    parts = module.split(".")
    if parts[0] == "bc_env" and len(parts) > 1 and f"bc_env.{parts[1]}" in LEVEL:
        return f"bc_env.{parts[1]}"
    return parts[0]


LEVEL = {name: level for level, names in enumerate(LAYERS) for name in names}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, root: Path) -> Iterator[tuple[str, str | None, int, bool]]:
    """(imported module, imported name or None, line, at module level outside TYPE_CHECKING) per import."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, str | None, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, None, child.lineno, top
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                for alias in child.names:
                    yield target, alias.name, child.lineno, top
            elif (
                isinstance(child, ast.If)
                and _is_type_checking(child)
                or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            ):
                yield from walk(child, False)
            else:
                yield from walk(child, top)

    yield from walk(tree, True)


def _is_module(root: Path, dotted: str) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def check(root: Path) -> tuple[list[str], list[str], list[list[str]]]:
    """(upward arrows, private imports across packages, import circles) of the packages under root."""
    upward: list[str] = []
    private: list[str] = []
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            source_layer = layer_of(module)
            graph.setdefault(module, set())
            for target, name, line, top in imports(path, root):
                if target.split(".")[0] not in PACKAGES:
                    continue
                target_layer = layer_of(target)
                where = f"{path.relative_to(root)}:{line}"
                if source_layer != target_layer and LEVEL[target_layer] >= LEVEL[source_layer]:
                    upward.append(f"{where}: {source_layer} imports {target} ({target_layer} is not below it)")
                if source_layer != target_layer:
                    names = [*target.split(".")[1:], name or ""]
                    if any(n.startswith("_") and not n.startswith("__") for n in names):
                        private.append(f"{where}: {module} imports the private {target}{'.' + name if name else ''}")
                if top:
                    # `from package import module` depends on that module (its package is always imported first,
                    # and a submodule's own package is already being imported); `from module import name` on the
                    # module that defines the name
                    graph[module].add(f"{target}.{name}" if name and _is_module(root, f"{target}.{name}") else target)
    circles = [c for c in cycles(graph) if not all(m.startswith("bc_env.rules") for m in c)]
    return upward, private, circles


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_package_imports_upwards_or_privately_and_there_is_no_import_circle() -> None:
    upward, private, circles = check(ROOT)
    assert not upward, "upward imports (docs/architecture.md, Layers):\n" + "\n".join(upward)
    assert not private, "private names imported across packages:\n" + "\n".join(private)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_every_package_is_in_a_layer_and_on_the_architecture_page() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for package in PACKAGES:
        for path in (ROOT / package).iterdir():
            if path.is_dir() and (path / "__init__.py").exists():
                name = module_name(path / "__init__.py", ROOT)
                assert layer_of(name) in LEVEL, f"{name} belongs to no layer"
                assert f"{path.relative_to(ROOT).as_posix()}/" in page, f"{name} is missing from docs/architecture.md"
        assert f"{package}/" in page


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
    return tmp_path


@pytest.mark.parametrize(
    ("files", "kind"),
    [
        ({"bc_env/rules/game.py": "def f():\n    import policies\n"}, "upward"),
        ({"bc_env/env/aec.py": "from training.train import train\n"}, "upward"),
        ({"policies/bot.py": "from bc_env.rules.game import _secret\n"}, "private"),
        ({"benchmarking/a.py": "from . import b\n", "benchmarking/b.py": "from benchmarking import a\n"}, "circle"),
    ],
)
def test_the_checker_finds_each_kind_of_wrong_arrow(tmp_path: Path, files: dict[str, str], kind: str) -> None:
    upward, private, circles = check(_tree(tmp_path, files))
    found = {"upward": upward, "private": private, "circle": circles}
    assert found[kind] and not any(v for k, v in found.items() if k != kind)


def test_the_checker_allows_downward_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    files = {
        "policies/bot.py": "from bc_env.rules import Game\n",
        "bc_env/rules/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "bc_env/rules/b.py": "from .a import A\n",
        "training/t.py": "import policies\n\ndef f():\n    import benchmarking\n",
    }
    assert check(_tree(tmp_path, files)) == ([], [], [])
