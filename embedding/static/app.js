// The browser page of the balance-control HTTP service (docs/embedding.md): play a full game against a bot by
// clicking, save it as a game log (a replay document, docs/replays.md) or continue one, and replay a saved log
// move by move. Plain JavaScript, no build step, no inline script or style (a Content-Security-Policy without
// 'unsafe-inline' holds). The service is stateless: this page keeps the state and sends it along; POST /v1/view
// (embedding/page.py) returns everything shown of a position: the board's SVG, the seats, the cards and their
// texts, the legal actions.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const CELL_VERBS = ["place-tile", "place", "move-from", "move-to", "formalize", "convert", "target",
  "security-level", "control", "administration", "blockade"];
const CARD_KEY = /EXP-0\d-M\d\d/g;
const PHASES = {
  place_tile: "place the drawn tile (a white cell)",
  political: "choose a Political Action",
  move_to: "choose where the Influence goes",
  pay: "choose how to pay",
  gain: "choose what to gain",
  target: "choose the Measure's target",
  exchange: "choose the exchange",
};

const play = {
  state: null, // the game state (Game.to_dict()) from the service
  view: null, // the page's view of it (/v1/view)
  seat: 0,
  bot: "",
  seed: 1,
  config: null, // the rules configuration object (state.config)
  actions: [], // every action string so far: the game log
  actors: [], // the seat that took each action (-1: unknown, from a loaded log)
  busy: false,
  selected: null, // the cell whose actions are shown
  overShown: false,
};
const rep = { doc: null, step: 0, want: 0, seq: 0, view: null }; // want: the step asked for last (keys repeat)
let cards = {}; // key -> {name, deck, text} of the game shown

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

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setStatus(text, status) {
  $("status").textContent = text;
  if (status) document.body.dataset.status = status;
}

function cellOf(actionString) {
  const [verb, arg] = actionString.split(" ");
  return CELL_VERBS.includes(verb) && arg && /^\d+,\d+$/.test(arg) ? arg : null;
}

/** An action string with its Measure card keys replaced by the cards' names. */
function actionLabel(action) {
  return action.replace(CARD_KEY, (k) => (cards[k] ? cards[k].name : k));
}

function seatName(p, mine) {
  if (mine === undefined) return `P${p}`;
  return p === mine ? `P${p} (you)` : `P${p}`;
}

// --- drawing a position ------------------------------------------------------------------------------------

/** Show a view: the board, the seats, the table (cards, effects, Regulations, Countdown). */
function showView(v, opts) {
  cards = v.cards || {};
  relabelLog();
  $("board").innerHTML = v.svg;
  drawSeats(v, opts);
  drawTable(v);
  markMoves(opts.marks || []);
  $("tile-info").hidden = true;
  fitBoard();
}

/** On a narrow screen the board keeps cells of at least 46 px and scrolls sideways (Zoom), or fits (Fit). */
function fitBoard() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
  const narrow = window.matchMedia("(max-width: 760px)").matches;
  const zoom = narrow && !document.body.classList.contains("board-fit");
  const cols = svg.viewBox.baseVal.width / 60;
  svg.style.width = zoom ? `${Math.max(cols * 46, $("board").clientWidth)}px` : ""; // CSSOM: allowed by the CSP
  $("zoom").hidden = !narrow;
  $("zoom").textContent = zoom ? "Fit board" : "Zoom board";
  if (zoom) {
    const lit = [...svg.querySelectorAll(".cell.legal, .cell.turn")];
    const xs = lit.map((g) => { const b = g.getBBox(); return b.x + b.width / 2; });
    const mid = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : svg.viewBox.baseVal.width / 2;
    const scale = svg.clientWidth / svg.viewBox.baseVal.width;
    $("board").scrollLeft = mid * scale - $("board").clientWidth / 2;
  }
}

