"""The browser page of the HTTP service in headless Chromium (Debian's ``chromium``, driven by Playwright; no
browser is ever downloaded), under a Content-Security-Policy without 'unsafe-inline':

* play: the legal cells lit in a colour no seat uses, the last move and the bot's whole turn marked and numbered
  on the board, a game continued from a log and played to its end, the game-over panel with every seat's Influence
  and a working rematch;
* the Measure cards by name, their texts on a click;
* a replay stepped forwards and backwards, jumped to a move (form, move list, keys), numbered once;
* the screenshots of docs/img (tools/screenshots.py) at 390, 1024 and 1600 px, with the layout checked at each.

``BC_UPDATE_SCREENSHOTS=1 pytest tests/test_embedding_browser.py`` writes the screenshots to docs/img/ (they are
committed); otherwise they go to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from embedding_server import running_server  # noqa: E402

from bc_env.rules import Game, load_replay  # noqa: E402
from bc_env.rules.replay import record  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import screenshots  # noqa: E402

CHROMIUM = Path(screenshots.CHROMIUM)
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
#: What another engineer's service will send (no 'unsafe-inline'): the test adds it to the page's response.
CSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; object-src 'none'"
SEAT_COLOURS = {"rgb(235, 60, 60)", "rgb(70, 150, 255)", "rgb(250, 225, 50)", "rgb(60, 220, 110)",
                "rgb(235, 80, 235)", "rgb(60, 230, 230)"}  # fmt: skip


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=screenshots.FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page(browser, server):
    """A fresh page under the CSP; every console error, page error and failed request fails the test."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    problems: list[str] = []

    def with_csp(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})

    context.route(server + "/", with_csp)
    p = context.new_page()
    p.set_default_timeout(60_000)
    p.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    p.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    p.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    p.goto(server + "/")
    p.wait_for_selector("body[data-ready='1']")
    yield p
    context.close()
    assert not problems, problems


def shot_dir(tmp_path: Path) -> Path:
    return ROOT / "docs" / "img" if os.environ.get("BC_UPDATE_SCREENSHOTS") else tmp_path


def shown(page) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.shown || -1)"))


def wait_turn(page, before: int) -> None:
    page.wait_for_function(
        f"() => Number(document.body.dataset.shown) > {before} && "
        "['human', 'over', 'error'].includes(document.body.dataset.status)"
    )
    assert page.evaluate("() => document.body.dataset.status") != "error", page.inner_text("#status")


def click_first_legal(page) -> str:
    """Take the first legal action by clicks; return the action string taken."""
    before = shown(page)
    cells = page.locator("#board .cell.legal")
    if cells.count():
        cells.first.click()
        if page.locator("#actions button.for-cell").count():
            page.locator("#actions button.for-cell").first.click()
    else:
        page.locator("#actions button.action").first.click()
    wait_turn(page, before)
    return page.evaluate("() => document.body.dataset.shown")


