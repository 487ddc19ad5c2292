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
  if (!id) {  // the newest game: a page of one, not the whole history
    const list = await api("GET", "/api/games?limit=1");
    id = list.ok && list.data.length ? list.data[0].id : null;
  }
  if (!id) {
    const start = `<a href="#/new">${esc(t("scores.start_one"))}</a>`;
    return patch($("scores"), `<p class="note">${esc(t("scores.no_game"))} ${start}</p>`);
  }
  if (S.game && S.game.id === id) S.shown = S.game;
  else {
    // Its own token, else the running game's: either shows it while hide_stats is on.
    const r = await api("GET", `/api/games/${id}`, undefined, keeper(id) ? id : gameId());
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
    if (a.rank === b.rank) {
      add(a.name, t("scores.tied_with", { name: b.name }));
      add(b.name, t("scores.tied_with", { name: a.name }));
    } else if (a.zero_rounds !== b.zero_rounds) {
      const zeros = { mine: a.zero_rounds, theirs: b.zero_rounds };
      add(a.name, t("scores.ahead_zero", { name: b.name, ...zeros }));
    } else if (b.lowest_nonzero == null) {
      add(a.name, t("scores.ahead_lowest_only", { name: b.name, mine: a.lowest_nonzero }));
    } else {
      const lowest = { mine: a.lowest_nonzero ?? 0, theirs: b.lowest_nonzero };
      add(a.name, t("scores.ahead_lowest", { name: b.name, ...lowest }));
    }
  }
  return why;
}

function render() {
  const g = S.shown;
  if (!g || S.view !== "scores") return;
  const why = whyNotes(g.places || [], (g.rounds || []).some((r) => r.finished));
  const rows = (g.places || []).map((p) => placeRow(p, why[p.name])).join("");
  const rules = t(`rules.${g.rules}.name`);
  const about = { game: g.id, rules, set: g.set, round: g.round, rounds: g.round_count };
  const aboutKey = g.finished ? "scores.about_finished" : "scores.about";
  let html = `<p class="note">${esc(t(aboutKey, about))}</p>`;
  if (g.finished) {
    const won = g.winner ? t("scores.winner", { name: g.winner })
      : t("scores.tied_first", { names: (g.winners || []).join(", ") });
    html += `<p class="winner">${esc(won)}</p>`;
  }
  if (g.teams) {
    const teams = (g.team_standings || [])
      .map((team) => `<tr><td>${esc(team)}</td><td>${num(own(g.team_totals, team))}</td></tr>`);
    html += `<h3>${esc(t("scores.teams"))}</h3>` +
      `<table aria-label="${esc(t("scores.team_standings"))}"><tbody>` +
      `${teams.join("")}</tbody></table>` +
      `<h3>${esc(t("scores.players"))}</h3>`;
  }
  html += `<table class="standings" aria-label="${esc(t("scores.standings"))}"><thead><tr>` +
    `<th>#</th><th>${esc(t("scores.player"))}</th><th>${esc(t("scores.total"))}</th>` +
    `</tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="note">${esc(t("scores.how_to_win"))}</p>`;
  html += `<h3>${esc(t("scores.chart"))}</h3>${chartSvg(g)}` +
    `<h3>${esc(t("scores.grid"))}</h3>${gridTable(g)}` +
    `<div class="links"><a class="btn" href="/api/games/${g.id}/export.csv" download>` +
    `${esc(t("scores.download_csv"))}</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>` +
    `${esc(t("scores.download_json"))}</a></div>`;
  if (keeper(g.id) && !g.finished && g.rounds.some((r) => r.finished)) {
    const finish = t(sure ? "scores.finish_sure" : "scores.finish");
    html += `<button type="button" id="finish" class="wide">${esc(finish)}</button>` +
      '<p class="err" id="e-finish"></p>';
  }
  patch($("scores"), html);
}

// A place in the standings: the rank ("=" when tied), the name with why it is placed
// so, and the total.
function placeRow(p, why) {
  const note = why ? `<span class="why">${esc(why)}</span>` : "";
  return `<tr><td class="rank">${p.tied ? "=" : ""}${p.rank}</td>` +
    `<td>${esc(p.name)}${note}</td><td>${num(p.total)}</td></tr>`;
}

