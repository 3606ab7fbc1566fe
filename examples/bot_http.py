"""Call a bot over HTTP: start ``balance-control serve --http --port 0``, read the address it prints, and ask the
stateless service for a bot's moves (each request carries the state, each reply returns the new one;
docs/protocol.md). Uses only the standard library as the client.

    python examples/bot_http.py          # needs the serve extra: pip install -e '.[serve]'
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from typing import Any


def main() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--http", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "serving the bots and the browser page at http://127.0.0.1:PORT/ ..."
        match = re.search(r"http://\S+/", line)
        if match is None:
            raise RuntimeError(f"the server did not start: {line!r}")
        url = match.group(0)
        print(f"server at {url} (open it in a browser to play)")

        def post(command: str, **body: Any) -> dict[str, Any]:
            request = urllib.request.Request(
                url + "v1/" + command, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=60) as reply:
                return json.loads(reply.read())

        state = post("new", config="core-2p", seed=3)["state"]
        for _ in range(6):
            reply = post("go", state=state, bot="heuristic", bot_seed=0, apply=True)
            state = reply["state"]
            print(f"heuristic plays {reply['action']['string']}")
        legal = post("legal", state=state)
        print(f"now P{legal['player']} decides ({legal['phase']}), {len(legal['actions'])} options")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
