"""What the browser page gets from the service (``POST /v1/view``, embedding/page.py), the board it draws
(``board_svg``: readable codes on every tile colour, Influence counts, EXP-02/03 objects, no style attributes), the
card texts (embedding/cards.json against the engine and the spec), the favicon, and a page without inline script or
style (a Content-Security-Policy without 'unsafe-inline')."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from bc_env.env.render import KIND_COLOURS, RESOLVED_HOTSPOT, RESORT_COLOURS, SPECIAL_COLOURS  # noqa: E402
from bc_env.env.svg import _luminance, board_svg, text_colour  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from bc_env.rules.expansions import exp02  # noqa: E402
from bc_env.rules.expansions.measures import build_measures  # noqa: E402
from embedding.http import create_app  # noqa: E402
from embedding.page import card_texts, view  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "embedding" / "static"
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(timeout_s=10.0)) as c:
        yield c


def random_game(preset: str, seed: int, steps: int) -> Game:
    game, rng = Game.new(preset, seed), random.Random(seed)
    for _ in range(steps):
        if game.is_terminal():
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_view_of_a_state_and_of_a_log(client):
    game = random_game("exp01-4p", 3, 80)
    reply = client.post("/v1/view", json={"state": game.to_dict(), "id": 7}).json()
    assert reply["ok"] and reply["id"] == 7 and reply["cmd"] == "view"
    assert reply["svg"].startswith("<svg") and 'class="bc-board"' in reply["svg"]
    assert reply["legal"] == [{"id": a, "string": game.action_to_string(a)} for a in game.legal_actions()]
    assert [s["on_board"] for s in reply["seats"]] == list(game.on_board)
    assert [s["hand"] for s in reply["seats"]] == game.to_dict()["measures"]["hands"]
    assert sorted(reply["cards"]) == sorted(m.key for m in game.measures)
    assert reply["cards"]["EXP-01-M03"]["name"] == "Collective Bargaining"
    assert reply["cards"]["EXP-01-M03"]["text"][0] == "Cost: ECO + ECO."
    # The same position from the log: the same view.
    actions = []
    g, rng = Game.new("exp01-4p", 3), random.Random(3)
    for _ in range(80):
        a = rng.choice(g.legal_actions())
        actions.append(g.action_to_string(a))
        g.apply(a)
    again = client.post("/v1/view", json={"config": "exp01-4p", "seed": 3, "actions": actions}).json()
    assert {k: v for k, v in again.items() if k != "id"} == {k: v for k, v in reply.items() if k != "id"}


def test_view_at_the_end_gives_every_seats_influence_and_the_result():
    game = random_game("core-4p", 1, 10_000)
    v = view(game)
    assert v["game"]["terminal"] and v["legal"] == [] and v["influence"] == list(game.on_board)
    assert v["game"]["winners"] == game.winners() and v["tile_in_hand"] is None


def test_view_refuses_bad_requests_and_changes_nothing(client):
    assert client.post("/v1/view", content=b"{", headers={"content-type": "application/json"}).status_code == 400
    r = client.post("/v1/view", json={"config": "nope", "seed": 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_config"
    r = client.post("/v1/view", json={"state": {"schema": "x"}})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_state"
    r = client.post("/v1/view", json=[1])
    assert r.status_code == 400 and r.json()["cmd"] == "view"
    r = client.post("/v1/view", json={"config": "core-2p", "seed": 1, "extra": 1})
    assert r.status_code == 400 and "extra" in r.json()["error"]["message"]


def test_favicon_and_a_page_without_inline_script_or_style(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon" and r.content[:4] == b"\0\0\1\0"
    html = client.get("/").text
    assert '<link rel="icon" href="/favicon.ico">' in html
    assert re.findall(r"<script\b[^>]*>", html) == ['<script src="/static/app.js">']
    assert "<style" not in html and " style=" not in html and "javascript:" not in html
    assert not re.search(r"\son[a-z]+=", html)  # no inline event handlers
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    assert 'setAttribute("style"' not in js and "cssText" not in js and "eval(" not in js
    assert "http://" not in html + js.replace("http://www.w3.org/2000/svg", "") and "https://" not in html + js
    assert "@import" not in (STATIC / "style.css").read_text(encoding="utf-8")


def test_board_codes_are_readable_on_every_tile_colour():
    colours = [RESOLVED_HOTSPOT, *SPECIAL_COLOURS.values(), *(c for c in KIND_COLOURS if any(c))]
    colours += [tuple(min(255, int(v * (0.55 + 0.11 * value))) for v in base) for base in RESORT_COLOURS
                for value in range(1, 6)]  # fmt: skip
    for rgb in colours:
        ink = (0, 0, 0) if text_colour(rgb) == "#111111" else (255, 255, 255)
        hi, lo = sorted((_luminance(rgb), _luminance(ink)), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, rgb  # WCAG AA for normal text


@pytest.mark.parametrize("preset", ["core-2p", "core-4p-hex", "exp01-4p", "all-6p"])
def test_board_svg_cells_counts_and_no_style_attributes(preset):
    game = random_game(preset, 2, 120)
    svg = board_svg(game)
    root = ET.fromstring(svg)
    assert all(e.get("style") is None for e in root.iter())
    cells = [g for g in root.iter(f"{NS}g") if "cell" in (g.get("class") or "").split()]
    assert all(list(g)[-1].get("class") == "hl" for g in cells)  # the outline a page lights up
    tiles = {g.get("data-cell"): g for g in cells if "tile" in g.get("class").split()}
    assert sorted(tiles) == sorted(game.topo.label(c) for c in game.board)
    for c in game.board:
        badges = [b for b in tiles[game.topo.label(c)].iter(f"{NS}g") if b.get("class") == "influence"]
        counts = [(int(b.get("data-seat")), int(b.find(f"{NS}text").text)) for b in badges]
        assert counts == [(p, n) for p, n in enumerate(game.influence_on(c)) if n]


def test_regulations_countdown_and_climate_tiles_are_drawn():
    game = random_game("all-6p", 0, 160)
    regs = exp02.state(game)
    hotspots = [c for c in game.board if exp02.attachable(game, exp02.CONTROL, c) and c != game.topo.centre]
    regs.attach(hotspots[0], exp02.CONTROL)
    regs.attach(hotspots[0], exp02.CONTROL)
    regs.attach(hotspots[0], exp02.BLOCKADE)
    regs.placed += 3
    td = [c for c in game.board if game.catalogue[game.tile_at[c]].special == "transformationsdruck"]
    assert td, "the all-6p game of seed 0 has its Transformationsdruck on the Board by action 160"
    game.ext["EXP-03"].supply -= 3
    game.ext["EXP-03"].attached[td[0]] = 3
    game = Game.from_dict(game.to_dict())  # a valid state
    svg = board_svg(game)
    assert "<title>Control x2, Blockade x1</title>C2 B1</text>" in svg
    assert "<title>CountdownMarkers: 3</title>" in svg
    clm = sum(1 for c in game.board if game.catalogue[game.tile_at[c]].name.startswith("CLM"))
    assert clm and svg.count('class="leaf"') == clm
    v = view(game)
    label = game.topo.label(hotspots[0])
    assert {"cell": label, "counts": {"Control": 2, "Blockade": 1}, "short": "C2 B1"} in v["regulations"]["attached"]
    assert v["countdown"] == {"supply": 7, "attached": [{"cell": game.topo.label(td[0]), "markers": 3}]}


def test_card_texts_match_the_engine_and_the_spec():
    data = card_texts()
    engine = {m.key: m.name for m in build_measures(RulesConfig.preset("all-4p"))}
    for edition, cards in data["editions"].items():
        prefix = edition[:6]
        assert sorted(cards) == sorted(k for k in engine if k.startswith(prefix)), edition
        for key, card in cards.items():
            assert card["name"] == engine[key] and card["text"] and card["text"][0].startswith("Cost:"), key
    assert sorted(data["regulations"]) == ["Administration", "Blockade", "Control", "SecurityLevel"]
    spec = ROOT.parent / "shared" / "spec"
    if not spec.is_dir():
        pytest.skip("the rule specifications (../shared/spec) are not beside this checkout")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "card_texts.py"), "--check", "--spec", str(spec)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((ROOT / "embedding" / "cards.json").read_text(encoding="utf-8")) == data
