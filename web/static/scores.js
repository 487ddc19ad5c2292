// The scores view: standings with their tie-breaks, the chart of totals, the grid of
// rounds, the downloads, and ending a game early. Patched in place on every change.
import { $, S, api, esc, gameId, keeper, on, own, short, toast } from "./core.js";
import { patch } from "./patch.js";
import { onGame } from "./running.js";
import { formatNumber, t } from "./i18n.js";

let sure = false;  // "End the game" was tapped once: the next tap ends it
// A number as the page's language writes it; nothing for a missing one.
const num = (n) => (typeof n === "number" ? formatNumber(n) : "");

export async function open(arg) {
  let id = arg ? +arg : gameId();
  if (!id) {
    const list = await api("GET", "/api/games");
    id = list.ok && list.data.length ? list.data[0].id : null;
  }
  if (!id) return patch($("scores"), `<p class="note">${esc(t("scores.no_game"))} <a href="#/new">${esc(t("scores.start_one"))}</a></p>`);
  if (S.game && S.game.id === id) S.shown = S.game;
  else {
    const r = await api("GET", `/api/games/${id}`);
    if (!r.ok) return patch($("scores"), `<p class="err">${esc(r.data.error)}</p>`);
    S.shown = r.data;
  }
  sure = false;
  render();
}


function whyNotes(places, scored) {
  const why = Object.create(null);
  if (!scored) return why;  // before any round is scored everyone is level: no notes
  const add = (n, t) => (why[n] = why[n] ? why[n] + "; " + t : t);
  for (let i = 0; i + 1 < places.length; i++) {
    const a = places[i], b = places[i + 1];
    if (a.total !== b.total) continue;
    if (a.rank === b.rank) { add(a.name, t("scores.tied_with", { name: b.name })); add(b.name, t("scores.tied_with", { name: a.name })); }
    else if (a.zero_rounds !== b.zero_rounds)
      add(a.name, t("scores.ahead_zero", { name: b.name, mine: a.zero_rounds, theirs: b.zero_rounds }));
    else if (b.lowest_nonzero == null) add(a.name, t("scores.ahead_lowest_only", { name: b.name, mine: a.lowest_nonzero }));
    else add(a.name, t("scores.ahead_lowest", { name: b.name, mine: a.lowest_nonzero ?? 0, theirs: b.lowest_nonzero }));
  }
  return why;
}

function render() {
  const g = S.shown;
  if (!g || S.view !== "scores") return;
  const why = whyNotes(g.places || [], (g.rounds || []).some((r) => r.finished));
  const rows = (g.places || []).map((p) =>
    `<tr><td class="rank">${p.tied ? "=" : ""}${p.rank}</td><td>${esc(p.name)}${why[p.name] ? `<span class="why">${esc(why[p.name])}</span>` : ""}</td><td>${num(p.total)}</td></tr>`).join("");
  const about = { game: g.id, rules: t(`rules.${g.rules}.name`), set: g.set, round: g.round, rounds: g.round_count };
  let html = `<p class="note">${esc(t(g.finished ? "scores.about_finished" : "scores.about", about))}</p>`;
  if (g.finished) html += `<p class="winner">${esc(g.winner ? t("scores.winner", { name: g.winner }) : t("scores.tied_first", { names: (g.winners || []).join(", ") }))}</p>`;
  if (g.teams) html += `<h3>${esc(t("scores.teams"))}</h3><table aria-label="${esc(t("scores.team_standings"))}"><tbody>` + (g.team_standings || []).map((team) =>
    `<tr><td>${esc(team)}</td><td>${num(own(g.team_totals, team))}</td></tr>`).join("") + `</tbody></table><h3>${esc(t("scores.players"))}</h3>`;
  html += `<table class="standings" aria-label="${esc(t("scores.standings"))}"><thead><tr><th>#</th><th>${esc(t("scores.player"))}</th><th>${esc(t("scores.total"))}</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="note">${esc(t("scores.how_to_win"))}</p>`;
  html += `<h3>${esc(t("scores.chart"))}</h3>${chartSvg(g)}<h3>${esc(t("scores.grid"))}</h3>${gridTable(g)}` +
    `<div class="links"><a class="btn" href="/api/games/${g.id}/export.csv" download>${esc(t("scores.download_csv"))}</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>${esc(t("scores.download_json"))}</a></div>`;
  if (keeper(g.id) && !g.finished && g.rounds.some((r) => r.finished))
    html += `<button type="button" id="finish" class="wide">${esc(t(sure ? "scores.finish_sure" : "scores.finish"))}</button><p class="err" id="e-finish"></p>`;
  patch($("scores"), html);
}

