// Putting mistakes right (an add-on of the table view): who holds one tile; for the
// scorekeeper an Undo button, the round's engine (where the table names it) and a panel to set the table
// right by hand (whose turn, the open double and who covers it, a train's public flag
// when its marker is missing); the last undos and fixes from /api/log; and, on the sim
// backend's virtual hub, the centre button (tap, hold, long hold = undo).
import { $, S, api, keeper, on, place, toast } from "./core.js";

const PLAYING = ["first-turn", "play"];
let shownDepth = null;

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}
const owner = (snap, slot) => (slot === 0 ? "the centre" : (snap.slots[slot - 1].owner || `slot ${slot}`));
const seats = (snap) => snap.slots.filter((s) => s.owner && s.owner !== "mexican");
const trains = (snap) => [...seats(snap).map((s) => [s.slot, s.owner]),
  [snap.mexican_at, "Mexican Train"]];

function options(select, pairs, chosen) {
  select.replaceChildren(...pairs.map(([value, label]) => {
    const o = el("option", { value: String(value) }, label);
    if (value === chosen) o.selected = true;
    return o;
  }));
}

// --- who holds one tile ----------------------------------------------------------------
function renderOneTile(snap) {
  const box = place("v-table", "one-tile", "p");
  box.className = "status one-tile";
  // Only while a round is played: whoever went out holds none, and a new round starts afresh.
  const playing = snap.game && (snap.game.phase === "play" || snap.game.phase === "first-turn");
  const names = playing ? (snap.one_tile || []).map((slot) => owner(snap, slot)).filter((n) => n !== snap.went_out) : [];
  box.hidden = !names.length;
  box.textContent = names.length ? `One tile: ${names.join(", ")}` : "";
}

// --- the scorekeeper's tools --------------------------------------------------------------
function tools() {
  let box = $("fixes");
  if (box) return box;
  box = place("v-table", "fixes", "div");
  box.className = "fixes";
  const undo = el("button", { type: "button", id: "undo", class: "btn wide" }, "Undo the last table action");
  undo.addEventListener("click", () => send("/undo", {}, "Undone"));
  const panel = el("details", { id: "fix-panel" });
  panel.append(el("summary", {}, "Set the table right"), fixForm(), engineForm());
  box.append(undo, panel, el("ol", { id: "fix-log", class: "history", "aria-label": "Undos and fixes" }));
  return box;
}

// A line of the panel: labelled controls, then buttons ([text, onClick] pairs).
function row(controls, buttons) {
  const line = el("div", { class: "row fix-row" });
  for (const [label, control] of controls) line.append(el("label", { for: control.id }, label), control);
  for (const [text, onClick] of buttons) {
    const go = el("button", { type: "button" }, text);
    go.addEventListener("click", onClick);
    line.append(go);
  }
  return line;
}

function fixForm() {
  const form = el("div", { id: "fix-form" });
  const turn = el("select", { id: "fix-turn" });
  const dslot = el("select", { id: "fix-double" });
  const covers = el("select", { id: "fix-covers" });
  options(covers, [[1, "1"], [2, "2"], [3, "3"]], 1);
  const resp = el("select", { id: "fix-responsible" });
  const pslot = el("select", { id: "fix-public" });
  const double = () => ({ double: { slot: +dslot.value, covers_left: +covers.value, responsible: +resp.value } });
  const flag = (pub) => ({ public: { slot: +pslot.value, public: pub } });
  form.append(
    row([["Whose turn", turn]], [["Set the turn", () => send("/fix", { turn: +turn.value }, "Turn set")]]),
    row([["Double on", dslot], ["covers to go", covers], ["who covers", resp]],
      [["Open it", () => send("/fix", double(), "Double set")],
        ["Close the double", () => send("/fix", { double: { slot: null } }, "Double closed")]]),
    row([["Train without its marker", pslot]],
      [["Public", () => send("/fix", flag(true), "Train public")],
        ["Private", () => send("/fix", flag(false), "Train private")]]));
  return form;
}