def marks(page) -> list[tuple[str, str, bool]]:
    """The numbered marks on the board: (number, cell, is the last)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('#board .mark')].map(m => "
        "[m.querySelector('text').textContent, m.dataset.cell, m.classList.contains('last')])"
    )


def load(page, tmp_path: Path, doc: dict, preset: str, bot: str, seat: int = 0) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    page.select_option("#preset", preset)
    page.select_option("#bot", bot)
    page.fill("#seat", str(seat))
    page.set_input_files("#load-file", str(path))
    # The loaded game's actions on the page first: the status of the game before can still read 'human'.
    page.wait_for_function(
        f"() => document.body.dataset.status === 'error' || (Number(document.body.dataset.shown) >= "
        f"{len(doc['actions'])} && ['human', 'over'].includes(document.body.dataset.status))"
    )
    assert page.evaluate("() => document.body.dataset.status") == "human", page.inner_text("#status")


def test_play_lights_legal_cells_marks_moves_and_ends_with_a_rematch(page, tmp_path):
    page.select_option("#preset", "core-2p")
    page.select_option("#bot", "ppo-core-2p")
    page.fill("#seat", "1")  # P0 starts: the bot's first turn is on the board when the person's begins
    page.fill("#seed", "3")
    page.click("#new")
    wait_turn(page, 0)
    bot_moves = page.evaluate("() => Number(document.body.dataset.shown)")
    assert bot_moves >= 1
    # The bot's whole turn: numbered 1..k on the cells it acted on, the last one black; named in the status line.
    got = marks(page)
    numbers = [int(m[0]) for m in got]
    assert got and numbers[0] == 1 and numbers == sorted(set(numbers)) and got[-1][2]
    assert [m[2] for m in got].count(True) == 1
    assert "P0: 1 place-tile" in page.inner_text("#last-move")
    # Legal cells in white, which no seat uses.
    strokes = page.evaluate(
        "() => [...document.querySelectorAll('#board .cell.legal .hl')].map(e => getComputedStyle(e).stroke)"
    )
    assert strokes and set(strokes) == {"rgb(255, 255, 255)"} and not SEAT_COLOURS & set(strokes)
    seat_css = page.evaluate(
        "() => [0,1,2,3,4,5].map(i => getComputedStyle(document.querySelector('.c' + i) || document.body)"
        ".getPropertyValue('--seat' + i).trim())"
    )
    assert "#ffffff" not in seat_css
    # The person's move: its cell is the last move.
    cell = page.locator("#board .cell.legal").first.get_attribute("data-cell")
    click_first_legal(page)
    assert page.locator(f"#board .cell.last[data-cell='{cell}']").count() == 1
    assert marks(page)[-1][1] == cell and "P1 (you): 1 place-tile " + cell in page.inner_text("#last-move")

    # A game continued from a log close to its end, played to the end by clicks.
    game, rng = Game.new("core-2p", 5), random.Random(5)
    actions, players = [], []
    while not game.is_terminal():
        players.append(game.current_player)
        actions.append(rng.choice(game.legal_actions()))
        game.apply(actions[-1])
    # The last point at least 8 actions before the end where seat 0 has just ended a turn.
    cut = max(i for i in range(1, len(actions) - 8) if players[i - 1] == 0 and players[i] == 1)
    replayed = Game.new("core-2p", 5)
    for a in actions[:cut]:
        replayed.apply(a)
    load(page, tmp_path, record(replayed, 5, actions[:cut]), "core-2p", "random")
    for _ in range(80):
        if page.evaluate("() => document.body.dataset.status") == "over":
            break
        click_first_legal(page)
    assert page.evaluate("() => document.body.dataset.status") == "over"
    assert page.locator("#gameover").is_visible()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(shot_dir(tmp_path) / "page-game-over-1280.png"))
    rows = page.locator("#gameover-table tbody tr")
    assert rows.count() == 2
    with page.expect_download() as info:
        page.click("#gameover-save")
    log = tmp_path / "game.json"
    info.value.save_as(str(log))
    final = load_replay(json.loads(log.read_text(encoding="utf-8")))  # checks the recorded result
    assert final.is_terminal()
    shown_influence = [int(rows.nth(p).locator("td.num").inner_text()) for p in range(2)]
    assert shown_influence == list(final.on_board)
    winners = [p for p in range(2) if "winner" in (rows.nth(p).get_attribute("class") or "")]
    assert winners == final.winners() and page.locator("#gameover-result").inner_text().startswith(
        " and ".join(f"P{p}" for p in final.winners())
    )
    page.click("#gameover-close")
    assert not page.locator("#gameover").is_visible()
    page.click("#show-result")  # the panel again
    assert page.locator("#gameover").is_visible()
    # Rematch: the next seed, a fresh game, the panel gone.
    page.click("#rematch")
    page.wait_for_function("() => document.body.dataset.status === 'human' && Number(document.body.dataset.shown) < 20")
    assert page.input_value("#seed") == "6" and not page.locator("#gameover").is_visible()
    assert page.locator("#log li").count() == shown(page)


def test_measure_cards_show_names_and_texts(page, tmp_path):
    load(page, tmp_path, screenshots.build("exp01-4p"), "exp01-4p", "random")
    chips = page.locator("#table .open-cards .card, #seats .card")
    assert chips.count() >= 3
    texts = chips.all_inner_texts()
    assert all(t and "EXP-01-M" not in t for t in texts), texts
    first = chips.first
    key = first.get_attribute("data-card")
    cards = json.loads((ROOT / "embedding" / "cards.json").read_text(encoding="utf-8"))["editions"]["EXP-01"]
    assert first.inner_text() == cards[key]["name"] and cards[key]["text"][0] in first.get_attribute("title")
    first.click()
    tip = page.locator("#card-tip")
    assert tip.is_visible() and cards[key]["name"] in tip.inner_text()
    assert all(line in tip.inner_text() for line in cards[key]["text"])
    box, view = tip.bounding_box(), page.viewport_size
    assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"]
    page.click("#status")
    assert not tip.is_visible()
    # The move list names the cards too (take / play / target of a Measure).
    assert page.locator("#log [data-raw]").count() and "EXP-01-M" not in page.inner_text("#log")
    # The open-cards lines are not cut off: every chip lies inside its panel.
    inside = page.evaluate(
        "() => [...document.querySelectorAll('#table .card')].every(c => { const r = c.getBoundingClientRect(), "
        "p = document.getElementById('table').getBoundingClientRect(); "
        "return r.left >= p.left && r.right <= p.right; })"
    )
    assert inside


def test_replay_steps_both_ways_and_jumps_to_a_move(page, tmp_path):
    game, rng, actions = Game.new("core-2p", 2), random.Random(2), []
    for _ in range(120):
        actions.append(rng.choice(game.legal_actions()))
        game.apply(actions[-1])
    doc = record(game, 2, actions)
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_function("() => document.body.dataset.step === '0'")
    n = len(doc["actions"])
    assert page.inner_text("#step") == f"0 / {n}" and page.locator("#prev").is_disabled()
    # Each move is numbered once: "12." then the action.
    items = page.locator("#log li")
    assert items.count() == n
    assert (
        items.nth(11).locator(".n").inner_text() == "12."
        and items.nth(11).locator("button").inner_text() == (doc["actions"][11])
    )

    def at(k: int) -> None:
        page.wait_for_function(f"() => document.body.dataset.step === '{k}'")
        assert page.inner_text("#step") == f"{k} / {n}"
        assert page.inner_text("#last-move") == (f"Move {k}: {doc['actions'][k - 1]}" if k else "Start of the game")
        cell = doc["actions"][k - 1].split()[1] if k and "," in doc["actions"][k - 1] else None
        if cell:
            assert page.locator(f"#board .cell.last[data-cell='{cell}']").count() == 1

    for k in (1, 2, 3):
        page.click("#next")
        at(k)
    page.click("#prev")
    at(2)
    page.fill("#goto", "50")
    page.click("#goto-button")
    at(50)
    assert page.locator("#log li.current").inner_text().startswith("50.")
    items.nth(9).locator("button").click()
    at(10)
    page.keyboard.press("ArrowRight")
    at(11)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at(9)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(shot_dir(tmp_path) / "page-replay-1280.png"))
    page.keyboard.press("End")
    at(n)
    assert page.locator("#next").is_disabled()
    # The move list shows whole lines: scrolled by whole lines, its first visible line not clipped.
    top = page.evaluate(
        "() => { const l = document.getElementById('log'); return [l.scrollTop, l.children[0].offsetHeight]; }"
    )
    assert top[0] % top[1] == 0
    page.click("#first")
    at(0)


def test_screenshots_at_three_widths(browser, server, tmp_path):
    out = shot_dir(tmp_path)
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(60_000)
    checked = []

    def check(page, name: str, width: int) -> None:
        layout = page.evaluate(
            """() => {
              const svg = document.querySelector('#board svg'), r = svg.getBoundingClientRect();
              const box = svg.viewBox.baseVal, cell = 60 * Math.min(r.width / box.width, r.height / box.height);
              const texts = [...svg.querySelectorAll('.influence text, .code')]
                .map(t => t.getBoundingClientRect().height);
              return {overflow: document.documentElement.scrollWidth - window.innerWidth, cell,
                      smallest: Math.min(...texts), legal: svg.querySelectorAll('.cell.legal').length,
                      marks: svg.querySelectorAll('.mark').length};
            }"""
        )
        assert layout["overflow"] <= 0, (name, width, layout)  # no sideways scrolling of the page
        assert layout["cell"] >= 38 and layout["smallest"] >= 8, (name, width, layout)
        assert layout["legal"] and layout["marks"], (name, width, layout)
        if width == 1600:
            assert page.locator("#board svg").bounding_box()["height"] >= 800
        checked.append((name, width))

    files = screenshots.take(page, server, out, check=check, tmp=tmp_path)
    context.close()
    assert len(files) == 9 and all(f.stat().st_size > 20_000 for f in files)
    assert len(checked) == 9