function drawSeats(v, opts) {
  const box = $("seats");
  box.innerHTML = "";
  box.hidden = false;
  const g = v.game;
  for (const s of v.seats) {
    const d = el("div", `seat c${s.seat}`);
    d.dataset.seat = String(s.seat);
    if (!g.terminal && g.player === s.seat) d.classList.add("to-move");
    const top = el("div", "top");
    top.append(el("span", "name", `${g.terminal || g.player !== s.seat ? "" : "▶ "}P${s.seat}`));
    const who = opts.mine === undefined ? "" : s.seat === opts.mine ? "you" : opts.bot;
    top.append(el("span", "who", who));
    const infl = el("span", "infl", String(s.on_board));
    infl.title = "Influence on the Board (the score, CORE-01-09-03) / the cap";
    infl.append(el("small", "", ` / ${s.cap} on board`));
    top.append(infl);
    d.append(top);
    const res = el("div", "res");
    res.append(chip("supply", s.supply));
    for (const [r, n] of Object.entries(s.resources)) res.append(chip(r, n));
    if (s.start_committee_used) res.append(el("span", "chip", "SC used"));
    d.append(res);
    if (s.hand.length) {
      const hand = el("div", "hand");
      for (const k of s.hand) hand.append(cardChip(k));
      d.append(hand);
    }
    box.append(d);
  }
}

function chip(label, n) {
  const c = el("span", "chip", `${label} `);
  c.append(el("b", "", String(n)));
  return c;
}

function cardChip(key) {
  const info = cards[key] || { name: key, deck: "", text: [] };
  const b = el("button", "card");
  b.type = "button";
  b.dataset.card = key;
  b.title = `${info.name} (${key})\n${info.text.join("\n")}`;
  b.append(el("span", "", info.name));
  return b;
}

function tileMini(t) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 34 24");
  svg.setAttribute("width", "34");
  svg.setAttribute("height", "24");
  svg.setAttribute("class", "tile-mini");
  const r = document.createElementNS(SVG_NS, "rect");
  for (const [k, val] of [["width", "34"], ["height", "24"], ["rx", "4"], ["fill", t.fill], ["stroke", "#000"]]) r.setAttribute(k, val);
  const tx = document.createElementNS(SVG_NS, "text");
  for (const [k, val] of [["x", "17"], ["y", "17"], ["text-anchor", "middle"], ["font-size", "14"], ["font-weight", "bold"], ["fill", t.ink]]) tx.setAttribute(k, val);
  tx.textContent = t.code;
  svg.append(r, tx);
  return svg;
}

function row(label) {
  const r = el("div", "row");
  r.append(el("span", "label", label));
  return r;
}

function drawTable(v) {
  const box = $("table");
  box.innerHTML = "";
  box.hidden = false;
  box.append(el("h2", "", `${v.game.config} · round ${v.round}`));
  let r = row("Tiles");
  r.append(el("span", "", `draw pile ${v.draw_pile} · discard ${v.discard}`));
  box.append(r);
  if (v.tile_in_hand) {
    r = row("Tile in hand");
    r.append(tileMini(v.tile_in_hand), el("span", "", v.tile_in_hand.name));
    box.append(r);
  }
  for (const d of v.decks) {
    r = row(`Open ${d.deck}`);
    r.classList.add("open-cards");
    for (const k of d.open) r.append(cardChip(k));
    if (!d.open.length) r.append(el("span", "", "none"));
    box.append(r);
    const piles = row("");
    piles.append(el("span", "label", `pile ${d.draw_pile} · recycled ${d.recycle_pile} · out ${d.final_discard}`));
    box.append(piles);
  }
  if (v.effects.length) {
    r = row("In force");
    r.classList.add("effects");
    for (const e of v.effects) {
      const s = el("span", `c${e.owner}`);
      s.append(el("span", "swatch"), " ");
      s.append(cards[e.id] ? cardChip(e.id) : el("span", "", e.name));
      s.append(el("span", "", ` ${e.cell ? "on " + e.cell + ", " : ""}${e.until.replaceAll("_", " ")}`));
      r.append(s);
    }
    box.append(r);
  }
  if (v.regulations) {
    r = row("Regulations");
    r.classList.add("regulations");
    if (!v.regulations.attached.length) r.append(el("span", "", "none attached"));
    for (const a of v.regulations.attached) {
      const s = el("span", "reg", `${a.cell}: ${a.short}`);
      s.title = Object.entries(a.counts).map(([t, n]) => `${t} ×${n}: ${(v.regulations.texts[t] || []).join(" ")}`).join("\n");
      r.append(s);
    }
    box.append(r);
    const legend = row("");
    legend.append(el("span", "label", "S SecurityLevel · C Control · A Administration · B Blockade"));
    box.append(legend);
  }
  if (v.countdown) {
    r = row("Countdown");
    r.classList.add("countdown-row");
    r.append(el("span", "countdown", `${v.countdown.supply}`), el("span", "", "in supply"));
    for (const a of v.countdown.attached) r.append(el("span", "countdown", `${a.markers}`), el("span", "", `on ${a.cell}`));
    box.append(r);
  }
}