function gridTable(g) {
  const head = g.players.map((n) => `<th scope="col">${esc(n)}</th>`).join("");
  const body = g.rounds.map((r) => roundRow(g, r)).join("");
  const foot = g.players.map((n) => `<td>${num(own(g.totals, n) ?? 0)}</td>`).join("");
  const label = esc(t("scores.grid_label"));
  return `<div class="scroll"><table class="grid-table" aria-label="${label}">` +
    `<thead><tr><th>${esc(t("round.heading"))}</th>${head}</tr></thead>` +
    `<tbody>${body}</tbody><tfoot><tr><td>${esc(t("scores.total"))}</td>${foot}</tr></tfoot>` +
    "</table></div>";
}
// A round of the grid: its number (for the scorekeeper, a link to correct it), its
// engine, and each player's points (a star for who went out).
function roundRow(g, r) {
  let label = r.round;
  if (keeper(g.id) && r.finished) {
    const correct = esc(t("scores.correct", { round: r.round }));
    label = `<a href="#/round/${r.round}" aria-label="${correct}">${r.round}</a>`;
  }
  const out = esc(t("scores.went_out"));
  const cells = g.players.map((n) => !r.finished ? "<td>·</td>"
    : r.went_out === n ? `<td class="out" title="${out}">${num(own(r.points, n) ?? 0)}★</td>`
    : `<td>${num(own(r.points, n))}</td>`).join("");
  const engine = t(r.blocked ? "scores.engine_blocked" : "scores.engine", { engine: r.engine });
  return `<tr><th scope="row">${label} <small>(${esc(engine)})</small></th>${cells}</tr>`;
}

// Eight series: colour (app.css --c0 … --c7, contrast-checked in both schemes) and dash.
const DASHES = ["", "8 4", "3 4", "12 4 3 4"];
function chartSvg(g) {
  const rounds = g.rounds.filter((r) => r.finished);
  if (!rounds.length) return `<p class="note">${esc(t("scores.chart_empty"))}</p>`;
  const W = 360, H = 230, L = 34, Rt = 78, T = 10, B = 26;
  const series = g.players.map((n) => {
    let sum = 0;
    return [0, ...rounds.map((r) => (sum += own(r.points, n) || 0))];
  });
  const max = Math.max(10, ...series.map((s) => s[s.length - 1]));
  const step = [5, 10, 20, 25, 50, 100, 200, 250, 500].find((s) => max / s <= 5) || 1000;
  const top = Math.ceil(max / step) * step;
  const x = (i) => L + (i * (W - L - Rt)) / rounds.length;
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const totals = g.players.map((n) => `${n} ${num(own(g.totals, n))}`).join(", ");
  const summary = esc(t("scores.chart_label", { totals }));
  let out = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}">`;
  for (let v = 0; v <= top; v += step) {
    out += `<line class="axis" x1="${L}" x2="${W - Rt}" y1="${y(v)}" y2="${y(v)}"/>` +
      `<text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${formatNumber(v)}</text>`;
  }
  rounds.forEach((r, i) => {
    out += `<text x="${x(i + 1)}" y="${H - 8}" text-anchor="middle">${r.round}</text>`;
  });
  const ends = series.map((s, i) => ({ i, y: y(s[s.length - 1]) })).sort((a, b) => a.y - b.y);
  ends.forEach((e, k) => { if (k && e.y < ends[k - 1].y + 12) e.y = ends[k - 1].y + 12; });
  series.forEach((s, i) => {
    const pts = s.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out += `<polyline class="s${i % 8}" points="${pts}" stroke-dasharray="${DASHES[i % 4]}"/>`;
  });
  for (const e of ends) {
    const n = g.players[e.i], said = `${esc(short(n, 7))} ${num(own(g.totals, n))}`;
    out += `<text class="s${e.i % 8}" x="${W - Rt + 4}" y="${e.y + 4}">${said}</text>`;
  }
  return out + "</svg>";
}

$("scores").addEventListener("click", async (e) => {
  if (!e.target.closest("#finish")) return;
  if (!sure) { sure = true; return render(); }
  const g = S.shown, r = await api("POST", `/api/games/${g.id}/finish`, {}, g.id);
  sure = false;
  if (r.ok) { onGame(r.data); toast(t("scores.over")); }
  else $("e-finish").textContent = r.data.error;
});
on("game", () => { if (S.view === "scores") render(); });
