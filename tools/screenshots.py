"""Screenshots of the browser page (``balance-control serve --http``) in headless Chromium, for docs/img.

For each of core-2p, exp01-4p and all-6p it builds a mid-game position in Python, opens the page, continues that
game from it (*Continue a game log*: the page's bot plays the other seats up to the person's turn, so the bot's
whole turn is marked on the board and the legal cells are lit), and photographs the page at 390 px (a phone; the
whole page), 1024 px and 1600 px wide: ``docs/img/page-<preset>-<width>.png``. The positions:

* core-2p: a seeded random player, seed 3, 60 actions (then up to the end of seat 0's turn); the page's bot is
  ``ppo-core-2p``;
* exp01-4p: the same player, which prefers Measures where there are any (so that cards are in hands and an effect
  is on a tile), seed 3, 91 actions; the page's bot is ``heuristic``;
* all-6p: the same player, seed 0, 162 actions, then, because the bots hardly ever place Regulations and no card
  places CountdownMarkers (RULINGS R37), three Regulations and two CountdownMarkers are added to the state
  (placed by the rules' own ``attach`` checks: each type only where it may go); the page's bot is ``heuristic``.

    python tools/screenshots.py [--out docs/img] [--widths 390,1024,1600] [--only core-2p]

``tests/test_embedding_browser.py`` calls :func:`take` (into a temporary folder, or docs/img with
``BC_UPDATE_SCREENSHOTS=1``). Needs Debian's ``chromium`` and the Playwright driver (``.[embed-test]``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
WIDTHS = (390, 1024, 1600)
HEIGHTS = {390: 844, 1024: 768, 1600: 1000}
#: name -> (preset, the page's bot, seed, actions before the page takes over)
POSITIONS: dict[str, tuple[str, str, int, int]] = {
    "core-2p": ("core-2p", "ppo-core-2p", 3, 60),
    "exp01-4p": ("exp01-4p", "heuristic", 3, 91),
    "all-6p": ("all-6p", "heuristic", 0, 162),
}
SEAT = 0


def measure_player(game: Any, rng: random.Random) -> int:
    """A random legal action, a Measure action (take, play, target) with probability 0.7 where there is one."""
    legal = game.legal_actions()
    picks = [a for a in legal if game.action_to_string(a).split()[0] in ("take", "play") or
             game.action_to_string(a).startswith("target")]  # fmt: skip
    return int(rng.choice(picks) if picks and rng.random() < 0.7 else rng.choice(legal))


def build(name: str) -> dict[str, Any]:
    """The document the page continues: a game log (replay) or, for all-6p, a JSON state."""
    from bc_env.rules import Game
    from bc_env.rules.replay import record

    preset, _, seed, n = POSITIONS[name]
    game = Game.new(preset, seed)
    actions: list[int] = []
    rng = random.Random(seed)

    def step() -> None:
        a = measure_player(game, rng)
        actions.append(a)
        game.apply(a)

    for _ in range(n):
        step()
    while not game.is_terminal() and game.current_player == SEAT:  # finish the person's turn: the bots move next
        step()
    if name != "all-6p":
        return record(game, seed, actions)
    return add_regulations_and_countdown(game)


def add_regulations_and_countdown(game: Any) -> dict[str, Any]:
    """The state of ``game`` with three Regulations on tiles that take them and two CountdownMarkers on the
    Transformationsdruck, if it is on the Board (EXP-02-02-A/B, EXP-03-02-C)."""
    from bc_env.rules import Game
    from bc_env.rules.expansions import exp02

    game = game.clone()
    regs = exp02.state(game)
    wanted = [exp02.CONTROL, exp02.ADMINISTRATION, exp02.BLOCKADE]
    cells = [c for c in game.board if c != game.topo.centre]
    placed = 0
    for t in wanted:
        for c in cells[len(cells) // 3 :]:
            if exp02.attachable(game, t, c) and c not in regs.on:
                regs.attach(c, t)
                placed += 1
                break
    regs.attach(next(iter(regs.on)), exp02.SECURITY_LEVEL)
    regs.placed += placed + 1
    countdown = game.ext.get("EXP-03")
    td = [c for c in game.board if game.catalogue[game.tile_at[c]].special == "transformationsdruck"]
    if td and countdown is not None:
        countdown.supply -= 2
        countdown.attached[td[0]] = countdown.attached.get(td[0], 0) + 2
    state: dict[str, Any] = game.to_dict()
    Game.from_dict(state)  # still a valid state
    return state


def take(page: Any, url: str, out: Path, names: tuple[str, ...] = tuple(POSITIONS), widths: tuple[int, ...] = WIDTHS,
         tmp: Path | None = None, check: Callable[[Any, str, int], None] | None = None) -> list[Path]:  # fmt: skip
    """Photograph the page at each width for each position (``check(page, name, width)`` first, if given); return
    the files written."""
    out.mkdir(parents=True, exist_ok=True)
    tmp = tmp or out
    written = []
    for name in names:
        preset, bot, _, _ = POSITIONS[name]
        doc = tmp / f"position-{name}.json"
        doc.write_text(json.dumps(build(name)), encoding="utf-8")
        page.set_viewport_size({"width": 1600, "height": HEIGHTS[1600]})
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#preset", preset)
        page.select_option("#bot", bot)
        page.fill("#seat", str(SEAT))
        page.set_input_files("#load-file", str(doc))
        page.wait_for_function("() => ['human', 'over', 'error'].includes(document.body.dataset.status)")
        if page.evaluate("() => document.body.dataset.status") != "human":
            raise RuntimeError(f"{name}: {page.inner_text('#status')}")
        for width in widths:
            page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 900)})
            # the page's resize handler (the board's zoom on a phone) has run once two frames have passed
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            page.evaluate("() => window.scrollTo(0, 0)")
            if check is not None:
                check(page, name, width)
            path = out / f"page-{name}-{width}.png"
            page.screenshot(path=str(path), full_page=width < 700)
            written.append(path)
        doc.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    parser.add_argument("--only", choices=sorted(POSITIONS), action="append")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    from embedding_server import running_server
    from playwright.sync_api import sync_playwright

    widths = tuple(int(w) for w in args.widths.split(","))
    with running_server() as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            for path in take(page, url, args.out, tuple(args.only or POSITIONS), widths):
                print(path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
