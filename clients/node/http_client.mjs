#!/usr/bin/env node
// Reference client for the balance-control HTTP service (docs/protocol.md), Node's standard library only
// (the built-in fetch). The service is stateless: the client keeps the state and sends it with every request.
//
// It plays one full game against a bot on a running service (`balance-control serve --http`) and prints the game
// as a replay document on stdout; this client plays the seats the bot does not (a seeded random choice).
//
//   node clients/node/http_client.mjs --url http://127.0.0.1:8017 [--config core-2p] [--seed 1]
//                                     [--bot ppo-core-2p] [--bot-seats 1]
import { clientOptions, mulberry32, printReplay } from "./common.mjs";

const opts = clientOptions({ url: { type: "string", default: "http://127.0.0.1:8017" } });

/** POST /v1/<cmd> (GET for hello); returns [status, reply]. */
async function send(cmd, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  const res = await fetch(`${opts.url}/v1/${cmd}`, init);
  return [res.status, await res.json()];
}

async function call(cmd, body) {
  const [status, reply] = await send(cmd, body);
  if (!reply.ok) throw new Error(`${cmd}: HTTP ${status} ${reply.error.code}: ${reply.error.message}`);
  return reply;
}

async function main() {
  const seed = Number(opts.seed);
  const botSeats = new Set(opts["bot-seats"].split(",").map(Number));
  const rand = mulberry32(seed);
  const hello = await call("hello");
  if (!hello.bots.includes(opts.bot)) throw new Error(`the service has no bot ${opts.bot}`);
  const [status, bad] = await send("apply", { action: "pass" }); // no state: refused, nothing breaks
  if (status !== 400 || bad.error.code !== "bad_message") throw new Error(`expected 400 bad_message, got ${status}`);
  let { game, state } = await call("new", { config: opts.config, seed });
  const actions = [];
  let botMoves = 0;
  while (!game.terminal) {
    let reply;
    if (botSeats.has(game.player)) {
      reply = await call("go", { state, bot: opts.bot, bot_seed: seed, movetime_ms: 10000, apply: true });
      botMoves++;
    } else {
      const { actions: legal } = await call("legal", { state });
      const choice = legal[Math.floor(rand() * legal.length)];
      reply = await call("apply", { state, action: choice.string });
    }
    actions.push(reply.action.string);
    ({ game, state } = reply);
  }
  printReplay("http", { config: state.config, seed, actions, game, bot: opts.bot, botMoves });
}

main().catch((err) => {
  console.error(`http client: ${err.message}`);
  process.exit(1);
});
