"""Call a bot over stdio: start ``balance-control serve --stdio`` as a child process and play a game through the bot
protocol (one JSON object per line; docs/protocol.md). Any language can do the same.

    python examples/bot_stdio.py          # needs the serve extra: pip install -e '.[serve]'
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def main() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None

    def ask(**request: Any) -> dict[str, Any]:
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        reply = json.loads(server.stdout.readline())
        if not reply["ok"]:
            raise RuntimeError(f"{request['cmd']}: {reply['error']['message']}")
        return reply

    hello = ask(cmd="hello", protocol=1, client="examples/bot_stdio.py")
    print(f"{hello['engine']} {hello['engine_version']}, bots: {', '.join(hello['bots'])}")
    game = ask(cmd="new", config="core-2p", seed=7)["game"]
    ask(cmd="bot", name="heuristic", seed=1)  # the bot that `go` asks
    moves = 0
    while not game["terminal"]:
        reply = ask(cmd="go", apply=True)  # the bot's action for whoever decides now, applied
        moves += 1
        if moves <= 3:
            print(f"P{game['player']} ({game['phase']}): {reply['action']['string']}")
        game = reply["game"]
    print(f"{moves} actions; winners {game['winners']}")
    print(ask(cmd="render")["text"].splitlines()[0])
    ask(cmd="quit")
    server.wait(timeout=30)


if __name__ == "__main__":
    main()
