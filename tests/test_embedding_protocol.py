"""The bot protocol (embedding.protocol, embedding.stdio): replies, schema, errors, budgets and fuzzing.

Every reply is checked against the committed JSON Schema (embedding/protocol.schema.json); the fuzz tests send
malformed, oversized and out-of-order messages and check that each gets an error reply and leaves the session's
game exactly as it was.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from jsonschema import Draft202012Validator  # noqa: E402

from bc_env.rules import Game, record  # noqa: E402
from embedding import protocol, wirejson  # noqa: E402
from embedding.protocol import MAX_MESSAGE_BYTES, Session, encode  # noqa: E402
from embedding.stdio import serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "embedding" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
REPLY = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/reply"})
REQUEST = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/request"})


def check_reply(reply: dict) -> dict:
    REPLY.validate(reply)
    VALIDATOR.validate(reply)  # the top-level schema: a request or a reply, never both
    json.loads(encode(reply))  # serializable, no NaN
    return reply


def ask(session: Session, message: dict) -> dict:
    REQUEST.validate(message)  # the tests speak the protocol as documented
    VALIDATOR.validate(message)
    reply = check_reply(session.handle_line(json.dumps(message)))
    assert reply["cmd"] == message["cmd"]
    return reply


def greeted(**kw) -> Session:
    s = Session(**kw)
    assert ask(s, {"cmd": "hello", "protocol": 1})["ok"]
    return s


def test_schema_is_valid_and_in_the_docs():
    Draft202012Validator.check_schema(SCHEMA)
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- schema -->\n```json\n(.*?)```", doc, re.S)
    assert block, "docs/protocol.md carries the schema in a ```json block after <!-- schema -->"
    assert json.loads(block.group(1)) == SCHEMA


def test_hello_first_then_a_game_with_legal_actions_and_bot_moves():
    s = Session()
    r = ask(s, {"cmd": "new", "config": "core-2p", "seed": 1})
    assert not r["ok"] and r["error"]["code"] == "out_of_order" and "hello" in r["error"]["message"]
    hello = ask(s, {"cmd": "hello", "protocol": 1, "id": "h"})
    assert hello["ok"] and hello["id"] == "h" and hello["protocol"] == 1
    assert {"heuristic", "ppo-core-2p", "ppo-core-4p"} <= set(hello["bots"]) and "core-2p" in hello["presets"]
    assert ask(s, {"cmd": "legal"})["error"]["code"] == "out_of_order"
    r = ask(s, {"cmd": "new", "config": "core-2p", "seed": 1, "id": 7})
    assert r["ok"] and r["id"] == 7 and r["game"]["player"] == 0 and r["game"]["phase"] == "place_tile"
    legal = ask(s, {"cmd": "legal"})
    game = Game.new("core-2p", seed=1)
    assert [a["id"] for a in legal["actions"]] == game.legal_actions()
    assert [a["string"] for a in legal["actions"]] == [game.action_to_string(a) for a in game.legal_actions()]
    assert ask(s, {"cmd": "go"})["error"]["code"] == "out_of_order"  # no bot yet
    assert ask(s, {"cmd": "bot", "name": "ppo-core-2p"})["bot"] == "ppo-core-2p"
    go = ask(s, {"cmd": "go", "movetime_ms": 5000})
    import policies

    expected = policies.load("ppo-core-2p").act(game)
    assert go["action"] == {"id": expected, "string": game.action_to_string(expected)} and not go["applied"]
    assert ask(s, {"cmd": "state"})["state"] == game.to_dict()  # go without apply changes nothing
    applied = ask(s, {"cmd": "apply", "action": go["action"]["string"]})
    game.apply(expected)
    assert applied["game"]["phase"] == game.phase_name and ask(s, {"cmd": "state"})["state"] == game.to_dict()
    assert "<svg" in ask(s, {"cmd": "render", "format": "svg"})["svg"]
    assert ask(s, {"cmd": "render"})["text"] == game.render()
    assert ask(s, {"cmd": "quit"})["bye"] is True
    assert ask(s, {"cmd": "legal"})["error"]["code"] == "out_of_order"


@pytest.mark.parametrize("bot", ["heuristic", "ppo-core-4p", "random"])
def test_a_full_game_by_go_apply_matches_the_python_bot(bot):
    import policies

    s = greeted()
    ask(s, {"cmd": "new", "config": "core-4p", "seed": 3})
    ask(s, {"cmd": "bot", "name": bot, "seed": 5})
    game, py = Game.new("core-4p", seed=3), policies.load(bot, seed=5)
    while not game.is_terminal():
        r = ask(s, {"cmd": "go", "apply": True})
        action = py.act(game)
        assert r["action"]["id"] == action
        game.apply(action)
    assert r["game"]["terminal"] and r["game"]["winners"] == game.winners()
    assert r["game"]["returns"] == game.returns() and r["game"]["player"] is None
    assert ask(s, {"cmd": "go"})["error"]["code"] == "game_over"
    assert ask(s, {"cmd": "apply", "action": 0})["error"]["code"] == "game_over"
    assert ask(s, {"cmd": "legal"})["actions"] == []


def test_position_from_state_and_from_history():
    game = Game.new("core-2p", seed=9)
    actions = []
    for _ in range(25):
        actions.append(game.legal_actions()[-1])
        game.apply(actions[-1])
    s = greeted()
    doc = record(game, 9, actions)
    r = ask(s, {"cmd": "position", "config": doc["config"], "seed": 9, "actions": doc["actions"]})
    assert r["ok"] and ask(s, {"cmd": "state"})["state"] == game.to_dict()
    s2 = greeted()
    assert ask(s2, {"cmd": "position", "state": game.to_dict()})["game"] == r["game"]
    assert ask(s2, {"cmd": "legal"}) == {**ask(s, {"cmd": "legal"})}


def test_bot_selection_and_paths(tmp_path):
    s = greeted()
    ask(s, {"cmd": "new", "config": "core-4p", "seed": 1})
    r = ask(s, {"cmd": "bot", "name": "nope"})
    assert r["error"]["code"] == "unknown_bot" and "heuristic" in r["error"]["message"]
    ask(s, {"cmd": "bot", "name": "ppo-core-2p"})
    r = ask(s, {"cmd": "go"})
    assert r["error"]["code"] == "bot_mismatch" and "2 players" in r["error"]["message"]
    # A path loads an exported policy over stdio, never over HTTP (allow_paths=False).
    path = str(ROOT / "policies" / "bots" / "ppo-core-4p")
    assert ask(s, {"cmd": "bot", "name": path})["bot"] == "ppo-core-4p"
    assert ask(s, {"cmd": "go"})["ok"]
    locked = greeted(allow_paths=False)
    assert ask(locked, {"cmd": "bot", "name": path})["error"]["code"] == "unknown_bot"
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    (tmp_path / "bad.json").write_text("{}")
    assert ask(s, {"cmd": "bot", "name": str(tmp_path / "bad")})["error"]["code"] == "unknown_bot"
    assert ask(s, {"cmd": "go"})["ok"]  # the earlier bot is still selected


def test_budgets():
    s = greeted()
    ask(s, {"cmd": "new", "config": "core-2p", "seed": 2})
    ask(s, {"cmd": "bot", "name": "heuristic"})
    legal = len(ask(s, {"cmd": "legal"})["actions"])
    assert legal > 1
    r = ask(s, {"cmd": "go", "nodes": legal - 1})
    assert r["error"]["code"] == "node_budget_exceeded" and str(legal) in r["error"]["message"]
    assert ask(s, {"cmd": "go", "nodes": legal})["nodes"] == legal
    ask(s, {"cmd": "bot", "name": "ppo-core-2p"})
    assert ask(s, {"cmd": "go", "nodes": 1})["nodes"] == 1

    class Slow:
        name = "slow"

        def act(self, game):
            import time

            time.sleep(0.3)
            return game.legal_actions()[0]

    s.bot = Slow()
    before = ask(s, {"cmd": "state"})["state"]
    r = ask(s, {"cmd": "go", "movetime_ms": 20, "apply": True})
    assert r["error"]["code"] == "time_budget_exceeded" and "20 ms" in r["error"]["message"]
    assert ask(s, {"cmd": "state"})["state"] == before
    assert ask(s, {"cmd": "go", "movetime_ms": 5000})["ok"]


def test_bad_requests_name_the_problem():
    s = greeted()
    ask(s, {"cmd": "new", "config": "core-2p", "seed": 1})
    before = ask(s, {"cmd": "state"})["state"]
    cases = [
        ("{", "bad_json", "JSON"),
        ("[1, 2]", "bad_message", "object"),
        ('{"id": 1}', "bad_message", "cmd"),
        ('{"cmd": "fly"}', "unknown_command", "fly"),
        ('{"cmd": "apply"}', "bad_message", "action"),
        ('{"cmd": "apply", "action": "fly 1,1"}', "illegal_action", "fly"),
        ('{"cmd": "apply", "action": 99999}', "illegal_action", "99999"),
        ('{"cmd": "apply", "action": "pass"}', "illegal_action", "not legal"),
        ('{"cmd": "apply", "action": "place-tile 7,6", "extra": 1}', "bad_message", "extra"),
        ('{"cmd": "new", "config": "core-9p"}', "bad_config", "core-9p"),
        ('{"cmd": "new", "config": {"players": 9}}', "bad_config", "players"),
        ('{"cmd": "new", "config": "core-2p", "seed": -1}', "bad_message", "seed"),
        ('{"cmd": "new", "config": "../../etc/passwd"}', "bad_config", "unknown preset"),
        ('{"cmd": "position", "state": {"schema": "x"}}', "bad_state", "state"),
        ('{"cmd": "position", "config": "core-2p", "seed": 1, "actions": ["pass"]}', "illegal_action", "actions[0]"),
        ('{"cmd": "position", "state": {}, "seed": 1}', "bad_message", "message"),
        ('{"cmd": "hello", "protocol": 2}', "unsupported_protocol", "2"),
        ('{"cmd": "go", "movetime_ms": 0}', "bad_message", "movetime_ms"),
        ("[" * 100000 + "]" * 100000, "bad_json", ""),
    ]
    for line, code, words in cases:
        r = check_reply(s.handle_line(line))
        assert r["error"]["code"] == code, (line[:80], r)
        assert words in r["error"]["message"], (line[:80], r)
    big = json.dumps({"cmd": "apply", "action": "x" * MAX_MESSAGE_BYTES})
    assert check_reply(s.handle_line(big))["error"]["code"] == "too_large"
    assert ask(s, {"cmd": "state"})["state"] == before


def test_stdio_process_survives_garbage_and_oversized_lines():
    lines = [
        b'{"cmd": "hello", "protocol": 1}',
        b"\xff\xfe not utf-8",
        b"x" * (MAX_MESSAGE_BYTES + 10),
        b"",
        b'{"cmd": "new", "config": "core-2p", "seed": 4, "id": "n"}',
        b'{"cmd": "quit"}',
        b'{"cmd": "legal"}',  # never read: quit ends the process
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "balance_control", "serve", "--stdio"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    for r in replies:
        check_reply(r)
    assert [r["ok"] for r in replies] == [True, False, False, True, True]
    assert replies[1]["error"]["code"] == "bad_json" and replies[2]["error"]["code"] == "too_large"
    assert replies[3]["id"] == "n"


def test_stdio_serve_in_process_reads_to_the_end():
    out = io.StringIO()
    data = b'{"cmd":"hello"}\n{"cmd":"new","config":"core-3p"}\r\n{"cmd":"legal"}'  # last line without newline
    assert serve(io.BytesIO(data), out) == 0
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["cmd"] for r in replies] == ["hello", "new", "legal"] and all(r["ok"] for r in replies)


def test_a_lone_surrogate_or_a_non_finite_number_never_ends_a_session():
    """Issue 30, causes 1 and 2: a lone surrogate in ``id`` made the reply unwritable (UnicodeEncodeError, exit 1,
    neither line answered); NaN or 1e400 in a state loaded and the next ``state`` reply could not be written."""
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # strict UTF-8, like a real stdout
    lines = [
        '{"cmd":"hello","id":"\\ud800"}',
        '{"cmd":"hello","id":"h"}',
        '{"cmd":"new","config":{"players":2,"name":"\\udfff"}}',
        '{"cmd":"new","config":"core-2p","seed":1}',
        '{"cmd":"position","state":{"schema":"balance-control-state","events":[{"v":NaN}]}}',
        '{"cmd":"apply","action":1e400}',
        '{"cmd":"state","id":7}',
    ]
    assert serve(io.BytesIO("\n".join(lines).encode()), stdout) == 0
    stdout.flush()
    replies = [json.loads(x) for x in stdout.buffer.getvalue().decode("utf-8").splitlines()]
    assert len(replies) == len(lines)
    for reply in replies:
        check_reply(reply)
    assert [r["ok"] for r in replies] == [False, True, False, True, False, False, True]
    assert "message.id: the string '\\ud800' holds a lone surrogate" in replies[0]["error"]["message"]
    assert "message.config.name" in replies[2]["error"]["message"]
    assert "message.state.events[0].v: NaN is not a JSON number" in replies[4]["error"]["message"]
    assert "message.action: 1e400 is out of the range" in replies[5]["error"]["message"]
    assert replies[6]["state"] == Game.new("core-2p", 1).to_dict()


def test_a_state_handed_over_as_python_data_is_checked_too():
    s = greeted()
    state = Game.new("core-2p", 1).to_dict()
    state["events"][0]["v"] = float("inf")
    r = s.handle({"cmd": "position", "state": state})
    assert r["error"]["code"] == "bad_state" and "state.events[0].v: inf is not a JSON number" in r["error"]["message"]
    assert s.handle({"cmd": "hello", "id": "\udc00"})["id"] is None  # never echoed


def test_an_unwritable_reply_becomes_an_internal_error():
    data = wirejson.encode_bytes({"ok": True, "id": 3, "cmd": "analyze", "stats": {"x": [float("nan")]}})
    reply = json.loads(data)
    assert reply["ok"] is False and reply["id"] == 3 and reply["error"]["code"] == "internal"
    assert "reply.stats.x[0]: nan is not a JSON number" in reply["error"]["message"]
    reply = json.loads(wirejson.encode_bytes({"ok": True, "id": "\ud800", "cmd": "go"}))
    assert reply["id"] is None and "lone surrogate" in reply["error"]["message"]


def test_search_budgets_bind_the_search_bot():
    """Issue 30, cause 3: ``go`` with ``nodes: 1`` and bot mcts ran 200 simulations and reported 1 node."""
    s = greeted()
    ask(s, {"cmd": "new", "config": "core-2p", "seed": 4})
    for _ in range(3):
        ask(s, {"cmd": "apply", "action": ask(s, {"cmd": "legal"})["actions"][0]["id"]})
    assert len(ask(s, {"cmd": "legal"})["actions"]) > 1
    ask(s, {"cmd": "bot", "name": "mcts", "seed": 1})
    for nodes in (1, 3):
        r = ask(s, {"cmd": "go", "nodes": nodes})
        assert r["ok"] and r["nodes"] == nodes and s.bot.last_simulations == nodes
    assert s.bot.config.sims == 200 and s.bot.config.ms == 0  # the bot's own settings are back
    r = ask(s, {"cmd": "go", "movetime_ms": 400})
    if r["ok"]:  # searched for at most 80% of the time, and said how many simulations it ran
        assert r["elapsed_ms"] <= 400 and r["nodes"] == s.bot.last_simulations
    else:  # a machine too slow for a single simulation in 400 ms
        assert r["error"]["code"] == "time_budget_exceeded"


HARD_STOP = """
import time
from bc_env.rules import Game
from embedding import protocol

