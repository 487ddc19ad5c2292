"use strict";
// The scorepad's other views: scores (standings, chart, grid), round entry (number pad,
// tile picker, corrections), new game (seats on the hub picture), games, join/settings.
// Uses app.js: $, esc, S, api, keeper, tokenFor, setToken, showError, toast, hubSvg.

// --- scores ----------------------------------------------------------------------------
async function openScores(arg) {
  let id = arg ? +arg : gameId();
  if (!id) {
    const list = await api("GET", "/api/games");
    id = list.ok && list.data.length ? list.data[0].id : null;
  }
  if (!id) { $("scores").innerHTML = '<p class="note">No game yet. <a href="#/new">Start one</a>.</p>'; return; }
  if (S.game && S.game.id === id) S.shown = S.game;
  else {
    const r = await api("GET", `/api/games/${id}`);
    if (!r.ok) { $("scores").innerHTML = `<p class="err">${esc(r.data.error)}</p>`; return; }
    S.shown = r.data;
  }
  renderScores();
}
function lowest(p) { return p.lowest_nonzero == null ? "none" : p.lowest_nonzero; }
function whyNotes(places) {
  const why = {};
  const add = (n, t) => (why[n] = why[n] ? why[n] + "; " + t : t);
  for (let i = 0; i + 1 < places.length; i++) {
    const a = places[i], b = places[i + 1];
    if (a.total !== b.total) continue;
    if (a.rank === b.rank) { add(a.name, `tied with ${b.name}`); add(b.name, `tied with ${a.name}`); }
    else if (a.zero_rounds !== b.zero_rounds)
      add(a.name, `ahead of ${b.name}: ${a.zero_rounds} zero rounds to ${b.zero_rounds}`);
    else add(a.name, `ahead of ${b.name}: lowest round ${lowest(a)} to ${lowest(b)}`);
  }
  return why;
}
function renderScores() {
  const g = S.shown;
  if (!g || S.view !== "scores") return;
  const why = whyNotes(g.places || []);
  const rows = (g.places || []).map((p) =>
    `<tr><td class="rank">${p.tied ? "=" : ""}${p.rank}</td><td>${esc(p.name)}${why[p.name] ? `<span class="why">${esc(why[p.name])}</span>` : ""}</td><td>${p.total}</td></tr>`).join("");
  const state = g.finished ? "finished" : `round ${g.round} of ${g.round_count}`;
  let html = `<p class="note">Game ${g.id} · ${esc(g.rules)} · double-${g.set} · ${state}</p>`;
  if (g.finished) html += `<p class="winner">${g.winner ? `Winner: ${esc(g.winner)}` : `Tied for first: ${esc((g.winners || []).join(", "))}`}</p>`;
  if (g.teams) html += '<h3>Teams</h3><table aria-label="Team standings"><tbody>' + (g.team_standings || []).map((t) =>
    `<tr><td>${esc(t)}</td><td>${g.team_totals[t]}</td></tr>`).join("") + "</tbody></table><h3>Players</h3>";
  html += `<table class="standings" aria-label="Standings"><thead><tr><th>#</th><th>Player</th><th>Total</th></tr></thead><tbody>${rows}</tbody></table>` +
    '<p class="note">Lowest total wins. Equal totals: most zero-point rounds, then the lowest non-zero round.</p>';
  html += `<h3>Totals after each round</h3>${chartSvg(g)}<h3>Round by round</h3>${gridTable(g)}` +
    `<div class="links"><a class="btn" href="/api/games/${g.id}/export.csv" download>Download CSV</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>Download JSON</a></div>`;
  if (keeper(g.id) && !g.finished && g.rounds.some((r) => r.finished))
    html += '<button type="button" id="finish" class="wide">End the game after the last scored round</button><p class="err" id="e-finish"></p>';
  $("scores").innerHTML = html;
}
function gridTable(g) {
  const head = g.players.map((n) => `<th scope="col">${esc(n)}</th>`).join("");
  const body = g.rounds.map((r) => {
    const label = keeper(g.id) && r.finished ? `<a href="#/round/${r.round}" aria-label="Correct round ${r.round}">${r.round}</a>` : r.round;
    const cells = g.players.map((n) => !r.finished ? "<td>·</td>" : r.went_out === n
      ? `<td class="out" title="went out">${r.points[n] ?? 0}★</td>` : `<td>${r.points[n] ?? ""}</td>`).join("");
    return `<tr><th scope="row">${label} <small>(${r.engine}${r.blocked ? ", blocked" : ""})</small></th>${cells}</tr>`;
  }).join("");
  const foot = g.players.map((n) => `<td>${g.totals[n] ?? 0}</td>`).join("");
  return `<div class="scroll"><table class="grid-table" aria-label="Points by round"><thead><tr><th>Round</th>${head}</tr></thead>` +
    `<tbody>${body}</tbody><tfoot><tr><td>Total</td>${foot}</tr></tfoot></table></div>`;
}
const COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#a0522d", "#7f7f7f"];
const DASHES = ["", "8 4", "3 4", "12 4 3 4"];
function chartSvg(g) {
  const rounds = g.rounds.filter((r) => r.finished);
  if (!rounds.length) return '<p class="note">The chart starts when round 1 is scored.</p>';
  const W = 360, H = 230, L = 34, Rt = 78, T = 10, B = 26;
  const series = g.players.map((n) => { let sum = 0; return [0, ...rounds.map((r) => (sum += r.points[n] || 0))]; });
  const max = Math.max(10, ...series.map((s) => s[s.length - 1]));
  const step = [5, 10, 20, 25, 50, 100, 200, 250, 500].find((s) => max / s <= 5) || 1000;
  const top = Math.ceil(max / step) * step;
  const x = (i) => L + (i * (W - L - Rt)) / rounds.length, y = (v) => T + (H - T - B) * (1 - v / top);
  let out = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Cumulative totals per round: ${esc(g.players.map((n) => `${n} ${g.totals[n]}`).join(", "))}">`;
  for (let v = 0; v <= top; v += step) out += `<line class="axis" x1="${L}" x2="${W - Rt}" y1="${y(v)}" y2="${y(v)}"/><text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
  rounds.forEach((r, i) => { out += `<text x="${x(i + 1)}" y="${H - 8}" text-anchor="middle">${r.round}</text>`; });
  const ends = series.map((s, i) => ({ i, y: y(s[s.length - 1]) })).sort((a, b) => a.y - b.y);
  ends.forEach((e, k) => { if (k && e.y < ends[k - 1].y + 12) e.y = ends[k - 1].y + 12; });
  series.forEach((s, i) => {
    const c = COLOURS[i % 8], pts = s.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out += `<polyline points="${pts}" stroke="${c}" stroke-dasharray="${DASHES[i % 4]}"/>`;
  });
  for (const e of ends) {
    const n = g.players[e.i];
    out += `<text x="${W - Rt + 4}" y="${e.y + 4}" fill="${COLOURS[e.i % 8]}" style="fill:${COLOURS[e.i % 8]};font-weight:700">${esc(short(n, 7))} ${g.totals[n]}</text>`;
  }
  return out + "</svg>";
}
$("scores").addEventListener("click", async (e) => {
  const b = e.target.closest("#finish");
  if (!b) return;
  if (b.dataset.sure !== "1") { b.dataset.sure = "1"; b.textContent = "Tap again to end the game"; return; }
  const g = S.shown, r = await api("POST", `/api/games/${g.id}/finish`, {}, g.id);
  if (r.ok) { onGame(r.data); toast("The game is over"); } else $("e-finish").textContent = r.data.error;
});

// --- games --------------------------------------------------------------------------
async function openGames() {
  const list = $("games"), r = await api("GET", "/api/games");
  if (!r.ok) { list.innerHTML = `<li class="err">${esc(r.data.error)}</li>`; return; }
  list.innerHTML = r.data.map((g) => `<li><strong>Game ${g.id}</strong> · ${esc(g.rules)} · ${esc((g.created_at || "").slice(0, 10))}<br>` +
    `${esc(g.players.join(", "))}<br>${g.id === gameId() && !g.finished ? "on the hub now · " : ""}${g.finished ? `finished${g.winner ? `: ${esc(g.winner)} won` : ""}` : `round ${g.round} of ${g.round_count}`}` +
    `<div class="links"><a class="btn" href="#/scores/${g.id}">Scores</a><a class="btn" href="/api/games/${g.id}/export.csv" download>CSV</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>JSON</a></div></li>`).join("") || "<li>No games yet.</li>";
}

// --- round entry ---------------------------------------------------------------------
const R = { key: "", round: 0, mode: "points", points: {}, tiles: {}, active: null, out: "", outSet: false, dirty: false };
const curGame = () => (S.game && S.game.id === gameId() ? S.game : null);
function openRound(arg) {
  const g = curGame();
  if (!g) { $("round").innerHTML = '<p class="note">No game is running.</p>'; return; }
  const open = g.rounds.find((r) => !r.finished), last = g.rounds[g.rounds.length - 1];
  const n = arg ? +arg : open ? open.round : last ? last.round : 1;
  if (R.key !== `${g.id}/${n}`) resetRound(g, n);
  renderRound();
}
function hubOut(g, n) {
  const s = S.snap;
  return s && s.game && s.game.id === g.id && s.game.round === n && s.went_out ? s.went_out : "";
}
function resetRound(g, n) {
  const rnd = g.rounds.find((r) => r.round === n) || { finished: false, points: {} };
  Object.assign(R, { key: `${g.id}/${n}`, round: n, mode: "points", points: {}, tiles: {}, dirty: false, outSet: false });
  for (const p of g.players) { R.points[p] = rnd.finished ? String(rnd.points[p] ?? "") : ""; R.tiles[p] = new Set(); }
  R.out = rnd.went_out || hubOut(g, n);
  R.active = g.players.find((p) => p !== R.out) || null;
}
function roundFromHub() {
  const g = curGame();
  if (!g || R.outSet || R.key !== `${g.id}/${R.round}`) return;
  const out = hubOut(g, R.round);
  if (out && out !== R.out) { R.out = out; if (R.active === out) R.active = g.players.find((p) => p !== out); renderRound(); }
}
const pipsOf = (t, blank) => { const [h, l] = t.split("-").map(Number); return h + l === 0 ? blank : h + l; };
function handPips(p, g) { let sum = 0; for (const t of R.tiles[p]) sum += pipsOf(t, g.options.double_blank || 0); return sum; }
function valueOf(p, g) { return p === R.out ? "0" : R.mode === "tiles" ? String(handPips(p, g)) : R.points[p]; }

function renderRound() {
  const g = curGame(), box = $("round");
  if (!g || S.view !== "round") return;
  const rnd = g.rounds.find((r) => r.round === R.round);
  if (!rnd) { box.innerHTML = `<p class="err">Round ${R.round} has not been played yet.</p>`; return; }
  const picker = `<label for="r-round">Round</label><select id="r-round">${g.rounds.map((r) =>
    `<option value="${r.round}"${r.round === R.round ? " selected" : ""}>Round ${r.round} · engine ${r.engine} · ${r.finished ? "scored" : "now"}</option>`).join("")}</select>`;
  if (!keeper(g.id)) {
    box.innerHTML = picker + '<p class="note">Only the scorekeeper\'s phone enters scores. The scorekeeper can hand the role over from the Join page.</p>' +
      '<h3>Changes</h3><ol class="history" id="r-history"></ol>';
    return loadHistory(g);
  }
  const hands = g.players.map((p, i) => {
    const out = p === R.out, tiles = [...R.tiles[p]];
    return `<li class="hand${p === R.active ? " active" : ""}" data-i="${i}"><button type="button" class="who" data-pick="${i}">${esc(p)}${out ? " · went out" : ""}</button>` +
      `<input id="p${i}" data-field="p${i}" aria-label="${esc(p)}'s points" inputmode="none" autocomplete="off" value="${esc(valueOf(p, g))}"${out || R.mode === "tiles" ? " readonly" : ""}>` +
      (R.mode === "tiles" && !out ? `<span class="tiles">${tiles.length ? esc(tiles.join("  ")) : "no tiles picked"}</span>` : "") +
      `<p class="err" id="e-p${i}"></p></li>`;
  }).join("");
  box.innerHTML = picker +
    `<label for="r-out">Went out</label><select id="r-out" data-field="went_out"><option value="">Nobody: the round was blocked</option>${g.players.map((p) =>
      `<option${p === R.out ? " selected" : ""}>${esc(p)}</option>`).join("")}</select><p class="err" id="e-went_out"></p>` +
    `<div class="seg" role="radiogroup" aria-label="Count by"><label><input type="radio" name="mode" value="points"${R.mode === "points" ? " checked" : ""}> Points</label>` +
    `<label><input type="radio" name="mode" value="tiles"${R.mode === "tiles" ? " checked" : ""}> Tiles left</label></div>` +
    `<ul class="hands" aria-label="Hands">${hands}</ul>` + (R.mode === "points" ? padHtml() : tilePicker(g, rnd)) +
    `<p class="err" id="e-round"></p><div><button type="button" id="r-save" class="primary wide">${rnd.finished ? `Save the correction of round ${R.round}` : `Save round ${R.round}`}</button></div>` +
    (!rnd.finished && !rnd.went_out && !rnd.blocked ? '<button type="button" id="r-blocked" class="wide">Nobody can play: the round is blocked</button>' : "") +
    '<h3>Changes</h3><ol class="history" id="r-history"></ol>';
  loadHistory(g);
}
function padHtml() {
  const keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "Next"];
  const label = { "⌫": "Delete a digit", Next: "Next player" };
  return `<div class="dock"><div class="pad" role="group" aria-label="Number pad for ${esc(R.active || "")}">${keys.map((k) =>
    `<button type="button" data-key="${k}"${label[k] ? ` aria-label="${label[k]}"` : ""}>${k}</button>`).join("")}</div></div>`;
}
function tilePicker(g, rnd) {
  if (!R.active || R.active === R.out) return '<p class="note">Tap a player to pick their tiles.</p>';
  const holder = {};
  for (const p of g.players) for (const t of R.tiles[p]) holder[t] = p;
  const chips = g.players.filter((p) => p !== R.out).map((p) =>
    `<button type="button" data-pick="${g.players.indexOf(p)}" aria-pressed="${p === R.active}">${esc(short(p, 8))} ${handPips(p, g)}</button>`).join("");
  let html = `<div class="chips" role="group" aria-label="Whose hand">${chips}</div>` +
    `<p class="note">Tap the tiles left in <strong>${esc(R.active)}</strong>'s hand.</p><div class="dominoes" role="group" aria-label="Tiles of the set">`;
  for (let h = g.set; h >= 0; h--) for (let l = h; l >= 0; l--) {
    const t = `${h}-${l}`, who = holder[t], engine = h === l && h === rnd.engine;
    const mine = who === R.active, off = engine || (who && !mine);
    const what = engine ? ", the engine" : off ? `, in ${who}'s hand` : "";
    html += `<button type="button" class="dom${engine ? " engine" : off ? " taken" : ""}" data-tile="${t}" aria-pressed="${mine}"` +
      `${off ? " disabled" : ""} aria-label="${t}${esc(what)}"><span>${h}</span><span>${l}</span></button>`;
  }
  return html + "</div>";
}
async function loadHistory(g) {
  const r = await api("GET", `/api/games/${g.id}/rounds/${R.round}/history`), list = $("r-history");
  if (!list) return;
  if (!r.ok) { list.innerHTML = ""; return; }
  list.innerHTML = r.data.map((e) => `<li>${esc(e.player)}: ${e.old == null ? "" : `${e.old} → `}${e.new} <small>(${esc(e.by)}, ${esc((e.at || "").slice(11, 16))})</small></li>`).join("") ||
    "<li>No scores yet.</li>";
}
function setActive(p) { R.active = p; renderRound(); }
$("round").addEventListener("input", (e) => {
  const g = curGame(), m = /^p(\d+)$/.exec(e.target.id || "");
  if (e.target.id === "r-round") location.hash = `#/round/${e.target.value}`;
  else if (e.target.id === "r-out") {
    R.out = e.target.value; R.outSet = R.dirty = true;
    if (R.active === R.out) R.active = g.players.find((p) => p !== R.out);
    renderRound();
  } else if (e.target.name === "mode") { R.mode = e.target.value; renderRound(); }
  else if (m) { R.points[g.players[+m[1]]] = e.target.value.replace(/\D/g, "").slice(0, 4); R.dirty = true; }
});
$("round").addEventListener("click", (e) => {
  const g = curGame(), b = e.target.closest("button, input");
  if (!g || !b) return;
  if (b.dataset.pick || b.matches("input[id^=p]")) {
    const p = g.players[+(b.dataset.pick ?? b.id.slice(1))];
    if (p !== R.out && p !== R.active) setActive(p);
  } else if (b.dataset.key) padKey(g, b.dataset.key);
  else if (b.dataset.tile) {
    const hand = R.tiles[R.active];
    hand.has(b.dataset.tile) ? hand.delete(b.dataset.tile) : hand.add(b.dataset.tile);
    R.dirty = true; renderRound();
  } else if (b.id === "r-save") saveRound(g);
  else if (b.id === "r-blocked") blockRound(g);
});
function padKey(g, key) {
  const p = R.active;
  if (!p) return;
  if (key === "Next") {
    const order = g.players.filter((x) => x !== R.out);
    return setActive(order[(order.indexOf(p) + 1) % order.length]);
  }
  const v = R.points[p];
  R.points[p] = key === "⌫" ? v.slice(0, -1) : (v === "0" ? "" : v).concat(key).slice(0, 4);
  R.dirty = true;
  $("p" + g.players.indexOf(p)).value = R.points[p];
}
async function saveRound(g) {
  clearErrors($("round"));
  const body = { went_out: R.out || null }, bad = [];
  if (R.mode === "tiles") {
    body.tiles = {};
    for (const p of g.players) body.tiles[p] = p === R.out ? [] : [...R.tiles[p]];
  } else {
    body.points = {};
    g.players.forEach((p, i) => {
      const v = valueOf(p, g);
      if (!/^\d+$/.test(v)) bad.push([i, `${p}: type the points left in the hand (0 if none)`]);
      body.points[p] = +v;
    });
  }
  if (bad.length) { bad.forEach(([i, m]) => { $("e-p" + i).textContent = m; $("p" + i).setAttribute("aria-invalid", "true"); }); return; }
  const button = $("r-save");
  button.disabled = true;
  const r = await api("POST", `/api/games/${g.id}/rounds/${R.round}/scores`, body, g.id);
  button.disabled = false;
  if (!r.ok) return roundError(g, r);
  const n = R.round;
  R.key = "";
  onGame(r.data);
  toast(`Round ${n} saved`);
  location.hash = "#/scores";
}
function roundError(g, r) {
  const m = r.data.error;
  if (r.status === 401 || r.status === 403) { $("e-round").textContent = "This phone is not the scorekeeper: " + m; return; }
  if (/^went[ _]out/i.test(m)) return showError(m.replace(/^went out: /, "went_out: "), ["went_out"], "e-round");
  let at = -1, who = -1;
  g.players.forEach((p, i) => { const k = m.indexOf(p); if (k >= 0 && (at < 0 || k < at)) { at = k; who = i; } });
  if (who < 0) { $("e-round").textContent = m; return; }
  $("e-p" + who).textContent = m;
  $("p" + who).setAttribute("aria-invalid", "true");
  $("p" + who).scrollIntoView({ block: "center" });
}
async function blockRound(g) {
  const r = await api("POST", `/api/games/${g.id}/rounds/${R.round}/blocked`, {}, g.id);
  if (!r.ok) { $("e-round").textContent = r.data.error; return; }
  R.out = ""; R.outSet = true;
  onGame(r.data);
  renderRound();
}

