#!/usr/bin/env node
// A tournament entrant in Node.js (standard library only): a bot that answers the stdio bot protocol
// (docs/protocol.md) the way `balance-control serve --stdio --bot NAME` does, so that the game runner can seat it:
//
//   balance-control tournament --bots "random,cmd:node clients/node/entrant.mjs" --log t.jsonl
//   balance-control match --bots "cmd:node clients/node/entrant.mjs,heuristic" --games 20 --paired
//
// The runner sends `hello`, then at each of the bot's decisions `position` (the whole state) and `go`, and `quit`
// at the end of the game (docs/benchmarking.md, "Outside bots"). This entrant knows no rules itself: it asks its
// own engine (a `balance-control serve --stdio` child; `BC_PYTHON` names the Python, default python3) for the
// legal actions and chooses among them by a simple rule of its own: formalize a Committee when it can, else place
// Influence, else pay with the first option, else a seeded random choice (mulberry32 seeded by BC_BOT_SEED, which
// the runner sets per game, so its games are reproducible).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mulberry32 } from "./common.mjs";

/** The entrant's rules engine: send(request) resolves with its reply (replies come back in order). */
class Engine {
  constructor(python) {
    this.child = spawn(python, ["-m", "balance_control", "serve", "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
    this.waiting = [];
    createInterface({ input: this.child.stdout }).on("line", (line) => this.waiting.shift()?.(JSON.parse(line)));
  }

  send(request) {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(JSON.stringify(request) + "\n");
    });
  }
}

const PREFERENCES = ["formalize ", "place ", "pay "];

function choose(legal, rand) {
  for (const prefix of PREFERENCES) {
    const options = legal.filter((a) => a.string.startsWith(prefix));
    if (options.length) return options[Math.floor(rand() * options.length)];
  }
  return legal[Math.floor(rand() * legal.length)];
}

const engine = new Engine(process.env.BC_PYTHON || "python3");
const rand = mulberry32(Number(process.env.BC_BOT_SEED || 0));
const out = (reply) => process.stdout.write(JSON.stringify(reply) + "\n");
const error = (request, code, message) =>
  out({ ok: false, id: request.id ?? null, cmd: request.cmd ?? null, error: { code, message } });

async function handle(request) {
  const base = { ok: true, id: request.id ?? null, cmd: request.cmd };
  switch (request.cmd) {
    case "hello": {
      const hello = await engine.send({ cmd: "hello", protocol: 1, client: "node-entrant" });
      if (!hello.ok) return error(request, hello.error.code, hello.error.message);
      return out({ ...base, protocol: 1, engine: "node-entrant", bots: ["node-entrant"] });
    }
    case "position": {
      const reply = await engine.send({ cmd: "position", state: request.state });
      return out({ ...reply, id: base.id });
    }
    case "go": {
      const started = Date.now();
      const reply = await engine.send({ cmd: "legal" });
      if (!reply.ok) return error(request, reply.error.code, reply.error.message);
      if (!reply.actions.length) return error(request, "game_over", "no legal action");
      const action = choose(reply.actions, rand);
      return out({ ...base, action, bot: "node-entrant", nodes: 1, elapsed_ms: Date.now() - started, applied: false });
    }
    case "quit":
      out({ ...base, bye: true });
      engine.child.stdin.end();
      return process.exit(0);
    default:
      return error(request, "unknown_command", `this entrant answers hello, position, go and quit, not ${request.cmd}`);
  }
}

// One request at a time, in order.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return out({ ok: false, id: null, cmd: null, error: { code: "bad_json", message: "not a JSON message" } });
  }
  queue = queue.then(() => handle(request));
});
process.stdin.on("end", () => queue.then(() => process.exit(0)));
