"""The stateless HTTP service (embedding.http) through Starlette's TestClient: the protocol's operations with the
state in the request, the limits, the error statuses and the OpenAPI description."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("jsonschema")

from jsonschema import Draft202012Validator  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import policies  # noqa: E402
from bc_env.rules import Game  # noqa: E402
from embedding import http  # noqa: E402
from embedding.http import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "embedding" / "protocol.schema.json").read_text(encoding="utf-8"))
REPLY = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/reply"})
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(timeout_s=5.0, max_body=1 << 20)) as c:
        yield c


def post(client, cmd, body, status=200):
    r = client.post(f"/v1/{cmd}", json=body)
    assert r.status_code == status, r.text[:500]
    data = r.json()
    REPLY.validate({k: v for k, v in data.items()})
    return data


def test_hello_and_openapi(client):
    hello = client.get("/v1/hello").json()
    assert hello["ok"] and hello["protocol"] == 1 and "ppo-core-2p" in hello["bots"]
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    assert set(spec["paths"]) == {"/v1/hello", *(f"/v1/{c}" for c in http.HTTP_COMMANDS)}
    go = spec["paths"]["/v1/go"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert {"state", "bot"} <= set(go["required"])
    # Every reference in the description resolves inside it.
    text = json.dumps(spec)
    for ref in set(__import__("re").findall(r'"#/components/schemas/([a-z_]+)"', text)):
        assert ref in spec["components"]["schemas"], ref


def test_a_full_game_over_http_matches_the_python_bot(client):
    game = Game.new("core-2p", seed=21)
    bot = policies.load("ppo-core-2p")
    r = post(client, "new", {"config": "core-2p", "seed": 21})
    state = r["state"]
    assert state == game.to_dict()
    while not game.is_terminal():
        legal = post(client, "legal", {"state": state})
        assert [a["id"] for a in legal["actions"]] == game.legal_actions()
        if game.current_player == 0:
            r = post(client, "go", {"state": state, "bot": "ppo-core-2p", "apply": True, "movetime_ms": 4000})
            action = bot.act(game)
            assert r["action"]["id"] == action and r["applied"]
        else:
            action = game.legal_actions()[0]
            r = post(client, "apply", {"state": state, "action": game.action_to_string(action)})
        game.apply(action)
        state = r["state"]
        assert state == game.to_dict()
    assert r["game"]["terminal"] and r["game"]["winners"] == game.winners()
    svg = post(client, "render", {"state": state, "format": "svg"})["svg"]
    assert svg.startswith("<svg") and "winners" in svg


def test_position_from_history(client):
    game = Game.new("core-3p", seed=2)
    actions = []
    for _ in range(10):
        actions.append(game.action_to_string(game.legal_actions()[0]))
        game.apply(game.legal_actions()[0])
    r = post(client, "position", {"config": "core-3p", "seed": 2, "actions": actions})
    assert r["state"] == game.to_dict()
    again = post(client, "position", {"state": r["state"]})
    assert again["state"] == r["state"]


def test_errors_and_limits(client):
    state = post(client, "new", {"config": "core-2p", "seed": 1})["state"]
    assert post(client, "legal", {}, 400)["error"]["message"].startswith("message: 'state'")
    assert post(client, "apply", {"state": state, "action": "pass"}, 422)["error"]["code"] == "illegal_action"
    assert post(client, "go", {"state": state}, 400)["error"]["message"].startswith("message: 'bot'")
    r = post(client, "go", {"state": state, "bot": str(ROOT / "policies" / "bots" / "ppo-core-2p")}, 422)
    assert r["error"]["code"] == "unknown_bot"  # no paths over HTTP
    assert post(client, "go", {"state": state, "bot": "ppo-core-4p"}, 422)["error"]["code"] == "bot_mismatch"
    assert post(client, "apply", {"state": {"schema": 1}, "action": 0}, 422)["error"]["code"] == "bad_state"
    assert post(client, "new", {"config": "core-2p", "state": state}, 400)["error"]["code"] == "bad_message"
    assert post(client, "fly", {}, 404)["error"]["code"] == "unknown_command"
    assert post(client, "new", {"config": "core-2p", "seed": "x"}, 400)["error"]["code"] == "bad_message"
    r = client.post("/v1/new", content=b"{nope", headers=JSON)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    r = client.post("/v1/new", content=b" " * (2 << 20), headers=JSON)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    r = client.post("/v1/new", content=json.dumps([1]), headers=JSON)
    assert r.status_code == 400


def test_request_time_limit(monkeypatch):
    def slow(cmd, body):
        time.sleep(1.0)
        return {"ok": True}

    monkeypatch.setattr(http, "handle", slow)
    with TestClient(create_app(timeout_s=0.2)) as c:
        r = c.post("/v1/new", json={"config": "core-2p"})
    assert r.status_code == 503 and r.json()["error"]["code"] == "timeout"


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert client.get("/static/app.js").status_code == 200


def test_concurrent_requests_share_a_trained_bot_safely():
    from concurrent.futures import ThreadPoolExecutor

    states = []
    for seed in range(6):
        game = Game.new("core-2p", seed=seed)
        for _ in range(seed * 5):
            game.apply(game.legal_actions()[0])
        states.append(game.to_dict())
    serial = [policies.load("ppo-core-2p").act(Game.from_dict(s)) for s in states]
    with ThreadPoolExecutor(4) as pool:
        replies = list(pool.map(lambda s: http.handle("go", {"state": s, "bot": "ppo-core-2p"}), states * 3))
    assert [r["action"]["id"] for r in replies] == serial * 3


def test_fuzz_http_bodies_never_fail_inside():
    """Any JSON body for any command gets the protocol's reply: ok, or an error that names the problem."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    state = Game.new("core-2p", seed=1).to_dict()
    values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=20),
        lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
        max_leaves=8,
    )
    keys = st.sampled_from(["state", "config", "seed", "actions", "action", "bot", "bot_seed", "format", "apply",
                            "movetime_ms", "nodes", "id", "cmd"])  # fmt: skip
    bodies = st.one_of(values, st.dictionaries(keys, values | st.just(state), max_size=4))

    @settings(max_examples=200, deadline=None)
    @given(cmd=st.sampled_from(http.HTTP_COMMANDS), body=bodies)
    def check(cmd, body):
        reply = http.handle(cmd, body)
        REPLY.validate(reply)
        if not reply["ok"]:
            assert reply["error"]["code"] != "internal", reply

    check()
