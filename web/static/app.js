"use strict";
// The scorepad: one page, plain JS, everything from the hub. Views are hash routes
// (#/table, #/scores[/id], #/round[/r], #/new, #/games, #/join). The hub pushes its
// snapshot, sounds and score changes over SSE (/api/events); edits send the game's
// scorekeeper token (kept in localStorage) as "Authorization: Bearer".

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const S = { snap: null, game: null, shown: null, view: "table", sim: false, sheet: null };

// --- tokens: {gameId: token} in localStorage -------------------------------------------
const KEY = "mtrain.tokens";
function tokens() { try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch { return {}; } }
function tokenFor(id) { return id ? tokens()[id] || null : null; }
function setToken(id, token) {
  const all = tokens();
  if (token) all[id] = token; else delete all[id];
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { toast("This browser cannot keep the token (private mode?)"); }
}
const gameId = () => (S.snap && S.snap.game ? S.snap.game.id : S.game ? S.game.id : null);
const keeper = (id = gameId()) => !!tokenFor(id);

// --- HTTP ---------------------------------------------------------------------------
async function api(method, path, body, id) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (tokenFor(id)) headers.Authorization = "Bearer " + tokenFor(id);
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { ok: false, status: 0, data: { error: "the hub did not answer (is this phone on its Wi-Fi?)" } };
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok && !(data && data.error)) data = { error: `the hub answered ${res.status}` };
  return { ok: res.ok, status: res.status, data };
}

// Show an API error next to its field: "players: …" goes to #e-players (prefix e-<form>).
function showError(message, fields, fallback) {
  const m = /^([\w.]+): /.exec(message);
  const field = m && fields.includes(m[1]) ? m[1] : null;
  const box = $(field ? "e-" + field : fallback);
  box.textContent = message;
  const input = field && document.querySelector(`[data-field="${field}"]`);
  if (input) input.setAttribute("aria-invalid", "true");
  (input || box).scrollIntoView({ block: "center" });
}
function clearErrors(root) {
  root.querySelectorAll(".err").forEach((e) => (e.textContent = ""));
  root.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
}
let toastTimer;
function toast(text) {
  $("toast").textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => ($("toast").textContent = ""), 2600);
}

// --- live updates ----------------------------------------------------------------------
let source = null, retry = null, hiddenAt = 0;
function connect() {
  if (source) source.close();
  source = new EventSource("/api/events");
  // The stream starts with the state; scores changed while it was down are fetched.
  source.onopen = () => { $("banner").hidden = true; if (S.game) loadGame(S.game.id, true); };
  source.onerror = () => {
    $("banner").hidden = false;
    if (source.readyState === EventSource.CLOSED) { clearTimeout(retry); retry = setTimeout(connect, 2000); }
  };
  source.addEventListener("state", (e) => onState(JSON.parse(e.data)));
  source.addEventListener("game", (e) => onGame(JSON.parse(e.data)));
  source.addEventListener("sound", (e) => onSound(JSON.parse(e.data)));
}
async function refresh() {
  const r = await api("GET", "/api/state");
  if (!r.ok) { $("banner").hidden = false; return; }
  onState(r.data);
  if (r.data.game) loadGame(r.data.game.id, true);
}
document.addEventListener("visibilitychange", () => {
  if (document.hidden) { hiddenAt = Date.now(); return; }
  // After a long sleep the stream may be dead without an error: open a new one.
  if (!source || source.readyState === EventSource.CLOSED || Date.now() - hiddenAt > 20000) connect();
  else refresh();
});