// --- new game --------------------------------------------------------------------------
const N = { players: [], mex: null, picking: null };
const PROFILE = { consensus: { chickenfoot: 1, partnerships: 1 }, mexicantrainfun: { chickenfoot: 1 }, aces: {}, triples: {} };
const rules = () => document.querySelector("input[name=rules]:checked").value;
function openNew() {
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
  $("f-players").innerHTML = N.players.map((p, i) =>
    `<li class="hand player-row"><button type="button" class="seat" data-seat="${i}" aria-pressed="${N.picking === i}" aria-label="Choose a slot for player ${i + 1}">slot ${p.slot}</button>` +
    `<input data-field="players" data-name="${i}" value="${esc(p.name)}" maxlength="24" autocomplete="off" aria-label="Player ${i + 1}'s name" placeholder="Player ${i + 1}">` +
    `<button type="button" data-remove="${i}" aria-label="Remove player ${i + 1}"${N.players.length <= 2 ? " disabled" : ""}>✕</button></li>`).join("");
  $("add-player").disabled = N.players.length >= 8;
  renderFirst();
}
function renderFirst() {
  const sel = $("f-first"), keep = sel.value;
  const usual = rules() === "consensus" ? "The first seat (rules: consensus)" : "Whoever holds the engine";
  sel.innerHTML = `<option value="">${usual}</option>` + N.players.map((p, i) =>
    `<option value="${i}">${esc(p.name || `Player ${i + 1}`)} (slot ${p.slot})</option>`).join("");
  sel.value = keep && +keep < N.players.length ? keep : "";
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
  $("seat-hub").innerHTML = hubSvg(slots, '<text class="center-note">tap a name,</text><text class="center-note" y="18">then its slot</text>');
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
const NEW_FIELDS = ["players", "seats", "mexican_slot", "first", "rules", "set", "rounds",
  "options.double_blank", "options.chickenfoot", "options.partnerships"];
$("new").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = $("new");
  clearErrors(form);
  const body = newGameBody(), empty = body.players.findIndex((p) => !p);
  if (empty >= 0) return showError(`players: player ${empty + 1} has no name (type one, or remove the row)`, NEW_FIELDS, "e-new");
  if (typeof body.rounds === "string") return showError(`rounds: ${body.rounds} is not a whole number`, NEW_FIELDS, "e-new");
  const submit = form.querySelector("[type=submit]");
  submit.disabled = true;
  const r = await api("POST", "/api/games", body);
  submit.disabled = false;
  if (!r.ok) return showError(r.data.error, NEW_FIELDS, "e-new");
  setToken(r.data.id, r.data.token);
  N.players = [];
  toast(`Game ${r.data.id} started: this phone keeps the score`);
  location.hash = "#/table";
  refresh();
});

