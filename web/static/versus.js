// Two players head to head (#/versus/<a>-<b>): the games both played, who won, who
// finished ahead of whom (each game's tie-breaks applied), the newest of those games.
import { $, api, esc } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, formatNumber, t } from "./i18n.js";

export async function open(arg) {
  const [a, b] = String(arg || "").split("-");
  const r = await api("GET", `/api/players/${encodeURIComponent(a || "")}/vs/${encodeURIComponent(b || "")}`);
  if (!r.ok) return patch($("v-versus"), `<h2>${esc(t("players.versus.title"))}</h2><p class="err">${esc(r.data.error)}</p>`);
  const v = r.data, n = formatNumber;
  let html = `<h2 id="h-versus">${esc(t("players.versus.heading", { a: v.a.name, b: v.b.name }))}</h2>` +
    `<p class="note">${esc(t("players.versus.games", { count: v.games, games: n(v.games) }))}</p>` +
    `<table class="standings" aria-label="${esc(t("players.versus.title"))}"><thead><tr><th></th>` +
    `<th scope="col">${esc(v.a.name)}</th><th scope="col">${esc(v.b.name)}</th></tr></thead><tbody>` +
    `<tr><th scope="row">${esc(t("players.stat.wins"))}</th><td>${n(v.a.wins)}</td><td>${n(v.b.wins)}</td></tr>` +
    `<tr><th scope="row">${esc(t("players.versus.ahead"))}</th><td>${n(v.a.ahead)}</td><td>${n(v.b.ahead)}</td></tr>` +
    `</tbody></table><p class="note">${esc(t("players.versus.level", { level: n(v.level) }))}</p>`;
  if (v.recent.length) html += `<h3>${esc(t("players.recent"))}</h3><ul class="games">` + v.recent.map((g) =>
    `<li><a href="#/scores/${g.game}">${esc(t("players.recent.game", { game: g.game, date: formatDate(g.finished_at) }))}</a> · ` +
    `${esc(t("players.versus.places", { a: v.a.name, a_place: g.a_place, b: v.b.name, b_place: g.b_place }))}</li>`).join("") + "</ul>";
  patch($("v-versus"), html + `<div class="links"><a class="btn" href="#/players">${esc(t("players.all"))}</a></div>`);
}
