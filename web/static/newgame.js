// The new-game form: players clockwise, their seats on a hub picture, who starts, the
// set, the rounds and the options; the deal line follows every change (/api/deal).
import { $, S, api, esc, setToken, toast } from "./core.js";
import { patch } from "./patch.js";
import { hubSvg, slotFromEvent } from "./table.js";
import { refresh } from "./app.js";
import { clearErrors, showError } from "./form.js";

const N = { players: [], mex: null, picking: null };
const PROFILE = { consensus: { chickenfoot: 1, partnerships: 1 }, mexicantrainfun: { chickenfoot: 1 }, aces: {}, triples: {} };
const rules = () => document.querySelector("input[name=rules]:checked").value;
export function open() {
  if (!N.players.length) {
    N.players = [1, 2, 3, 4].map((slot) => ({ name: "", slot }));
    N.mex = 5; N.picking = null;
    renderPlayers();
  }
  const g = S.snap && S.snap.game;
  $("new-running").hidden = !g || g.phase === "finished";
  $("new-running").textContent = g ? `Game ${g.id} is still running (round ${g.round}). A new game takes over the hub; game ${g.id}'s scores stay in the history.` : "";
  renderSeats(); syncOptions();
}
function renderPlayers() {
  patch($("f-players"), N.players.map((p, i) =>
    `<li class="hand player-row" data-key="row${i}"><button type="button" class="seat" data-seat="${i}" aria-pressed="${N.picking === i}" aria-label="Choose a slot for player ${i + 1}">slot ${p.slot}</button>` +
    `<input data-field="players" data-name="${i}" value="${esc(p.name)}" maxlength="24" autocomplete="off" aria-label="Player ${i + 1}'s name" placeholder="Player ${i + 1}">` +
    `<button type="button" data-remove="${i}" aria-label="Remove player ${i + 1}"${N.players.length <= 2 ? " disabled" : ""}>✕</button></li>`).join(""));
  $("add-player").disabled = N.players.length >= 8;
  renderFirst();
}
function renderFirst() {
  const sel = $("f-first"), keep = sel.value;
  const usual = rules() === "consensus" ? "The first seat (rules: consensus)" : "Whoever holds the engine";
  const chosen = keep && +keep < N.players.length ? keep : "";
  patch(sel, `<option value="">${usual}</option>` + N.players.map((p, i) =>
    `<option value="${i}"${String(i) === chosen ? " selected" : ""}>${esc(p.name || `Player ${i + 1}`)} (slot ${p.slot})</option>`).join(""));
}
function renderSeats() {
  const slots = [];
  for (let n = 1; n <= 8; n++) {
    const i = N.players.findIndex((p) => p.slot === n), p = N.players[i];
    const cls = [p ? "player" : n === N.mex ? "mexican" : "empty", "tappable"];
    if ((p && N.picking === i) || (n === N.mex && N.picking === "mex")) cls.push("turn");
    const name = p ? p.name || `Player ${i + 1}` : n === N.mex ? "Mexican" : "free";
    slots.push({ slot: n, cls, name, tags: p ? [] : n === N.mex ? ["Train"] : [], button: true,
      label: `Slot ${n}: ${p ? name : n === N.mex ? "the Mexican Train" : "free"}` });
  }
  patch($("seat-hub"), hubSvg(slots, '<text class="center-note">tap a name,</text><text class="center-note" y="18">then its slot</text>'));
  $("mex-slot").textContent = N.mex ? `slot ${N.mex}` : "none";
  $("seat-mex").setAttribute("aria-pressed", N.picking === "mex");
  const who = N.picking === "mex" ? "the Mexican Train" : N.picking != null ? N.players[N.picking].name || `player ${N.picking + 1}` : null;
  $("seat-help").textContent = who ? `Now tap the slot for ${who}.` : "Tap a name (or its slot), then the slot where it sits.";
}
function seatAt(n) {
  const i = N.players.findIndex((p) => p.slot === n);
  if (N.picking == null) { if (i >= 0) N.picking = i; else if (n === N.mex) N.picking = "mex"; }
  else if (N.picking === "mex") {
    if (i >= 0) N.players[i].slot = N.mex || firstFree();
    N.mex = n; N.picking = null;
  } else {
    const me = N.players[N.picking], old = me.slot;
    if (i >= 0) N.players[i].slot = old; else if (n === N.mex) N.mex = old;
    me.slot = n; N.picking = null;
  }
  renderPlayers(); renderSeats();
}
function firstFree() {
  for (let n = 1; n <= 8; n++) if (n !== N.mex && !N.players.some((p) => p.slot === n)) return n;
  return null;
}
$("seat-hub").addEventListener("click", (e) => { const n = slotFromEvent(e); if (n) seatAt(n); });
$("seat-hub").addEventListener("keydown", (e) => {
  if ((e.key === "Enter" || e.key === " ") && slotFromEvent(e)) { e.preventDefault(); seatAt(slotFromEvent(e)); }
});
$("seat-mex").addEventListener("click", () => { N.picking = N.picking === "mex" ? null : "mex"; renderSeats(); });
$("no-mex").addEventListener("click", () => { N.mex = null; N.picking = null; renderSeats(); });
$("add-player").addEventListener("click", () => {
  let slot = firstFree();
  if (slot == null) { slot = N.mex; N.mex = null; }
  N.players.push({ name: "", slot });
  renderPlayers(); renderSeats(); syncOptions();
  $("f-players").querySelector("li:last-child input").focus();
});
$("f-players").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  if (b.dataset.remove) { N.players.splice(+b.dataset.remove, 1); N.picking = null; renderPlayers(); syncOptions(); }
  else { const i = +b.dataset.seat; N.picking = N.picking === i ? null : i; renderPlayers(); }
  renderSeats();
});
$("f-players").addEventListener("input", (e) => {
  const i = e.target.dataset.name;
  if (i != null) { N.players[+i].name = e.target.value; renderSeats(); renderFirst(); }
});
let dealTimer;
function syncOptions() {
  const r = rules(), n = N.players.length;
  const cf = $("f-chickenfoot"), pt = $("f-partnerships");
  cf.disabled = !PROFILE[r].chickenfoot; if (cf.disabled) cf.checked = false;
  pt.disabled = !PROFILE[r].partnerships || ![4, 6, 8].includes(n); if (pt.disabled) pt.checked = false;
  renderFirst();
  clearTimeout(dealTimer);
  dealTimer = setTimeout(showDeal, 120);
}
async function showDeal() {
  const set = $("f-set").value;
  const r = await api("GET", `/api/deal?rules=${rules()}&players=${N.players.length}${set ? "&set=" + set : ""}`);
  const box = $("deal");
  box.className = r.ok ? "ok" : "err";
  box.textContent = r.ok ? `Deal ${r.data.tiles_each} each; ${r.data.boneyard} stay in the boneyard (the engine among them). ` +
    `Double-${r.data.set} set, up to ${r.data.rounds} rounds.` : r.data.error;
  if (r.ok) { $("f-rounds").placeholder = r.data.rounds; $("f-rounds").max = r.data.rounds; }
}
$("new").addEventListener("change", (e) => { if (["rules", "f-set"].includes(e.target.name || e.target.id)) syncOptions(); });
function newGameBody() {
  const body = { players: N.players.map((p) => p.name.trim()), rules: rules(), seats: N.players.map((p) => p.slot), mexican_slot: N.mex };
  const first = $("f-first").value, set = $("f-set").value, rounds = $("f-rounds").value.trim();
  if (first !== "") body.first = N.players[+first].slot;
  if (set) body.set = +set;
  if (rounds) body.rounds = /^\d+$/.test(rounds) ? +rounds : rounds;
  const db = +document.querySelector("input[name=db]:checked").value, options = {};
  if (db) options.double_blank = db;
  if ($("f-chickenfoot").checked) options.chickenfoot = true;
  if ($("f-partnerships").checked) options.partnerships = true;
  body.options = options;
  return body;
}
$("new").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = $("new");
  clearErrors(form);
  const body = newGameBody(), empty = body.players.findIndex((p) => !p);
  if (empty >= 0) return showError(form, { field: "players", error: `players: player ${empty + 1} has no name (type one, or remove the row)` }, "e-new");
  if (typeof body.rounds === "string") return showError(form, { field: "rounds", error: `rounds: ${body.rounds} is not a whole number` }, "e-new");
  const submit = form.querySelector("[type=submit]");
  submit.disabled = true;
  const r = await api("POST", "/api/games", body);
  submit.disabled = false;
  if (!r.ok) return showError(form, r.data, "e-new");
  setToken(r.data.id, r.data.token);
  N.players = [];
  toast(`Game ${r.data.id} started: this phone keeps the score`);
  location.hash = "#/table";
  refresh();
});