function onState(snap) {
  S.snap = snap;
  const id = snap.game && snap.game.id;
  if (id && (!S.game || S.game.id !== id)) loadGame(id);
  renderTable();
  renderHeader();
  if (S.view === "round" && typeof roundFromHub === "function") roundFromHub();
  if (S.sheet) renderSheet();
}
function onGame(game) {
  if (S.game && S.game.id === game.id || gameId() === game.id) S.game = game;
  if (S.shown && S.shown.id === game.id) S.shown = game;
  renderHeader();
  if (typeof renderScores !== "function") return;
  if (S.view === "scores") renderScores();
  if (S.view === "round" && !R.dirty) renderRound();
}
let loading = null;  // the game being fetched: one request at a time per game
async function loadGame(id, again = false) {
  if (loading === id && !again) return;
  loading = id;
  const r = await api("GET", `/api/games/${id}`);
  if (loading === id) loading = null;
  if (r.ok && gameId() === id) { S.game = r.data; onGame(r.data); renderTable(); }
}
const SOUNDS = { choo: "Choo! A train went public", chicken: "Chicken! A double is open",
  nope: "Nope: not that train", out: "Out! The round is over", reminder: "Put your marker down" };
function onSound(sound) { if (SOUNDS[sound.name]) toast(SOUNDS[sound.name]); }

function renderHeader() {
  const g = S.snap && S.snap.game;
  $("title").textContent = g ? `Game ${g.id} · round ${g.round} of ${g.rounds}` : "Mexican Train";
  const k = keeper();
  $("role").textContent = k ? "Scorekeeper" : "Viewer";
  $("role").classList.toggle("keeper", k);
}

// --- the hub picture -----------------------------------------------------------------
const RIM = 146;
function slotXY(n) {
  const a = ((n - 1) * Math.PI) / 4 - Math.PI / 2;
  return [Math.round(RIM * Math.cos(a)), Math.round(RIM * Math.sin(a))];
}
const short = (name, n = 9) => (name.length > n ? name.slice(0, n - 1) + "…" : name);

// slots: [{slot, cls, name, tags, label, badge, marker, button}]; centre: SVG markup.
function hubSvg(slots, centre) {
  const parts = ['<circle class="rim" r="78"/>'];
  for (const s of slots) {
    const [x, y] = slotXY(s.slot);
    const public_ = s.cls.includes("public");
    parts.push(`<line class="track${public_ ? " public" : ""}" x1="${x * 0.55}" y1="${y * 0.55}" x2="${x * 0.7}" y2="${y * 0.7}"/>`);
  }
  parts.push(centre);
  for (const s of slots) {
    const [x, y] = slotXY(s.slot);
    const role = s.button ? 'role="button" tabindex="0"' : 'role="img"';
    const tags = s.tags.slice(0, 2).map((t, i) => `<text class="tag" y="${12 + i * 14}">${esc(t)}</text>`).join("");
    parts.push(`<g class="slot ${s.cls.join(" ")}" data-slot="${s.slot}" transform="translate(${x},${y})" ${role} aria-label="${esc(s.label)}">` +
      '<circle class="ring" r="53"/><circle class="ring2" r="50"/><circle class="disc" r="45"/>' +
      `<text class="num" y="-29">${s.slot}</text><text class="name" y="-9">${esc(short(s.name))}</text>${tags}` +
      (s.marker ? '<g class="marker"><rect x="-13" y="35" width="26" height="8" rx="2"/></g>' : "") +
      (s.badge ? `<g class="badge"><circle cx="34" cy="-34" r="13"/><text x="34" y="-34">${esc(s.badge)}</text></g>` : "") +
      "</g>");
  }
  return parts.join("");
}
function engineSvg(engine, above, below) {
  return `<g class="engine"><rect x="-46" y="-22" width="92" height="44" rx="8"/><line x1="0" y1="-16" x2="0" y2="16"/>` +
    `<text x="-23">${engine}</text><text x="23">${engine}</text></g>` +
    `<text class="center-note" y="-38">${esc(above)}</text><text class="center-note" y="38">${esc(below)}</text>`;
}
const nameOf = (snap, slot) => {
  const s = snap.slots.find((x) => x.slot === slot);
  return s && s.owner ? (s.owner === "mexican" ? "the Mexican Train" : s.owner) : `slot ${slot}`;
};
function doublesOf(snap) { return snap.doubles || (snap.double ? [snap.double] : []); }

