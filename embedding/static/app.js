// The browser page of the balance-control HTTP service (docs/embedding.md): play a full game against a bot by
// clicking, save it as a game log (a replay document, docs/replays.md), and replay a saved log step by step.
// Plain JavaScript, no build step. The service is stateless: this page keeps the state and sends it along.
"use strict";

const $ = (id) => document.getElementById(id);
const CELL_VERBS = ["place-tile", "place", "move-from", "move-to", "formalize", "convert", "target"];

const play = {
  state: null, // the game state (Game.to_dict()) from the service
  game: null, // the protocol's game summary
  legal: [], // [{id, string}] while it is the person's turn
  seat: 0,
  bot: "",
  seed: 1,
  config: null,
  actions: [], // every action string so far: the game log
  busy: false,
  selected: null, // the cell whose actions are shown
};
const rep = { doc: null, step: 0 };

async function api(cmd, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  const res = await fetch(`/v1/${cmd}`, init);
  const reply = await res.json();
  if (!reply.ok) throw new Error(`${cmd}: ${reply.error.code}: ${reply.error.message}`);
  return reply;
}

function setStatus(text, status) {
  $("status").textContent = text;
  if (status) document.body.dataset.status = status;
}

function cellOf(actionString) {
  const [verb, arg] = actionString.split(" ");
  return CELL_VERBS.includes(verb) && arg && /^\d+,\d+$/.test(arg) ? arg : null;
}

function showBoard(svg) {
  $("board").innerHTML = svg;
}

function addLog(text) {
  const li = document.createElement("li");
  li.textContent = text;
  $("log").appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

// --- play ------------------------------------------------------------------------------------------------

async function newGame() {
  if (play.busy) return;
  play.busy = true;
  try {
    play.bot = $("bot").value;
    play.seed = Number($("seed").value) || 0;
    play.seat = Number($("seat").value) || 0;
    play.actions = [];
    $("log").innerHTML = "";
    $("last-move").textContent = "";
    const reply = await api("new", { config: $("preset").value, seed: play.seed });
    if (play.seat >= reply.game.num_players) throw new Error(`seat ${play.seat}: this game has ${reply.game.num_players} seats`);
    play.state = reply.state;
    play.game = reply.game;
    play.config = reply.state.config;
    $("save").disabled = false;
    await botTurns();
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    play.busy = false;
  }
}

/** Let the bot play every seat but the person's until it is the person's turn or the game is over. */
async function botTurns() {
  while (!play.game.terminal && play.game.player !== play.seat) {
    setStatus(`P${play.game.player} (${play.bot}) is thinking…`, "thinking");
    const player = play.game.player;
    const reply = await api("go", { state: play.state, bot: play.bot, bot_seed: play.seed, movetime_ms: 10000, apply: true });
    record(player, reply.action.string, play.bot);
    play.state = reply.state;
    play.game = reply.game;
  }
  await showPlay();
}

function record(player, action, who) {
  play.actions.push(action);
  const text = `P${player} (${who}): ${action}`;
  $("last-move").textContent = text;
  addLog(text);
}

async function showPlay() {
  const [render, legal] = await Promise.all([
    api("render", { state: play.state, format: "svg" }),
    api("legal", { state: play.state }),
  ]);
  showBoard(render.svg);
  play.legal = legal.actions;
  play.selected = null;
  if (play.game.terminal) {
    const w = play.game.winners.map((p) => `P${p}`).join(", ");
    const you = play.game.winners.includes(play.seat) ? "you win" : "you lose";
    setStatus(`Game over: ${w} ${play.game.winners.length > 1 ? "share the victory" : "wins"} (${you}).`, "over");
    play.legal = [];
  } else {
    setStatus(`Your turn (P${play.seat}): ${play.game.phase.replace("_", " ")}`, "human");
  }
  document.body.dataset.phase = play.game.phase;
  markLegalCells();
  showActions();
  document.body.dataset.shown = String(play.actions.length); // how many actions the page shows: for tests
}

function markLegalCells() {
  const cells = new Set(play.legal.map((a) => cellOf(a.string)).filter(Boolean));
  for (const g of $("board").querySelectorAll("[data-cell]")) {
    g.classList.toggle("legal", cells.has(g.dataset.cell));
    g.classList.toggle("selected", g.dataset.cell === play.selected);
  }
}

/** Buttons: the actions of the selected cell, or every action that is not on a cell (pass, pay, gain, ...). */
function showActions() {
  const box = $("actions");
  box.innerHTML = "";
  const shown = play.selected
    ? play.legal.filter((a) => cellOf(a.string) === play.selected)
    : play.legal.filter((a) => !cellOf(a.string));
  for (const a of shown) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = play.selected ? "action for-cell" : "action";
    b.textContent = a.string;
    b.dataset.action = a.string;
    b.addEventListener("click", () => take(a.string));
    box.appendChild(b);
  }
}

