"""The browser page of the HTTP service in headless Chromium (Debian's ``chromium``, driven by Playwright; no
browser is ever downloaded): a person's game against a bot played to the end by clicks, the game log saved
and replayed step by step, and screenshots of the board at set positions.

``BC_UPDATE_SCREENSHOTS=1 pytest tests/test_embedding_browser.py`` writes the screenshots to docs/img/ (they are
committed); otherwise they go to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from embedding_server import running_server  # noqa: E402

from bc_env.env.svg import render_svg  # noqa: E402
from bc_env.rules import load_replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
SEED = 3
#: The person's moves after which the board is photographed (0: the first decision).
SHOTS = {0: "web-board-start.png", 40: "web-board-midgame.png"}


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


@pytest.fixture()
def page(tmp_path):
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh --user-data-dir
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            accept_downloads=True,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            p = context.pages[0] if context.pages else context.new_page()
            p.set_default_timeout(60_000)
            yield p
        finally:
            context.close()


def shot_dir(tmp_path: Path) -> Path:
    return ROOT / "docs" / "img" if os.environ.get("BC_UPDATE_SCREENSHOTS") else tmp_path


def shown(page) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.shown || -1)"))


def test_play_a_game_to_the_end_by_clicks_then_replay_it(server, page, tmp_path):
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#preset", "core-2p")
    page.select_option("#bot", "ppo-core-2p")
    page.fill("#seat", "0")
    page.fill("#seed", str(SEED))
    page.click("#new")
    page.wait_for_function("() => ['human', 'over'].includes(document.body.dataset.status)")
    clicks = moves = 0
    out = shot_dir(tmp_path)
    while page.evaluate("() => document.body.dataset.status") == "human":
        if moves in SHOTS:
            page.locator("#board svg").screenshot(path=str(out / SHOTS[moves]))
            if moves == 40:
                page.screenshot(path=str(out / "web-page.png"))
        before = shown(page)
        cells = page.locator("#board .cell.legal")
        if cells.count():
            cells.first.click()
            clicks += 1
            if page.locator("#actions button.for-cell").count():  # several actions on that cell: choose one
                page.locator("#actions button.for-cell").first.click()
                clicks += 1
        else:
            page.locator("#actions button.action").first.click()
            clicks += 1
        page.wait_for_function(
            f"() => Number(document.body.dataset.shown) > {before} "
            "&& ['human', 'over'].includes(document.body.dataset.status)"
        )
        moves += 1
    assert page.evaluate("() => document.body.dataset.status") == "over", page.inner_text("#status")
    assert "Game over" in page.inner_text("#status")
    page.locator("#board svg").screenshot(path=str(out / "web-board-end.png"))
    assert moves > 50 and clicks >= moves and not errors

    # Save the game log; it replays in Python to the same end.
    with page.expect_download() as info:
        page.click("#save")
    log = tmp_path / "game.json"
    info.value.save_as(str(log))
    doc = json.loads(log.read_text(encoding="utf-8"))
    final = load_replay(doc)  # checks the recorded result
    assert final.is_terminal() and doc["seed"] == SEED and len(doc["actions"]) == shown(page)
    board_svg = page.inner_html("#board")
    assert 'data-cell="' in board_svg and "winners" in board_svg

    # Replay it step by step.
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(log))
    page.wait_for_function("() => document.body.dataset.step === '0'")
    n = len(doc["actions"])
    assert page.inner_text("#step") == f"0 / {n}"
    for k in range(1, 4):
        page.click("#next")
        page.wait_for_function(f"() => document.body.dataset.step === '{k}'")
        assert page.inner_text("#last-move") == f"last: {doc['actions'][k - 1]}"
    page.click("#prev")
    page.wait_for_function("() => document.body.dataset.step === '2'")
    page.click("#last")
    page.wait_for_function(f"() => document.body.dataset.step === '{n}'")
    assert "game over" in page.inner_text("#status")
    assert page.locator("#next").is_disabled()
    expected = render_svg(final)
    assert page.evaluate("() => document.querySelectorAll('#board [data-cell]').length") == expected.count("data-cell=")
    page.click("#first")
    page.wait_for_function("() => document.body.dataset.step === '0'")
    page.locator("#board svg").screenshot(path=str(out / "web-replay-start.png"))
    assert not errors