class Stubborn:
    name = "stubborn"

    def act(self, game):
        while True:
            try:
                time.sleep(0.01)
            except Exception:  # the hard stop is not an Exception
                pass

protocol.enable_hard_stop()
start = time.perf_counter()
try:
    protocol.decide(Stubborn(), Game.new("core-2p", 1), movetime_ms=100)
except protocol.ProtocolError as exc:
    print(exc.code, round((time.perf_counter() - start) * 1000))
"""


def test_the_hard_stop_interrupts_a_bot_past_its_time():
    """Where the hard stop is on (the HTTP service's workers), a bot past ``movetime_ms`` is stopped, not waited
    for (it would run forever here)."""
    out = subprocess.run([sys.executable, "-c", HARD_STOP], capture_output=True, text=True, timeout=120, cwd=ROOT)
    code, ms = out.stdout.split()
    assert code == "time_budget_exceeded" and int(ms) < 5000, out.stderr


# --- fuzzing ----------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=30),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4),
    max_leaves=12,
)
field = st.sampled_from(["cmd", "id", "config", "seed", "state", "actions", "action", "name", "movetime_ms",
                         "nodes", "apply", "format", "protocol", "client"])  # fmt: skip
messages = st.one_of(
    json_values,
    st.dictionaries(field, json_values, max_size=5),
    st.builds(lambda cmd, rest: {**rest, "cmd": cmd}, st.sampled_from(protocol.COMMANDS),
              st.dictionaries(field, json_values, max_size=4)),
)  # fmt: skip
raw_lines = st.one_of(
    messages.map(lambda m: json.dumps(m)),
    st.text(max_size=200),
    st.binary(max_size=200),
    messages.map(lambda m: json.dumps(m)[: max(1, len(json.dumps(m)) // 2)]),  # cut short
)


def _session_mid_game() -> Session:
    s = greeted()
    ask(s, {"cmd": "new", "config": "core-2p", "seed": 11})
    ask(s, {"cmd": "bot", "name": "heuristic"})
    for _ in range(7):
        ask(s, {"cmd": "go", "apply": True})
    return s


BASE = _session_mid_game()
BASE_STATE = BASE.game.to_dict()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(raw_lines, min_size=1, max_size=6))
def test_fuzz_no_crash_and_errors_leave_the_game_unchanged(lines):
    s = Session()
    s.greeted, s.game, s.bot = True, BASE.game.clone(), BASE.bot
    for line in lines:
        before = s.game.to_dict()
        reply = check_reply(s.handle_line(line))
        if reply["ok"]:
            # Only a schema-valid request succeeds, and a success is the documented command.
            REQUEST.validate(json.loads(line))
            before = s.game.to_dict()
        else:
            assert reply["error"]["code"] != "internal", reply
            assert reply["error"]["message"]
            assert s.game.to_dict() == before
    assert BASE.game.to_dict() == BASE_STATE


@settings(max_examples=100, deadline=None)
@given(cmd=st.sampled_from(protocol.GAME_COMMANDS + ("go",)), extra=st.dictionaries(field, json_values, max_size=2))
def test_fuzz_out_of_order(cmd, extra):
    s = Session()
    r = check_reply(s.handle({**extra, "cmd": cmd}))
    assert not r["ok"] and r["error"]["code"] in ("out_of_order", "bad_message")
    assert s.game is None and not s.greeted


def test_serve_command_line_errors():
    run = [sys.executable, "-m", "balance_control", "serve"]
    proc = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "--stdio" in proc.stderr
    proc = subprocess.run([*run, "--http", "--port", "70000"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "balance-control: error: --port must be 0..65535" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validation_reads_the_state_as_an_object_and_remembers_only_valid_messages():
    # validate() hands jsonschema an empty object in place of the state: right only while the schema asks no more
    # of a state than being an object (Game.from_dict reads it whole).
    assert SCHEMA["$defs"]["state"]["type"] == "object" and set(SCHEMA["$defs"]["state"]) == {"description", "type"}
    with pytest.raises(protocol.ProtocolError, match="state"):
        protocol.validate({"cmd": "position", "state": [1]}, "request_position")
    for _ in range(2):  # the second time from the remembered valid messages
        protocol.validate({"cmd": "go", "apply": True, "movetime_ms": 5}, "request_go")
        protocol.validate({"cmd": "position", "state": Game.new("core-2p", seed=0).to_dict()}, "request_position")
    # a message equal in Python but not in JSON (1 == True) is not taken for the valid one
    for bad in ({"cmd": "go", "apply": 1, "movetime_ms": 5}, {"cmd": "go", "apply": True, "movetime_ms": "5"}):
        for _ in range(2):
            with pytest.raises(protocol.ProtocolError) as refused:
                protocol.validate(bad, "request_go")
            assert refused.value.code == "bad_message"
