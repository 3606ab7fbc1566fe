"""A misbehaving tournament entrant for tests (standard library only): it answers ``hello`` and ``position`` as
the stdio protocol says, then at its first ``go`` it crashes (``crash``: exit status 3 after a line on stderr),
hangs (``hang``: never answers), cheats (``cheat``: names an action id that is not legal) or answers garbage
(``garbage``: a line that is not JSON)."""

import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    reply = {"ok": True, "id": request.get("id"), "cmd": request["cmd"]}
    if request["cmd"] == "hello":
        reply.update(protocol=1, engine="bad-bot", bots=[mode])
    elif request["cmd"] == "position":
        reply["game"] = {}
    elif request["cmd"] == "go":
        if mode == "crash":
            print("bad_bot: crashing on purpose", file=sys.stderr)
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        reply.update(
            action={"id": 999_999, "string": "win-the-game"}, bot="cheat", nodes=1, elapsed_ms=0, applied=False
        )
    elif request["cmd"] == "quit":
        reply["bye"] = True
        print(json.dumps(reply), flush=True)
        break
    print(json.dumps(reply), flush=True)