/** Mark the cells of the given moves on the board: numbered in order, the latest one on the board black. */
function markMoves(marks) {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const perCell = {};
  const withCell = marks.map((m, i) => (cellOf(m) ? i : -1)).filter((i) => i >= 0);
  const lastOnBoard = withCell.length ? withCell[withCell.length - 1] : -1;
  marks.forEach((m, i) => {
    const cell = cellOf(m);
    if (!cell) return;
    const g = svg.querySelector(`[data-cell="${cell}"]`);
    if (!g) return;
    const last = i === lastOnBoard; // the latest move on the board (pay / gain / pass are not on a cell)
    g.classList.add("turn");
    if (last) g.classList.add("last");
    const box = g.querySelector("polygon").getBBox();
    const k = perCell[cell] || 0;
    perCell[cell] = k + 1;
    const mark = document.createElementNS(SVG_NS, "g");
    mark.setAttribute("class", last ? "mark last" : "mark");
    mark.dataset.cell = cell;
    const hex = g.querySelector("polygon").points.numberOfItems === 6; // inside a hexagon, by its right edge
    const cx = box.x + box.width - (hex ? 12 : 4) - k * 19;
    const cy = hex ? box.y + box.height * 0.36 : box.y + box.height - 4;
    const c = document.createElementNS(SVG_NS, "circle");
    c.setAttribute("cx", String(cx));
    c.setAttribute("cy", String(cy));
    c.setAttribute("r", "9");
    const t = document.createElementNS(SVG_NS, "text");
    t.setAttribute("x", String(cx));
    t.setAttribute("y", String(cy + 4));
    t.textContent = String(i + 1);
    mark.append(c, t);
    svg.append(mark);
  });
}

/** One line of the move list: its number (once), then the text; in a replay a button that jumps there. A text
 * with a Measure card key keeps it in data-raw and shows the card's name (relabelled once the cards are known). */
function addLog(text, index, onClick) {
  const li = el("li");
  const n = $("log").children.length + 1;
  li.append(el("span", "n", `${n}.`));
  const t = onClick ? el("button", "t", actionLabel(text)) : el("span", "t", actionLabel(text));
  if (CARD_KEY.test(text)) t.dataset.raw = text;
  CARD_KEY.lastIndex = 0;
  if (onClick) {
    t.type = "button";
    t.addEventListener("click", () => onClick(index));
  }
  li.append(t);
  $("log").append(li);
  const log = $("log");
  log.scrollTop = log.scrollHeight;
}

function relabelLog() {
  for (const t of $("log").querySelectorAll("[data-raw]")) t.textContent = actionLabel(t.dataset.raw);
}

// --- play ------------------------------------------------------------------------------------------------

function readForm() {
  play.bot = $("bot").value;
  play.seed = Number($("seed").value) || 0;
  play.seat = Number($("seat").value) || 0;
}

async function newGame() {
  if (play.busy) return;
  play.busy = true;
  try {
    readForm();
    resetPlay();
    const reply = await api("new", { config: $("preset").value, seed: play.seed });
    if (play.seat >= reply.game.num_players) throw new Error(`seat ${play.seat}: this game has ${reply.game.num_players} seats (0-${reply.game.num_players - 1})`);
    play.state = reply.state;
    play.config = reply.state.config;
    document.body.dataset.playing = "1";
    $("save").disabled = false;
    await botTurns(reply.game);
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    play.busy = false;
  }
}