function engineForm() {
  const form = el("div", { id: "engine-form", hidden: "" });
  const engine = el("select", { id: "fix-engine" });
  form.append(row([["This round's engine (the highest double held)", engine]], [["Set the engine", () => {
    const g = S.snap.game;
    send(`/rounds/${g.round}/engine`, { engine: +engine.value }, `Engine ${engine.value}-${engine.value}`);
  }]]));
  return form;
}

function fillTools(snap) {
  const g = snap.game, double = snap.double;
  const players = seats(snap).map((s) => [s.slot, s.owner]);
  options($("fix-turn"), players, snap.turn);
  options($("fix-double"), trains(snap), double ? double.slot : snap.turn);
  options($("fix-responsible"), players, double ? double.responsible : snap.turn);
  options($("fix-public"), players, $("fix-public").value ? +$("fix-public").value : null);
  const named = !!g.engine_named;
  $("engine-form").hidden = !named;
  if (named) options($("fix-engine"), Array.from({ length: g.set + 1 }, (_, n) => [g.set - n, `${g.set - n}-${g.set - n}`]), g.engine);
  $("undo").disabled = !snap.undo && g.phase !== "round-over";
}

async function send(path, body, done) {
  const g = S.snap && S.snap.game;
  if (!g) return;
  const r = await api("POST", `/api/games/${g.id}${path}`, body, g.id);
  toast(r.ok ? done : `Not done: ${r.data.error}`);
  renderLog();
}

async function renderLog() {
  const list = $("fix-log");
  if (!list) return;
  const r = await api("GET", "/api/log?limit=300");
  if (!r.ok) return;
  const lines = r.data.filter((e) => e.kind === "undo" || e.kind === "fix").slice(-5);
  list.replaceChildren(...lines.map((e) => el("li", { class: "fix-line" }, describe(e))));
}

function describe(e) {
  const when = new Date(e.at).toLocaleTimeString();
  if (e.kind === "undo") return `${when} undo (${e.by}): ${e.undid || "nothing to undo"}`;
  const what = e.what === "turn" ? `turn to slot ${e.slot}`
    : e.what === "public" ? `slot ${e.slot} ${e.public ? "public" : "private"}`
      : e.slot === null ? "double closed" : `double on slot ${e.slot}, ${e.covers_left} to go, slot ${e.responsible} covers`;
  return `${when} fix (${e.by}): ${what}`;
}

// --- the centre button of the virtual hub ------------------------------------------------
function centre(snap) {
  let box = $("centre");
  if (!box) {
    box = place("sim", "centre", "div");
    box.className = "row centre";
    for (const [ms, label] of [[0, "Centre tap"], [1400, "Centre hold"], [4300, "Centre undo"]]) {
      const b = el("button", { type: "button", "data-centre": String(ms) }, label);
      b.addEventListener("click", async () => {
        const r = await api("POST", "/api/sim/centre/press", { hold_ms: ms });
        if (!r.ok) toast(r.data.error);
      });
      box.append(b);
    }
  }
  box.hidden = !S.sim || snap.backend !== "sim";
}

function render(snap) {
  if (!snap) return;
  renderOneTile(snap);
  centre(snap);
  const g = snap.game, mine = g && keeper(g.id) && g.phase !== "finished";
  if (!mine) { if ($("fixes")) $("fixes").hidden = true; return; }
  const box = tools();
  box.hidden = false;
  fillTools(snap);
  if (snap.undo !== shownDepth) { shownDepth = snap.undo; renderLog(); }
  if (!PLAYING.includes(g.phase) && g.phase !== "round-over") box.hidden = true;
}

on("state", render);
on("view", () => render(S.snap));
on("sound", (sound) => {
  if (sound.name === "last_tile") toast("One tile left!");
  if (sound.name === "turn_back") toast("Undone: the turn went back");
  if (sound.name === "reminder") remind();
});
async function remind() {  // say why: the reminder's reason is in the log
  const r = await api("GET", "/api/log?limit=20");
  const last = r.ok ? r.data.filter((e) => e.kind === "reminder").pop() : null;
  if (last) toast(`Reminder: ${owner(S.snap, last.slot)} ${last.why}`);
}
document.addEventListener("change", (e) => { if (e.target && e.target.id === "sim-on") render(S.snap); });
render(S.snap);  // loaded after the first snapshot: show that one now
