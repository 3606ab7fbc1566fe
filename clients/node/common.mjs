// What the Node.js clients share (standard library only): the seeded PRNG, the reference clients' options and
// the replay document they print.
import { parseArgs } from "node:util";

/** A tiny seeded PRNG (mulberry32): a function returning floats in [0, 1), so a client's own moves are reproducible. */
export function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The command line of a reference client: its own options (how to reach the engine) and those of the game. */
export function clientOptions(own) {
  return parseArgs({
    options: {
      ...own,
      config: { type: "string", default: "core-2p" },
      seed: { type: "string", default: "1" },
      bot: { type: "string", default: "ppo-core-2p" },
      "bot-seats": { type: "string", default: "1" },
    },
  }).values;
}

/** Print the game as a replay document (docs/replays.md) on stdout and a one-line summary on stderr. */
export function printReplay(label, { config, seed, actions, game, bot, botMoves }) {
  const doc = {
    format: "balance-control-replay",
    version: 1,
    config,
    seed,
    actions,
    result: { winners: game.winners, returns: game.returns },
  };
  console.log(JSON.stringify(doc));
  console.error(`${label}: ${actions.length} actions (${botMoves} by ${bot}); winners ${game.winners.join(",")}`);
}
