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
  const title = esc(t("players.season.title"));
  let html = `<h2 id="h-season">${title}</h2><form id="season-pick" class="pick">` +
    `<a class="btn" href="#/season">${esc(t("players.season.all"))}</a>` +
    `<a class="btn" href="#/season/${year}">${esc(t("players.season.year"))}</a>` +
    `<label>${esc(t("players.season.since"))} ` +
    `<input type="date" id="season-since" value="${esc(since)}"></label>` +
    `<button type="submit">${esc(t("players.season.show"))}</button></form>`;
  if (!r.ok) return patch($("v-season"), html + `<p class="err">${esc(r.data.error)}</p>`);
  const s = r.data;
  const games = { count: s.games, games: formatNumber(s.games) };
  const counted = since
    ? t("players.season.from", { date: formatDate(since + "T12:00:00"), ...games })
    : t("players.season.every", games);
  html += `<p class="note">${esc(counted)}</p>`;
  const th = (key) => `<th>${esc(t(key))}</th>`;
  html += `<div class="scroll"><table class="standings" aria-label="${title}"><thead><tr>` +
    `<th>#</th>${th("players.season.player")}${th("players.stat.games")}` +
    `${th("players.stat.wins")}${th("players.stat.win_rate")}${th("players.season.place")}` +
    "</tr></thead><tbody>" + s.players.map(playerRow).join("") +
    `</tbody></table></div><p class="note">${esc(t("players.season.rule"))}</p>`;
  patch($("v-season"), html);
}

// A player's line of the table, at its rank.
function playerRow(p, i) {
  const name = `<a href="#/player/${p.id}">${esc(p.name)}</a>`;
  return `<tr><td class="rank">${i + 1}</td><td>${name}</td><td>${formatNumber(p.games)}</td>` +
    `<td>${formatNumber(p.wins)}</td><td>${percent(p.win_rate)}</td>` +
    `<td>${formatNumber(p.average_place)}</td></tr>`;
}

document.addEventListener("submit", (e) => {
  if (e.target.id !== "season-pick") return;
  e.preventDefault();
  const day = $("season-since").value;
  location.hash = day ? `#/season/${day}` : "#/season";
});