// --- join, hand-over, settings -------------------------------------------------------
async function openJoin() {
  if (!$("join-qr").getAttribute("src")) $("join-qr").src = "/join.svg";
  const r = await api("GET", "/api/join");
  $("join-url").textContent = r.ok ? r.data.url : "";
  $("handover").hidden = !keeper();
  $("handover-qr").innerHTML = ""; $("handover-url").textContent = "";
  loadSettings();
}
$("show-handover").addEventListener("click", async () => {
  const id = gameId(), r = await api("POST", "/api/join/handover", { game: id, token: tokenFor(id) });
  if (!r.ok) { $("handover-url").textContent = r.data.error; return; }
  $("handover-qr").innerHTML = r.data.svg.replace("<svg ", '<svg role="img" aria-label="QR code that hands over the scorekeeping" class="qr" ');
  $("handover-url").textContent = r.data.url;
});
$("forget").addEventListener("click", () => { setToken(gameId(), null); renderHeader(); openJoin(); toast("This phone only views now"); });
async function loadSettings() {
  const r = await api("GET", "/api/settings"), form = $("settings");
  form.hidden = !r.ok;
  if (!r.ok) return;
  $("s-volume").value = r.data.volume; $("s-volume-out").textContent = Math.round(r.data.volume * 100) + "%";
  $("s-quiet").value = r.data.quiet; $("s-turn_chime").checked = !!r.data.turn_chime;
  const sound = r.data.sound;
  $("s-sound").textContent = sound && sound.available === false ? `The hub's speaker is not working: ${sound.reason || "no sound device"}.` : "";
}
$("s-volume").addEventListener("input", (e) => ($("s-volume-out").textContent = Math.round(e.target.value * 100) + "%"));
$("settings").addEventListener("submit", async (e) => {
  e.preventDefault();
  clearErrors($("settings"));
  const body = { volume: +$("s-volume").value, quiet: $("s-quiet").value, turn_chime: $("s-turn_chime").checked };
  const g = S.snap && S.snap.game, r = await api("POST", "/api/settings", body, g ? g.id : null);
  if (r.ok) return toast("Settings saved");
  if (r.status === 401 || r.status === 403) $("e-settings").textContent = "While a game runs, only its scorekeeper changes the settings.";
  else showError(r.data.error, ["volume", "quiet", "turn_chime"], "e-settings");
});
