#!/usr/bin/env node
// Reference client for the balance-control bot protocol over stdio (docs/protocol.md), Node's standard library only.
//
// It starts `balance-control serve --stdio` as a child process, plays one full game in which the bot answers for
// the seats it is given and this client plays the others (a seeded random choice among the legal actions, as a
// stand-in for a person), and prints the game as a replay document (docs/replays.md) on stdout.
//
//   node clients/node/stdio_client.mjs [--python .venv/bin/python] [--config core-2p] [--seed 1]
//                                      [--bot ppo-core-2p] [--bot-seats 1]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { clientOptions, mulberry32, printReplay } from "./common.mjs";

const opts = clientOptions({ python: { type: "string", default: process.env.BC_PYTHON || "python3" } });

/** One connection to the engine: send(request) resolves with its reply (replies come back in order). */
class Engine {
  constructor(python) {
    this.child = spawn(python, ["-m", "balance_control", "serve", "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
    this.waiting = [];
    this.nextId = 1;
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const reply = JSON.parse(line);
      const pending = this.waiting.shift();
      if (pending) pending(reply);
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  send(request) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(JSON.stringify({ ...request, id }) + "\n");
    }).then((reply) => {
      if (reply.id !== id) throw new Error(`reply ${reply.id} to request ${id}`);
      return reply;
    });
  }

  /** send(), failing on an error reply. */
  async call(request) {
    const reply = await this.send(request);
    if (!reply.ok) throw new Error(`${request.cmd}: ${reply.error.code}: ${reply.error.message}`);
    return reply;
  }
}

async function main() {
  const engine = new Engine(opts.python);
  const seed = Number(opts.seed);
  const botSeats = new Set(opts["bot-seats"].split(",").map(Number));
  const rand = mulberry32(seed);
  const hello = await engine.call({ cmd: "hello", protocol: 1, client: "node-stdio-reference" });
  if (!hello.bots.includes(opts.bot)) throw new Error(`the engine has no bot ${opts.bot}`);
  // A malformed message gets an error reply and the session goes on.
  const bad = await engine.send({ cmd: "apply" });
  if (bad.ok || bad.error.code !== "bad_message") throw new Error("expected a bad_message reply");
  let { game } = await engine.call({ cmd: "new", config: opts.config, seed });
  await engine.call({ cmd: "bot", name: opts.bot, seed });
  const actions = [];
  let botMoves = 0;
  while (!game.terminal) {
    let reply;
    if (botSeats.has(game.player)) {
      reply = await engine.call({ cmd: "go", movetime_ms: 10000, apply: true });
      botMoves++;
    } else {
      const { actions: legal } = await engine.call({ cmd: "legal" });
      const choice = legal[Math.floor(rand() * legal.length)];
      reply = await engine.call({ cmd: "apply", action: choice.string });
    }
    actions.push(reply.action.string);
    game = reply.game;
  }
  const { state } = await engine.call({ cmd: "state" });
  await engine.call({ cmd: "quit" });
  const code = await engine.exited;
  if (code !== 0) throw new Error(`the engine exited with ${code}`);
  printReplay("stdio", { config: state.config, seed, actions, game, bot: opts.bot, botMoves });
}

main().catch((err) => {
  console.error(`stdio client: ${err.message}`);
  process.exit(1);
});
