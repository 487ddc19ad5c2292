// The season table (#/season, #/season/<YYYY-MM-DD>): every player's games, wins, win
// rate and average place since a day the family chooses (all games, this year, or a date).
import { $, api, esc } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { percent } from "./players.js";

export async function open(arg) {
  const since = /^\d{4}-\d{2}-\d{2}$/.test(arg || "") ? arg : "";
  const r = await api("GET", "/api/season" + (since ? `?since=${since}` : ""));
  const year = `${new Date().getFullYear()}-01-01`;
  let html = `<h2 id="h-season">${esc(t("players.season.title"))}</h2><form id="season-pick" class="pick">` +
    `<a class="btn" href="#/season">${esc(t("players.season.all"))}</a><a class="btn" href="#/season/${year}">${esc(t("players.season.year"))}</a>` +
    `<label>${esc(t("players.season.since"))} <input type="date" id="season-since" value="${esc(since)}"></label>` +
    `<button type="submit">${esc(t("players.season.show"))}</button></form>`;
  if (!r.ok) return patch($("v-season"), html + `<p class="err">${esc(r.data.error)}</p>`);
  const s = r.data;
  html += `<p class="note">${esc(since ? t("players.season.from", { date: formatDate(since + "T12:00:00"), count: s.games, games: formatNumber(s.games) })
    : t("players.season.every", { count: s.games, games: formatNumber(s.games) }))}</p>`;
  html += `<div class="scroll"><table class="standings" aria-label="${esc(t("players.season.title"))}"><thead><tr><th>#</th><th>${esc(t("players.season.player"))}</th>` +
    `<th>${esc(t("players.stat.games"))}</th><th>${esc(t("players.stat.wins"))}</th><th>${esc(t("players.stat.win_rate"))}</th>` +
    `<th>${esc(t("players.season.place"))}</th></tr></thead><tbody>` + s.players.map((p, i) =>
    `<tr><td class="rank">${i + 1}</td><td><a href="#/player/${p.id}">${esc(p.name)}</a></td><td>${formatNumber(p.games)}</td>` +
    `<td>${formatNumber(p.wins)}</td><td>${percent(p.win_rate)}</td><td>${formatNumber(p.average_place)}</td></tr>`).join("") +
    `</tbody></table></div><p class="note">${esc(t("players.season.rule"))}</p>`;
  patch($("v-season"), html);
}

document.addEventListener("submit", (e) => {
  if (e.target.id !== "season-pick") return;
  e.preventDefault();
  const day = $("season-since").value;
  location.hash = day ? `#/season/${day}` : "#/season";
});