function tableSlots(snap) {
  const doubles = doublesOf(snap);
  return snap.slots.map((s) => {
    const cls = [], tags = [], said = [];
    const mex = s.owner === "mexican";
    cls.push(mex ? "mexican" : s.owner ? "player" : "empty");
    if (s.public) { cls.push("public"); if (!mex) tags.push("public"); said.push("public train"); }
    if (mex) tags.push("train");
    if (s.marker) said.push("marker down");
    if (snap.turn === s.slot) { cls.push("turn"); tags.unshift("TURN"); said.push("their turn"); }
    const open = doubles.find((d) => d.slot === s.slot);
    if (open) { cls.push("double"); said.push(`a double is open here, ${open.covers_left} cover${open.covers_left === 1 ? "" : "s"} left`); }
    const owes = doubles.find((d) => d.responsible === s.slot);
    if (owes) { cls.push("cover"); tags.splice(snap.turn === s.slot ? 1 : 0, 0, "must cover"); said.push(`must cover the double on ${nameOf(snap, owes.slot)}`); }
    if (S.sim && snap.backend === "sim") cls.push("tappable");
    if (S.sheet === s.slot) cls.push("selected");
    const name = mex ? "Mexican" : s.owner || "empty";
    const label = `Slot ${s.slot}: ${mex ? "the Mexican Train" : s.owner || "empty"}${said.length ? ", " + said.join(", ") : ""}`;
    return { slot: s.slot, cls, name, tags, label, marker: s.marker,
      badge: open ? (open.covers_left > 1 ? `D${open.covers_left}` : "D") : "", button: S.sim && snap.backend === "sim" };
  });
}

function renderTable() {
  const snap = S.snap;
  if (!snap) return;
  const g = snap.game, svg = $("hub");
  const centre = g ? engineSvg(g.engine, `round ${g.round}/${g.rounds}`, g.phase.replace("-", " "))
    : '<text class="center-note">no game yet</text>';
  svg.innerHTML = hubSvg(tableSlots(snap), centre);
  svg.dataset.turn = snap.turn ?? "";
  svg.dataset.doubles = doublesOf(snap).map((d) => `${d.slot}:${d.responsible}`).join(",");
  svg.dataset.public = snap.slots.filter((s) => s.public).map((s) => s.slot).join(",");
  $("status").innerHTML = statusLine(snap);
  $("double-note").textContent = doublesOf(snap).map((d) =>
    `Double on ${nameOf(snap, d.slot)}: ${d.waiting ? "waits for its player's next turn" : nameOf(snap, d.responsible) + " must cover"}` +
    (d.covers_left > 1 ? ` (${d.covers_left} covers left)` : "")).join(" · ");
  const over = g && g.phase === "round-over", done = !g || g.phase === "finished";
  $("go-round").hidden = !(over && keeper());
  $("go-round").textContent = `Enter round ${g ? g.round : ""} scores`;
  $("go-new").hidden = !done;
  $("sim").hidden = snap.backend !== "sim";
}
function statusLine(snap) {
  const g = snap.game;
  if (!g) return "No game is running. Start one and seat the players on the hub.";
  const head = `Round ${g.round} of ${g.rounds} · engine ${g.engine}-${g.engine}`;
  if (g.phase === "finished") {
    const won = S.game && S.game.id === g.id && S.game.winner;
    return `${head} · the game is over${won ? `: <strong>${esc(won)} won</strong>` : ""}`;
  }
  if (g.phase === "round-over") {
    const who = snap.went_out ? `${esc(snap.went_out)} went out` : "the round is over";
    return `${head} · <strong>${who}</strong>: ${keeper() ? "enter the scores" : "the scorekeeper enters the scores"}`;
  }
  if (snap.turn == null) return `${head} · whoever holds the ${g.engine}-${g.engine} plays it and taps their slot`;
  const first = g.phase === "first-turn" ? " · first turns" : "";
  return `${head}${first} · <strong>${esc(nameOf(snap, snap.turn))}'s turn</strong>`;
}