function resetPlay() {
  play.actions = [];
  play.actors = [];
  play.selected = null;
  play.overShown = false;
  $("show-result").hidden = true;
  $("log").innerHTML = "";
  $("last-move").textContent = "";
  $("gameover").hidden = true;
}

/** Let the bot play every seat but the person's until it is the person's turn or the game is over. */
async function botTurns(game) {
  while (!game.terminal && game.player !== play.seat) {
    setStatus(`P${game.player} (${play.bot}) is thinking… (move ${play.actions.length + 1})`, "thinking");
    const player = game.player;
    const reply = await api("go", { state: play.state, bot: play.bot, bot_seed: play.seed, movetime_ms: 10000, apply: true });
    record(player, reply.action.string);
    play.state = reply.state;
    game = reply.game;
  }
  await showPlay();
}

function record(player, action) {
  play.actions.push(action);
  play.actors.push(player);
  addLog(`${seatName(player, play.seat)}: ${action}`);
}

/** The moves to mark: the other seats' moves since the person's last one, or the person's last move. */
function recentMoves() {
  const n = play.actions.length;
  if (!n) return [];
  let j = n - 1;
  if (play.actors[j] !== play.seat && play.actors[j] >= 0) {
    while (j > 0 && play.actors[j - 1] !== play.seat && play.actors[j - 1] >= 0) j--;
  }
  return play.actions.slice(j);
}

/** "P1: 1 place-tile 9,1, 2 place 8,11 · P2: 3 ..." (the numbers of the marks on the board). */
function movesText(marks, start) {
  const parts = [];
  let who = null;
  marks.forEach((a, i) => {
    const p = play.actors[start + i];
    const text = `${i + 1} ${actionLabel(a)}`;
    if (p !== who || !parts.length) parts.push(`${p >= 0 ? seatName(p, play.seat) + ": " : ""}${text}`);
    else parts[parts.length - 1] += `, ${text}`;
    who = p;
  });
  return parts.join(" · ");
}

async function showPlay() {
  const v = await api("view", { state: play.state });
  play.view = v;
  play.selected = null;
  const marks = recentMoves();
  showView(v, { mine: play.seat, bot: play.bot, marks });
  const start = play.actions.length - marks.length;
  $("last-move").textContent = marks.length ? "Last: " + movesText(marks, start) : "";
  $("last-move").title = $("last-move").textContent; // the whole list where two lines cut it
  const g = v.game;
  if (g.terminal) {
    setStatus(`Game over: ${resultText(g, play.seat)}.`, "over");
    if (!play.overShown) showGameOver(v);
  } else {
    const what = g.phase === "place_tile" && v.tile_in_hand
      ? `place the drawn tile, ${v.tile_in_hand.name} (${v.tile_in_hand.code}), on a white cell`
      : PHASES[g.phase] || g.phase.replaceAll(/[_-]/g, " ");
    setStatus(`Your turn (P${play.seat}): ${what}`, "human");
  }
  document.body.dataset.phase = g.phase;
  $("show-result").hidden = !g.terminal;
  markLegalCells();
  showActions();
  document.body.dataset.shown = String(play.actions.length); // how many actions the page shows: for tests
}

function legalNow() {
  return play.view && !play.view.game.terminal && $("replay-controls").hidden ? play.view.legal : [];
}

function markLegalCells() {
  const cells = new Set(legalNow().map((a) => cellOf(a.string)).filter(Boolean));
  for (const g of $("board").querySelectorAll(".cell[data-cell]")) {
    g.classList.toggle("legal", cells.has(g.dataset.cell));
    g.classList.toggle("selected", g.dataset.cell === play.selected);
  }
}

