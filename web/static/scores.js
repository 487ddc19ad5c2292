// The scores view: standings with their tie-breaks, the chart of totals, the grid of
// rounds, the downloads, and ending a game early. Patched in place on every change.
import { $, S, api, esc, gameId, keeper, on, own, short, toast } from "./core.js";
import { patch } from "./patch.js";
import { onGame } from "./running.js";

let sure = false;  // "End the game" was tapped once: the next tap ends it

export async function open(arg) {
  let id = arg ? +arg : gameId();
  if (!id) {
    const list = await api("GET", "/api/games");
    id = list.ok && list.data.length ? list.data[0].id : null;
  }
  if (!id) return patch($("scores"), '<p class="note">No game yet. <a href="#/new">Start one</a>.</p>');
  if (S.game && S.game.id === id) S.shown = S.game;
  else {
    const r = await api("GET", `/api/games/${id}`);
    if (!r.ok) return patch($("scores"), `<p class="err">${esc(r.data.error)}</p>`);
    S.shown = r.data;
  }
  sure = false;
  render();
}

const lowest = (p) => (p.lowest_nonzero == null ? "none" : p.lowest_nonzero);
function whyNotes(places, scored) {
  const why = Object.create(null);
  if (!scored) return why;  // before any round is scored everyone is level: no notes
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

function render() {
  const g = S.shown;
  if (!g || S.view !== "scores") return;
  const why = whyNotes(g.places || [], (g.rounds || []).some((r) => r.finished));
  const rows = (g.places || []).map((p) =>
    `<tr><td class="rank">${p.tied ? "=" : ""}${p.rank}</td><td>${esc(p.name)}${why[p.name] ? `<span class="why">${esc(why[p.name])}</span>` : ""}</td><td>${p.total}</td></tr>`).join("");
  const state = g.finished ? "finished" : `round ${g.round} of ${g.round_count}`;
  let html = `<p class="note">Game ${g.id} · ${esc(g.rules)} · double-${g.set} · ${state}</p>`;
  if (g.finished) html += `<p class="winner">${g.winner ? `Winner: ${esc(g.winner)}` : `Tied for first: ${esc((g.winners || []).join(", "))}`}</p>`;
  if (g.teams) html += '<h3>Teams</h3><table aria-label="Team standings"><tbody>' + (g.team_standings || []).map((t) =>
    `<tr><td>${esc(t)}</td><td>${own(g.team_totals, t)}</td></tr>`).join("") + "</tbody></table><h3>Players</h3>";
  html += `<table class="standings" aria-label="Standings"><thead><tr><th>#</th><th>Player</th><th>Total</th></tr></thead><tbody>${rows}</tbody></table>` +
    '<p class="note">Lowest total wins. Equal totals: most zero-point rounds, then the lowest non-zero round.</p>';
  html += `<h3>Totals after each round</h3>${chartSvg(g)}<h3>Round by round</h3>${gridTable(g)}` +
    `<div class="links"><a class="btn" href="/api/games/${g.id}/export.csv" download>Download CSV</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>Download JSON</a></div>`;
  if (keeper(g.id) && !g.finished && g.rounds.some((r) => r.finished))
    html += `<button type="button" id="finish" class="wide">${sure ? "Tap again to end the game" : "End the game after the last scored round"}</button><p class="err" id="e-finish"></p>`;
  patch($("scores"), html);
}

function gridTable(g) {
  const head = g.players.map((n) => `<th scope="col">${esc(n)}</th>`).join("");
  const body = g.rounds.map((r) => {
    const label = keeper(g.id) && r.finished ? `<a href="#/round/${r.round}" aria-label="Correct round ${r.round}">${r.round}</a>` : r.round;
    const cells = g.players.map((n) => !r.finished ? "<td>·</td>" : r.went_out === n
      ? `<td class="out" title="went out">${own(r.points, n) ?? 0}★</td>` : `<td>${own(r.points, n) ?? ""}</td>`).join("");
    return `<tr><th scope="row">${label} <small>(${r.engine}${r.blocked ? ", blocked" : ""})</small></th>${cells}</tr>`;
  }).join("");
  const foot = g.players.map((n) => `<td>${own(g.totals, n) ?? 0}</td>`).join("");
  return `<div class="scroll"><table class="grid-table" aria-label="Points by round"><thead><tr><th>Round</th>${head}</tr></thead>` +
    `<tbody>${body}</tbody><tfoot><tr><td>Total</td>${foot}</tr></tfoot></table></div>`;
}

// Eight series: colour (app.css --c0 … --c7, contrast-checked in both schemes) and dash.
const DASHES = ["", "8 4", "3 4", "12 4 3 4"];
function chartSvg(g) {
  const rounds = g.rounds.filter((r) => r.finished);
  if (!rounds.length) return '<p class="note">The chart starts when round 1 is scored.</p>';
  const W = 360, H = 230, L = 34, Rt = 78, T = 10, B = 26;
  const series = g.players.map((n) => { let sum = 0; return [0, ...rounds.map((r) => (sum += own(r.points, n) || 0))]; });
  const max = Math.max(10, ...series.map((s) => s[s.length - 1]));
  const step = [5, 10, 20, 25, 50, 100, 200, 250, 500].find((s) => max / s <= 5) || 1000;
  const top = Math.ceil(max / step) * step;
  const x = (i) => L + (i * (W - L - Rt)) / rounds.length, y = (v) => T + (H - T - B) * (1 - v / top);
  let out = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Cumulative totals per round: ${esc(g.players.map((n) => `${n} ${own(g.totals, n)}`).join(", "))}">`;
  for (let v = 0; v <= top; v += step) out += `<line class="axis" x1="${L}" x2="${W - Rt}" y1="${y(v)}" y2="${y(v)}"/><text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
  rounds.forEach((r, i) => { out += `<text x="${x(i + 1)}" y="${H - 8}" text-anchor="middle">${r.round}</text>`; });
  const ends = series.map((s, i) => ({ i, y: y(s[s.length - 1]) })).sort((a, b) => a.y - b.y);
  ends.forEach((e, k) => { if (k && e.y < ends[k - 1].y + 12) e.y = ends[k - 1].y + 12; });
  series.forEach((s, i) => {
    const pts = s.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out += `<polyline class="s${i % 8}" points="${pts}" stroke-dasharray="${DASHES[i % 4]}"/>`;
  });
  for (const e of ends) {
    const n = g.players[e.i];
    out += `<text class="s${e.i % 8}" x="${W - Rt + 4}" y="${e.y + 4}">${esc(short(n, 7))} ${own(g.totals, n)}</text>`;
  }
  return out + "</svg>";
}

$("scores").addEventListener("click", async (e) => {
  if (!e.target.closest("#finish")) return;
  if (!sure) { sure = true; return render(); }
  const g = S.shown, r = await api("POST", `/api/games/${g.id}/finish`, {}, g.id);
  sure = false;
  if (r.ok) { onGame(r.data); toast("The game is over"); } else $("e-finish").textContent = r.data.error;
});
on("game", () => { if (S.view === "scores") render(); });
