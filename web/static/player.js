// One player's page: games, wins, rounds, the table's own figures (doubles, went out,
// last tiles), a chart over time (games and wins, month by month, drawn like the
// scores' chart: SVG, no library) and the newest games. Then renaming, merging and
// forgetting the player (the hub asks for the scorekeeper's token or the table's proof).
import { $, api, esc, gameId, toast } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { percent } from "./players.js";

export async function open(arg) {
  const r = await api("GET", `/api/players/${encodeURIComponent(arg || "")}`);
  if (!r.ok) {
    const title = esc(t("players.player"));
    return patch($("v-player"), `<h2>${title}</h2><p class="err">${esc(r.data.error)}</p>`);
  }
  const p = r.data, n = (v) => (v == null ? "–" : formatNumber(v));
  const rows = [
    ["players.stat.games", n(p.games)],
    ["players.stat.wins", n(p.wins)],
    ["players.stat.win_rate", percent(p.win_rate)],
    ["players.stat.average_round", n(p.average_round)],
    ["players.stat.best_round", n(p.best_round)],
    ["players.stat.worst_round", n(p.worst_round)],
    ["players.stat.zero_rounds", n(p.zero_rounds)],
    ["players.stat.went_out", n(p.went_out)],
    ["players.stat.doubles", n(p.doubles)],
    ["players.stat.last_tiles", n(p.last_tiles)],
  ];
  let html = `<h2 id="h-player">${esc(p.name)}</h2>` +
    `<table class="standings" aria-label="${esc(t("players.stat.label"))}"><tbody>` +
    rows.map(([k, v]) => `<tr><th scope="row">${esc(t(k))}</th><td>${v}</td></tr>`).join("") +
    "</tbody></table>";
  html += `<h3>${esc(t("players.chart.title"))}</h3>${monthChart(p.months)}`;
  if (p.recent.length) {
    html += `<h3>${esc(t("players.recent"))}</h3><ul class="games">` +
      p.recent.map(recentItem).join("") + "</ul>";
  }
  const all = `<a class="btn" href="#/players">${esc(t("players.all"))}</a>`;
  patch($("v-player"), html + `<div class="links">${all}</div>` + await changes(p));
}

// One of the newest games: a link to it, and how the player finished.
function recentItem(g) {
  const game = t("players.recent.game", { game: g.game, date: formatDate(g.finished_at) });
  const key = g.won ? "players.recent.won" : "players.recent.place";
  return `<li><a href="#/scores/${g.game}">${esc(game)}</a> · ` +
    `${esc(t(key, { place: g.place, total: g.total }))}</li>`;
}

let shown = null, sure = false;  // the player on screen; "Forget" was tapped once
async function changes(p) {
  shown = p; sure = false;
  // The longest name the hub takes comes with the rules (GET /api/rules, its one source).
  const [r, rules] = await Promise.all([api("GET", "/api/players"), api("GET", "/api/rules")]);
  const longest = rules.ok ? ` maxlength="${rules.data.name_length}"` : "";
  const others = r.ok ? r.data.filter((o) => o.id !== p.id) : [];
  let html = `<h3>${esc(t("players.change.title"))}</h3><form id="p-rename" class="pick">` +
    `<label>${esc(t("players.change.name"))} ` +
    `<input id="p-name"${longest} autocomplete="off" value="${esc(p.name)}"></label>` +
    `<button type="submit">${esc(t("players.change.rename"))}</button></form>`;
  if (others.length) {
    const options = others.map((o) => `<option value="${o.id}">${esc(o.name)}</option>`).join("");
    html += '<form id="p-merge" class="pick">' +
      `<label>${esc(t("players.change.into"))} <select id="p-into">${options}</select></label>` +
      `<button type="submit">${esc(t("players.change.merge"))}</button></form>`;
  }
  return html +
    `<button type="button" id="p-forget" class="wide">${esc(t("players.change.forget"))}</button>` +
    '<p class="err" id="e-player" role="status"></p>';
}

async function change(path, body, done, next) {
  const r = await api("POST", `/api/players/${shown.id}/${path}`, body, gameId());
  if (!r.ok) { $("e-player").textContent = r.data.error; return; }
  toast(t(done, { name: shown.name }));
  if (location.hash === next) open(String(shown.id));  // the same view: ask again
  else location.hash = next;
}

$("main").addEventListener("submit", (e) => {
  if (e.target.id === "p-rename") {
    e.preventDefault();
    const name = $("p-name").value;
    change("rename", { name }, "players.change.renamed", `#/player/${shown.id}`);
  }
  if (e.target.id === "p-merge") {
    e.preventDefault();
    const into = $("p-into").value;
    change("merge", { into: +into }, "players.change.merged", `#/player/${into}`);
  }
});
$("main").addEventListener("click", (e) => {
  if (!e.target.closest("#p-forget")) return;
  if (!sure) {
    sure = true;
    e.target.textContent = t("players.change.forget_sure", { name: shown.name });
    return;
  }
  change("forget", {}, "players.change.forgotten", "#/players");
});

// Games (s0) and wins (s2) added up month by month.
function monthChart(months) {
  if (!months.length) return `<p class="note">${esc(t("players.chart.empty"))}</p>`;
  const W = 360, H = 200, L = 34, R = 70, T = 10, B = 26;
  let games = 0, wins = 0;
  const played = [0, ...months.map((m) => (games += m.games))];
  const won = [0, ...months.map((m) => (wins += m.wins))];
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
  const step = steps.find((s) => games / s <= 5) || 10000;
  const top = Math.max(step, Math.ceil(games / step) * step);
  const x = (i) => L + (i * (W - L - R)) / months.length;
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const summary = esc(t("players.chart.label", { games, wins }));
  let out = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}">`;
  for (let v = 0; v <= top; v += step) {
    out += `<line class="axis" x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}"/>` +
      `<text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
  }
  const every = Math.ceil(months.length / 4);
  months.forEach((m, i) => {
    if (i % every === 0) {
      out += `<text x="${x(i + 1)}" y="${H - 8}" text-anchor="middle">${esc(m.month)}</text>`;
    }
  });
  const lines = [["s0", played, t("players.chart.games")], ["s2", won, t("players.chart.wins")]];
  for (const [cls, s, label] of lines) {
    const points = s.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out += `<polyline class="${cls}" points="${points}"/>`;
    const end = y(s[s.length - 1]) + (cls === "s2" ? 12 : 0);
    out += `<text class="${cls}" x="${W - R + 4}" y="${end}">${esc(label)}</text>`;
  }
  return out + "</svg>";
}
