// Two players head to head (#/versus/<a>-<b>): the games both played, who won, who
// finished ahead of whom (each game's tie-breaks applied), the newest of those games.
import { $, api, esc } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, formatNumber, t } from "./i18n.js";

export async function open(arg) {
  const [a, b] = String(arg || "").split("-");
  const pair = `${encodeURIComponent(a || "")}/vs/${encodeURIComponent(b || "")}`;
  const r = await api("GET", `/api/players/${pair}`);
  const title = esc(t("players.versus.title"));
  if (!r.ok) {
    return patch($("v-versus"), `<h2>${title}</h2><p class="err">${esc(r.data.error)}</p>`);
  }
  const v = r.data, n = formatNumber;
  // A row of the table: what is counted, then each player's count.
  const row = (key, stat) =>
    `<tr><th scope="row">${esc(t(key))}</th><td>${n(v.a[stat])}</td><td>${n(v.b[stat])}</td></tr>`;
  const heading = t("players.versus.heading", { a: v.a.name, b: v.b.name });
  const level = t("players.versus.level", { level: n(v.level) });
  let html = `<h2 id="h-versus">${esc(heading)}</h2>` +
    `<p class="note">${esc(t("players.versus.games", { count: v.games, games: n(v.games) }))}</p>` +
    `<table class="standings" aria-label="${title}"><thead><tr><th></th>` +
    `<th scope="col">${esc(v.a.name)}</th><th scope="col">${esc(v.b.name)}</th>` +
    "</tr></thead><tbody>" +
    row("players.stat.wins", "wins") + row("players.versus.ahead", "ahead") +
    `</tbody></table><p class="note">${esc(level)}</p>`;
  if (v.recent.length) {
    html += `<h3>${esc(t("players.recent"))}</h3><ul class="games">` +
      v.recent.map((g) => recentItem(v, g)).join("") + "</ul>";
  }
  const all = `<a class="btn" href="#/players">${esc(t("players.all"))}</a>`;
  patch($("v-versus"), html + `<div class="links">${all}</div>`);
}

// A game both played: a link to it, and where each of the two finished.
function recentItem(v, g) {
  const game = t("players.recent.game", { game: g.game, date: formatDate(g.finished_at) });
  const places = { a: v.a.name, a_place: g.a_place, b: v.b.name, b_place: g.b_place };
  return `<li><a href="#/scores/${g.game}">${esc(game)}</a> · ` +
    `${esc(t("players.versus.places", places))}</li>`;
}
