"""The Node.js reference clients (clients/node/, Node's standard library only) play full games against shipped
bots through the stdio protocol and the HTTP service; the games they report replay in Python and the bot's moves
are the moves of the Python bot."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")
pytest.importorskip("uvicorn")

from embedding_server import running_server  # noqa: E402

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


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


def test_node_http_client_plays_a_full_game(server):
    out = subprocess.run(
        [NODE, str(ROOT / "clients/node/http_client.mjs"), "--url", server, "--config", "core-2p", "--seed", "8",
         "--bot", "heuristic", "--bot-seats", "0"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    check_game(json.loads(out.stdout), "heuristic", {0}, 8, fresh=True)
