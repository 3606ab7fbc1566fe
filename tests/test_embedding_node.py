"""The Node.js reference clients (clients/node/, Node's standard library only) play full games against shipped
bots through the stdio protocol and the HTTP service; the games they report replay in Python and the bot's moves
are the moves of the Python bot."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")
pytest.importorskip("uvicorn")

import policies  # noqa: E402
from bc_env.rules import Game, load_replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def check_game(doc: dict, bot: str, bot_seats: set[int], seed: int, fresh: bool = False) -> None:
    """``fresh``: the bot is built anew for each move (stateless HTTP), so a seeded bot restarts its RNG."""
    final = load_replay(doc)  # replays every action and checks the recorded result
    assert final.is_terminal()
    game, py = Game.new(doc["config"]["name"], seed), policies.load(bot, seed=seed)
    for action in doc["actions"]:
        if game.current_player in bot_seats:
            if fresh:
                py = policies.load(bot, seed=seed)
            assert game.action_to_string(py.act(game)) == action
        game.apply(game.string_to_action(action))


@pytest.mark.parametrize(
    ("config", "bot", "seats"), [("core-2p", "ppo-core-2p", "1"), ("core-4p", "ppo-core-4p", "0,2")]
)
def test_node_stdio_client_plays_a_full_game(config, bot, seats):
    out = subprocess.run(
        [NODE, str(ROOT / "clients/node/stdio_client.mjs"), "--python", sys.executable, "--config", config,
         "--seed", "5", "--bot", bot, "--bot-seats", seats],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    check_game(json.loads(out.stdout), bot, {int(s) for s in seats.split(",")}, 5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--http", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/v1/hello", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode()) from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_node_http_client_plays_a_full_game(server):
    out = subprocess.run(
        [NODE, str(ROOT / "clients/node/http_client.mjs"), "--url", server, "--config", "core-2p", "--seed", "8",
         "--bot", "heuristic", "--bot-seats", "0"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    check_game(json.loads(out.stdout), "heuristic", {0}, 8, fresh=True)