/** Buttons: the actions of the selected cell, or every action that is not on a cell (pass, pay, play, ...). */
function showActions() {
  const box = $("actions");
  box.innerHTML = "";
  const legal = legalNow();
  $("actions-box").hidden = !legal.length;
  const onCells = legal.some((a) => cellOf(a.string));
  const shown = play.selected
    ? legal.filter((a) => cellOf(a.string) === play.selected)
    : legal.filter((a) => !cellOf(a.string));
  $("actions-title").textContent = play.selected
    ? `Actions on ${play.selected}`
    : onCells ? (shown.length ? "Click a white cell on the board, or:" : "Click a white cell on the board") : "Your actions";
  for (const a of shown) {
    const b = el("button", play.selected ? "action for-cell" : "action", actionLabel(a.string));
    b.type = "button";
    b.dataset.action = a.string;
    const keys = a.string.match(CARD_KEY) || [];
    if (keys.length && cards[keys[0]]) b.title = `${cards[keys[0]].name} (${keys[0]})\n${cards[keys[0]].text.join("\n")}`;
    b.addEventListener("click", () => take(a.string));
    box.append(b);
  }
  if (play.selected) {
    const back = el("button", "action", "back");
    back.type = "button";
    back.addEventListener("click", () => { play.selected = null; markLegalCells(); showActions(); });
    box.append(back);
  }
}

async function take(action) {
  if (play.busy || !legalNow().some((a) => a.string === action)) return;
  play.busy = true;
  try {
    const reply = await api("apply", { state: play.state, action });
    record(play.seat, action);
    play.state = reply.state;
    await botTurns(reply.game);
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    play.busy = false;
  }
}

function clickBoard(event) {
  const g = event.target.closest("[data-cell]");
  if (!g) return;
  const legal = legalNow();
  if (play.busy || !g.classList.contains("legal")) {
    const title = g.querySelector("title");
    $("tile-info").textContent = title ? title.textContent : g.dataset.cell;
    $("tile-info").hidden = false;
    return;
  }
  const here = legal.filter((a) => cellOf(a.string) === g.dataset.cell);
  if (here.length === 1) {
    take(here[0].string);
  } else {
    play.selected = g.dataset.cell;
    markLegalCells();
    showActions();
  }
}

function resultText(g, mine) {
  const w = g.winners;
  const names = w.map((p) => `P${p}`).join(" and ");
  let text = w.length > 1 ? `${names} share the victory` : `${names} wins`;
  if (mine !== undefined) text += w.includes(mine) ? (w.length > 1 ? " (you share it)" : " (you win)") : " (you lose)";
  return text;
}

function showGameOver(v) {
  play.overShown = true;
  const g = v.game;
  $("gameover-title").textContent = g.winners.includes(play.seat) ? (g.winners.length > 1 ? "A shared victory" : "You win!") : "Game over";
  $("gameover-result").textContent = `${resultText(g, play.seat)} after ${v.round} rounds and ${play.actions.length} actions.`;
  const body = $("gameover-table").querySelector("tbody");
  body.innerHTML = "";
  for (const s of v.seats) {
    const tr = el("tr", `c${s.seat}`);
    if (g.winners.includes(s.seat)) tr.classList.add("winner");
    const seat = el("td");
    seat.append(el("span", "swatch"), ` P${s.seat}`);
    const ret = g.returns[s.seat];
    const result = g.winners.includes(s.seat) ? (g.winners.length > 1 ? "shared win" : "win") : "loss";
    tr.append(seat, el("td", "", s.seat === play.seat ? "you" : play.bot), el("td", "num", String(v.influence[s.seat])),
      el("td", "", `${result} (${ret > 0 ? "+" : ""}${Number(ret.toFixed(3))})`));
    body.append(tr);
  }
  $("gameover").hidden = false;
}

function rematch() {
  $("gameover").hidden = true;
  $("seed").value = String((Number($("seed").value) || 0) + 1);
  newGame();
}

