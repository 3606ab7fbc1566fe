"""Suite-wide hooks.

* Tests marked ``pure_engine`` patch engine internals (module globals such as ``game.expansions_for``), which
  compiled code does not see: they are skipped on the compiled build, and scripts/test.sh runs them on the pure
  build (``BC_PURE_PYTHON=1``, bc_env/_build.py).
* **The suite's budget** (issue 31): every test's CPU time (the test process's own plus that of the child processes
  it waited for, setup and teardown included) is measured where it runs, also under pytest-xdist, and the run ends
  with a table of the slowest tests. CPU seconds, not wall-clock: the figure grows far less than the wall time when
  the machine is loaded (still a quarter to a half more under a load average of 5-9, and the machine's own speed
  varies by about a third between quiet runs). ``BC_TEST_CPU_BUDGET=SECONDS`` (scripts/test.sh sets it) makes the
  run fail when the tests' CPU time adds up to more, and ``BC_TEST_CPU_PER_TEST`` when one test alone takes more; a
  failing budget names the tests to make cheaper (a smaller sample in the test, the full-size run as a recorded
  script, docs/testing.md).
"""

from __future__ import annotations

import importlib.util
import os
import resource
import time
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

import bc_env.rules

ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not bc_env.rules.COMPILED:
        return
    skip = pytest.mark.skip(reason="patches engine internals that compiled code does not see; runs on the pure build")
    for item in items:
        if "pure_engine" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def training_fingerprint() -> Any:
    """tools/training_fingerprint.py, the fingerprint of a run directory that the training tests compare with the
    runs recorded before the training core (tests/fixtures/training-tiny.json)."""
    spec = importlib.util.spec_from_file_location("training_fingerprint", ROOT / "tools" / "training_fingerprint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recorded_torch_threads() -> Generator[None, None, None]:
    """Torch's thread count at 2, torch's default on the 2-core machine where the training fingerprints
    (tests/fixtures/training-tiny.json) were recorded: another test in the same xdist worker may have changed it, and
    the count changes the float results."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


# --- the suite's budget ---------------------------------------------------------------------------------------

CPU_KEY = "cpu_s"


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    start = _cpu()
    yield
    item.user_properties.append((CPU_KEY, _cpu() - start))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    start = _cpu()
    yield
    item.user_properties.append((CPU_KEY, _cpu() - start))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    start = _cpu()
    yield
    item.user_properties.append((CPU_KEY, _cpu() - start))


_cpu_by_test: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """On the controller: the CPU time of each test (the last report of a test carries all of its phases)."""
    phases = [value for key, value in report.user_properties if key == CPU_KEY]
    if phases:
        _cpu_by_test[report.nodeid] = float(sum(phases))


def _limit(name: str) -> float | None:
    value = os.environ.get(name, "").strip()
    return float(value) if value else None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    if not _cpu_by_test:
        return
    total = sum(_cpu_by_test.values())
    slowest = sorted(_cpu_by_test.items(), key=lambda kv: -kv[1])[:15]
    write = terminalreporter.write_line
    terminalreporter.section("the suite's budget: CPU seconds per test (slowest 15)")
    for nodeid, seconds in slowest:
        write(f"{seconds:8.2f}  {nodeid}")
    budget, per_test = _limit("BC_TEST_CPU_BUDGET"), _limit("BC_TEST_CPU_PER_TEST")
    write(f"{total:8.2f}  in all, {len(_cpu_by_test)} tests" + (f" (budget {budget:g})" if budget else ""))
    by_file: Counter[str] = Counter()
    for nodeid, seconds in _cpu_by_test.items():
        by_file[nodeid.split("::")[0]] += seconds
    write("the files that took most: " + ", ".join(f"{f} {s:.0f}" for f, s in by_file.most_common(12)))
    over = [(n, s) for n, s in _cpu_by_test.items() if per_test is not None and s > per_test]
    problems = []
    if budget is not None and total > budget:
        problems.append(f"the tests took {total:.1f} CPU seconds, over the budget of {budget:g} (BC_TEST_CPU_BUDGET)")
    for nodeid, seconds in over:
        problems.append(f"{nodeid} took {seconds:.1f} CPU seconds, over {per_test:g} (BC_TEST_CPU_PER_TEST)")
    for line in problems:
        write(f"BUDGET EXCEEDED: {line}", red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # a run over budget fails (exit 1) even when every test passed; the summary above names the tests
    if not _cpu_by_test:
        return
    budget, per_test = _limit("BC_TEST_CPU_BUDGET"), _limit("BC_TEST_CPU_PER_TEST")
    total = sum(_cpu_by_test.values())
    if (budget is not None and total > budget) or (
        per_test is not None and any(s > per_test for s in _cpu_by_test.values())
    ):
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