async function take(action) {
  if (play.busy || !play.legal.some((a) => a.string === action)) return;
  play.busy = true;
  try {
    const reply = await api("apply", { state: play.state, action });
    record(play.seat, action, "you");
    play.state = reply.state;
    play.game = reply.game;
    await botTurns();
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    play.busy = false;
  }
}

function clickBoard(event) {
  if ($("play-controls").hidden || play.busy || !play.legal.length) return;
  const g = event.target.closest("[data-cell]");
  if (!g || !g.classList.contains("legal")) return;
  const here = play.legal.filter((a) => cellOf(a.string) === g.dataset.cell);
  if (here.length === 1) {
    take(here[0].string);
  } else {
    play.selected = g.dataset.cell;
    markLegalCells();
    showActions();
  }
}

function saveLog() {
  if (!play.config) return;
  const doc = { format: "balance-control-replay", version: 1, config: play.config, seed: play.seed, actions: play.actions };
  if (play.game && play.game.terminal) doc.result = { winners: play.game.winners, returns: play.game.returns };
  const blob = new Blob([JSON.stringify(doc, null, 1) + "\n"], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `balance-control-${play.config.name}-seed${play.seed}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// --- replay ----------------------------------------------------------------------------------------------

async function loadReplay(file) {
  try {
    const doc = JSON.parse(await file.text());
    if (!doc || doc.format !== "balance-control-replay" || !Array.isArray(doc.actions)) {
      throw new Error("not a balance-control replay (format balance-control-replay)");
    }
    rep.doc = doc;
    $("log").innerHTML = "";
    doc.actions.forEach((a, i) => addLog(`${i + 1}. ${a}`));
    await showStep(0);
  } catch (err) {
    setStatus(`replay: ${err.message}`, "error");
  }
}

async function showStep(k) {
  if (!rep.doc) return;
  const n = rep.doc.actions.length;
  k = Math.max(0, Math.min(n, k));
  const pos = await api("position", { config: rep.doc.config, seed: rep.doc.seed, actions: rep.doc.actions.slice(0, k) });
  const render = await api("render", { state: pos.state, format: "svg" });
  rep.step = k;
  showBoard(render.svg);
  $("step").textContent = `${k} / ${n}`;
  $("last-move").textContent = k ? `last: ${rep.doc.actions[k - 1]}` : "start of the game";
  for (const [id, on] of [["first", k > 0], ["prev", k > 0], ["next", k < n], ["last", k < n]]) $(id).disabled = !on;
  const items = $("log").children;
  for (let i = 0; i < items.length; i++) items[i].style.color = i < k ? "#e8e8f0" : "#777";
  document.body.dataset.step = String(k);
  setStatus(pos.game.terminal ? `Replay: game over, winners ${pos.game.winners.map((p) => "P" + p).join(", ")}` : `Replay: step ${k} of ${n}`, "replay");
}

function showTab(name) {
  const playing = name === "play";
  $("play-controls").hidden = !playing;
  $("replay-controls").hidden = playing;
  $("tab-play").classList.toggle("active", playing);
  $("tab-replay").classList.toggle("active", !playing);
  $("actions").innerHTML = "";
  $("log").innerHTML = "";
  $("board").innerHTML = "";
  if (playing && play.state) {
    play.actions.forEach((a, i) => addLog(`${i + 1}. ${a}`));
    showPlay();
  } else if (!playing && rep.doc) {
    rep.doc.actions.forEach((a, i) => addLog(`${i + 1}. ${a}`));
    showStep(rep.step);
  } else {
    setStatus(playing ? "Choose the rules and a bot, then start a new game." : "Open a saved game log.", "idle");
  }
}

// --- start -----------------------------------------------------------------------------------------------

async function init() {
  const hello = await api("hello");
  $("engine").textContent = `${hello.engine} ${hello.engine_version} · protocol ${hello.protocol}`;
  for (const p of hello.presets) $("preset").add(new Option(p, p, p === "core-2p", p === "core-2p"));
  for (const b of hello.bots) $("bot").add(new Option(b, b, b === "ppo-core-2p", b === "ppo-core-2p"));
  $("new").addEventListener("click", newGame);
  $("save").addEventListener("click", saveLog);
  $("board").addEventListener("click", clickBoard);
  $("replay-file").addEventListener("change", (e) => e.target.files[0] && loadReplay(e.target.files[0]));
  $("first").addEventListener("click", () => showStep(0));
  $("prev").addEventListener("click", () => showStep(rep.step - 1));
  $("next").addEventListener("click", () => showStep(rep.step + 1));
  $("last").addEventListener("click", () => showStep(rep.doc ? rep.doc.actions.length : 0));
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  document.body.dataset.ready = "1";
}

init().catch((err) => setStatus(`cannot reach the service: ${err.message}`, "error"));