// --- virtual hub (sim backend) ---------------------------------------------------------
$("sim-on").addEventListener("change", (e) => { S.sim = e.target.checked; if (!S.sim) closeSheet(); renderTable(); });
function slotFromEvent(e) { const g = e.target.closest && e.target.closest(".slot"); return g ? +g.dataset.slot : 0; }
$("hub").addEventListener("click", (e) => { const n = slotFromEvent(e); if (n && S.sim) openSheet(n); });
$("hub").addEventListener("keydown", (e) => {
  if ((e.key === "Enter" || e.key === " ") && slotFromEvent(e) && S.sim) { e.preventDefault(); openSheet(slotFromEvent(e)); }
});
function openSheet(n) { S.sheet = n; renderSheet(); renderTable(); $("sheet").hidden = false; document.body.classList.add("sheet-open"); }
function closeSheet() { S.sheet = null; $("sheet").hidden = true; document.body.classList.remove("sheet-open"); renderTable(); }
$("sheet-close").addEventListener("click", closeSheet);
function renderSheet() {
  const s = S.snap.slots.find((x) => x.slot === S.sheet);
  $("sheet-title").textContent = `Slot ${S.sheet} · ${nameOf(S.snap, S.sheet)}`;
  $("sheet-marker").textContent = s.marker ? "Take the marker off" : "Put the marker on";
}
async function simAct(path, body, button) {
  const buttons = $("sheet").querySelectorAll("button");
  buttons.forEach((b) => (b.disabled = true));
  const label = button.textContent;
  if (body.hold_ms) button.textContent = "Holding…";
  const r = await api("POST", `/api/sim/slots/${S.sheet}/${path}`, body);
  button.textContent = label;
  buttons.forEach((b) => (b.disabled = false));
  if (r.ok) onState(r.data); else toast(r.data.error);
}
$("sheet").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b || b.id === "sheet-close") return;
  if (b.id === "sheet-marker") {
    const s = S.snap.slots.find((x) => x.slot === S.sheet);
    simAct("marker", { present: !s.marker }, b);
  } else simAct("press", { hold_ms: +b.dataset.press }, b);
});

// --- routing -------------------------------------------------------------------------
// The table needs only this file; views.js (scores, round entry, forms) loads on the
// first visit to another view, so the table's first load stays small.
const VIEWS = ["table", "scores", "round", "new", "games", "join"];
let views = null;
function needViews() {
  return (views ||= new Promise((done, fail) => {
    const script = document.createElement("script");
    script.src = "/static/views.js";
    script.onload = done;
    script.onerror = () => { views = null; fail(new Error("views.js did not load")); };
    document.head.append(script);
  }));
}
async function route() {
  const [view, arg] = location.hash.replace(/^#\/?/, "").split("/");
  S.view = VIEWS.includes(view) ? view : "table";
  for (const v of VIEWS) $("v-" + v).hidden = v !== S.view;
  document.querySelectorAll(".tabs a").forEach((a) => {
    if (a.getAttribute("href") === "#/" + S.view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  window.scrollTo(0, 0);
  if (S.view === "table") return;
  closeSheet();
  try { await needViews(); } catch { $("banner").hidden = false; return; }
  ({ scores: () => openScores(arg), round: () => openRound(arg), new: openNew, games: openGames, join: openJoin })[S.view]();
}
window.addEventListener("hashchange", () => (location.hash.startsWith("#claim=") ? claim().finally(route) : route()));

// --- claiming the scorekeeper role (#claim=<id>:<token>) ------------------------------
async function claim() {
  const m = /^#claim=(\d+):(.+)$/.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", "#/table");
  const id = +m[1], token = decodeURIComponent(m[2]);
  const r = await api("POST", "/api/join/handover", { game: id, token });
  if (r.ok) { setToken(id, token); toast(`You keep the score of game ${id} now`); }
  else toast("That hand-over link is not valid: " + r.data.error);
  renderHeader(); renderTable();
}

claim().finally(() => { route(); connect(); });