function saveLog() {
  if (!play.config) return;
  const doc = { format: "balance-control-replay", version: 1, config: play.config, seed: play.seed, actions: play.actions };
  if (play.view && play.view.game.terminal) doc.result = { winners: play.view.game.winners, returns: play.view.game.returns };
  const blob = new Blob([JSON.stringify(doc, null, 1) + "\n"], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `balance-control-${play.config.name}-seed${play.seed}.json`;
  document.body.append(a);
  a.click();
  a.remove();
}

function checkLog(doc) {
  if (!doc || doc.format !== "balance-control-replay" || !Array.isArray(doc.actions)) {
    throw new Error("not a balance-control game log (format balance-control-replay) or state");
  }
  return doc;
}

async function readLog(file) {
  return checkLog(JSON.parse(await file.text()));
}

/** Continue a saved game (a game log, or a JSON state: Game.to_dict()), then the bots' turns until it is the
 * person's. From a state the game log starts there and cannot be saved (a log starts at a seed). */
async function continueLog(file) {
  if (play.busy) return;
  play.busy = true;
  try {
    const doc = JSON.parse(await file.text());
    const fromState = doc && doc.schema === "balance-control-state";
    if (!fromState) checkLog(doc);
    readForm();
    resetPlay();
    const pos = fromState
      ? await api("position", { state: doc })
      : await api("position", { config: doc.config, seed: doc.seed, actions: doc.actions });
    if (play.seat >= pos.game.num_players) throw new Error(`seat ${play.seat}: this game has ${pos.game.num_players} seats`);
    play.state = pos.state;
    play.config = fromState ? null : pos.state.config;
    if (!fromState) {
      play.seed = doc.seed;
      $("seed").value = String(doc.seed);
      doc.actions.forEach((a) => { play.actions.push(a); play.actors.push(-1); addLog(a); });
    }
    if (pos.state.config.name && [...$("preset").options].some((o) => o.value === pos.state.config.name)) $("preset").value = pos.state.config.name;
    $("save").disabled = fromState;
    document.body.dataset.playing = "1";
    await botTurns(pos.game);
  } catch (err) {
    setStatus(`game log: ${err.message}`, "error");
  } finally {
    play.busy = false;
    $("load-file").value = "";
  }
}

// --- replay ----------------------------------------------------------------------------------------------

async function loadReplay(file) {
  try {
    rep.doc = await readLog(file);
    fillReplayLog();
    $("goto").max = String(rep.doc.actions.length);
    await showStep(0);
  } catch (err) {
    setStatus(`replay: ${err.message}`, "error");
  }
}

function fillReplayLog() {
  $("log").innerHTML = "";
  rep.doc.actions.forEach((a, i) => addLog(a, i + 1, showStep));
}

async function showStep(k) {
  if (!rep.doc) return;
  const n = rep.doc.actions.length;
  k = Math.max(0, Math.min(n, Number(k) || 0));
  rep.want = k;
  const seq = ++rep.seq;
  const v = await api("view", { config: rep.doc.config, seed: rep.doc.seed, actions: rep.doc.actions.slice(0, k) });
  if (seq !== rep.seq) return; // a later step was asked for meanwhile
  rep.step = k;
  rep.view = v;
  showView(v, { marks: k ? [rep.doc.actions[k - 1]] : [] });
  $("step").textContent = `${k} / ${n}`;
  $("goto").value = String(k);
  $("last-move").textContent = k ? `Move ${k}: ${actionLabel(rep.doc.actions[k - 1])}` : "Start of the game";
  for (const [id, on] of [["first", k > 0], ["prev", k > 0], ["next", k < n], ["last", k < n], ["goto-button", true]]) $(id).disabled = !on;
  const items = $("log").children;
  for (let i = 0; i < items.length; i++) {
    items[i].classList.toggle("done", i < k);
    items[i].classList.toggle("current", i === k - 1);
  }
  const log = $("log");
  if (k > 0 && items[k - 1]) log.scrollTop = Math.max(0, items[k - 1].offsetTop - log.offsetTop - log.clientHeight / 2);
  else log.scrollTop = 0;
  document.body.dataset.step = String(k);
  const g = v.game;
  setStatus(g.terminal ? `Replay: game over, ${resultText(g)}` : `Replay: move ${k} of ${n} · P${g.player} to ${PHASES[g.phase] || g.phase}`, "replay");
}

function showTab(name) {
  const playing = name === "play";
  document.body.dataset.tab = name;
  $("play-controls").hidden = !playing;
  $("replay-controls").hidden = playing;
  $("tab-play").classList.toggle("active", playing);
  $("tab-replay").classList.toggle("active", !playing);
  $("actions").innerHTML = "";
  $("actions-box").hidden = true;
  $("log").innerHTML = "";
  $("board").innerHTML = "";
  $("last-move").textContent = "";
  $("gameover").hidden = true;
  $("show-result").hidden = true;
  $("seats").hidden = true;
  $("table").hidden = true;
  if (playing && play.state) {
    play.actions.forEach((a, i) => addLog(play.actors[i] >= 0 ? `${seatName(play.actors[i], play.seat)}: ${a}` : a));
    showPlay();
  } else if (!playing && rep.doc) {
    fillReplayLog();
    showStep(rep.step);
  } else {
    setStatus(playing ? "Choose the rules and a bot, then start a new game." : "Open a saved game log.", "idle");
  }
}

// --- card texts (hover: the title; tap or click: this box) -------------------------------------------------

function showCardTip(button) {
  const key = button.dataset.card;
  const info = cards[key];
  const tip = $("card-tip");
  if (!info || (!tip.hidden && tip.dataset.card === key)) {
    tip.hidden = true;
    return;
  }
  tip.innerHTML = "";
  tip.dataset.card = key;
  tip.append(el("h3", "", info.name), el("div", "key", `${key} · ${info.deck}`));
  for (const line of info.text) tip.append(el("p", "", line));
  tip.hidden = false;
  const r = button.getBoundingClientRect();
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  const left = Math.max(8, Math.min(window.innerWidth - w - 8, r.left));
  const top = r.bottom + 6 + h < window.innerHeight ? r.bottom + 6 : Math.max(8, r.top - h - 6);
  tip.style.left = `${left}px`; // CSSOM, allowed under a CSP without 'unsafe-inline'
  tip.style.top = `${top}px`;
}

function clickAnywhere(event) {
  const card = event.target.closest(".card");
  if (card) {
    showCardTip(card);
  } else if (!event.target.closest("#card-tip")) {
    $("card-tip").hidden = true;
  }
}

function keys(event) {
  if (document.body.dataset.tab !== "replay" || !rep.doc || event.target.closest("input, select")) return;
  if (event.key === "ArrowRight") showStep(rep.want + 1);
  else if (event.key === "ArrowLeft") showStep(rep.want - 1);
  else if (event.key === "Home") showStep(0);
  else if (event.key === "End") showStep(rep.doc.actions.length);
}

// --- start -----------------------------------------------------------------------------------------------

async function init() {
  const hello = await api("hello");
  $("engine").textContent = `${hello.engine} ${hello.engine_version} · protocol ${hello.protocol}`;
  for (const p of hello.presets) $("preset").add(new Option(p, p, p === "core-2p", p === "core-2p"));
  for (const b of hello.bots) $("bot").add(new Option(b, b, b === "ppo-core-2p", b === "ppo-core-2p"));
  $("new").addEventListener("click", newGame);
  $("save").addEventListener("click", saveLog);
  $("gameover-save").addEventListener("click", saveLog);
  $("rematch").addEventListener("click", rematch);
  $("gameover-close").addEventListener("click", () => { $("gameover").hidden = true; });
  $("show-result").addEventListener("click", () => play.view && showGameOver(play.view));
  $("board").addEventListener("click", clickBoard);
  $("load-file").addEventListener("change", (e) => e.target.files[0] && continueLog(e.target.files[0]));
  $("replay-file").addEventListener("change", (e) => e.target.files[0] && loadReplay(e.target.files[0]));
  $("first").addEventListener("click", () => showStep(0));
  $("prev").addEventListener("click", () => showStep(rep.want - 1));
  $("next").addEventListener("click", () => showStep(rep.want + 1));
  $("last").addEventListener("click", () => showStep(rep.doc ? rep.doc.actions.length : 0));
  $("goto-form").addEventListener("submit", (e) => { e.preventDefault(); showStep($("goto").value); });
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  document.addEventListener("click", clickAnywhere);
  document.addEventListener("keydown", keys);
  $("settings").addEventListener("click", () => document.body.classList.toggle("settings"));
  $("zoom").addEventListener("click", () => { document.body.classList.toggle("board-fit"); fitBoard(); });
  window.addEventListener("resize", fitBoard);
  document.body.dataset.ready = "1";
}

init().catch((err) => setStatus(`cannot reach the service: ${err.message}`, "error"));