function gridTable(g) {
  const head = g.players.map((n) => `<th scope="col">${esc(n)}</th>`).join("");
  const body = g.rounds.map((r) => {
    const label = keeper(g.id) && r.finished ? `<a href="#/round/${r.round}" aria-label="${esc(t("scores.correct", { round: r.round }))}">${r.round}</a>` : r.round;
    const cells = g.players.map((n) => !r.finished ? "<td>·</td>" : r.went_out === n
      ? `<td class="out" title="${esc(t("scores.went_out"))}">${num(own(r.points, n) ?? 0)}★</td>` : `<td>${num(own(r.points, n))}</td>`).join("");
    return `<tr><th scope="row">${label} <small>(${esc(t(r.blocked ? "scores.engine_blocked" : "scores.engine", { engine: r.engine }))})</small></th>${cells}</tr>`;
  }).join("");
  const foot = g.players.map((n) => `<td>${num(own(g.totals, n) ?? 0)}</td>`).join("");
  return `<div class="scroll"><table class="grid-table" aria-label="${esc(t("scores.grid_label"))}"><thead><tr><th>${esc(t("round.heading"))}</th>${head}</tr></thead>` +
    `<tbody>${body}</tbody><tfoot><tr><td>${esc(t("scores.total"))}</td>${foot}</tr></tfoot></table></div>`;
}

// Eight series: colour (app.css --c0 … --c7, contrast-checked in both schemes) and dash.
const DASHES = ["", "8 4", "3 4", "12 4 3 4"];
function chartSvg(g) {
  const rounds = g.rounds.filter((r) => r.finished);
  if (!rounds.length) return `<p class="note">${esc(t("scores.chart_empty"))}</p>`;
  const W = 360, H = 230, L = 34, Rt = 78, T = 10, B = 26;
  const series = g.players.map((n) => { let sum = 0; return [0, ...rounds.map((r) => (sum += own(r.points, n) || 0))]; });
  const max = Math.max(10, ...series.map((s) => s[s.length - 1]));
  const step = [5, 10, 20, 25, 50, 100, 200, 250, 500].find((s) => max / s <= 5) || 1000;
  const top = Math.ceil(max / step) * step;
  const x = (i) => L + (i * (W - L - Rt)) / rounds.length, y = (v) => T + (H - T - B) * (1 - v / top);
  let out = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(t("scores.chart_label", { totals: g.players.map((n) => `${n} ${num(own(g.totals, n))}`).join(", ") }))}">`;
  for (let v = 0; v <= top; v += step) out += `<line class="axis" x1="${L}" x2="${W - Rt}" y1="${y(v)}" y2="${y(v)}"/><text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${formatNumber(v)}</text>`;
  rounds.forEach((r, i) => { out += `<text x="${x(i + 1)}" y="${H - 8}" text-anchor="middle">${r.round}</text>`; });
  const ends = series.map((s, i) => ({ i, y: y(s[s.length - 1]) })).sort((a, b) => a.y - b.y);
  ends.forEach((e, k) => { if (k && e.y < ends[k - 1].y + 12) e.y = ends[k - 1].y + 12; });
  series.forEach((s, i) => {
    const pts = s.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out += `<polyline class="s${i % 8}" points="${pts}" stroke-dasharray="${DASHES[i % 4]}"/>`;
  });
  for (const e of ends) {
    const n = g.players[e.i];
    out += `<text class="s${e.i % 8}" x="${W - Rt + 4}" y="${e.y + 4}">${esc(short(n, 7))} ${num(own(g.totals, n))}</text>`;
  }
  return out + "</svg>";
}

$("scores").addEventListener("click", async (e) => {
  if (!e.target.closest("#finish")) return;
  if (!sure) { sure = true; return render(); }
  const g = S.shown, r = await api("POST", `/api/games/${g.id}/finish`, {}, g.id);
  sure = false;
  if (r.ok) { onGame(r.data); toast(t("scores.over")); } else $("e-finish").textContent = r.data.error;
});
on("game", () => { if (S.view === "scores") render(); });
