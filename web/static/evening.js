// The evening's summary (#/evening, #/evening/<game>): the games finished one after
// another tonight with their winners, the evening's table, the highlights, and the
// same as a picture made on the hub (PNG) and as CSV/JSON downloads.
import { $, api, esc } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, t } from "./i18n.js";

export async function open(arg) {
  const query = /^\d+$/.test(arg || "") ? `?game=${arg}` : "";
  const r = await api("GET", "/api/evening" + query);
  const link = esc(t("players.evening.link"));
  if (!r.ok) {
    return patch($("v-evening"), `<h2>${link}</h2><p class="err">${esc(r.data.error)}</p>`);
  }
  const e = r.data;
  if (!e.games.length) {
    const none = `<p class="note">${esc(t("players.evening.none"))}</p>`;
    return patch($("v-evening"), `<h2 id="h-evening">${link}</h2>${none}`);
  }
  const title = esc(t("players.evening.title", { date: formatDate(e.ended) }));
  let html = `<h2 id="h-evening">${title}</h2><ul class="games">` +
    e.games.map(gameItem).join("") + "</ul>";
  html += `<h3>${esc(t("players.evening.table"))}</h3><ol>` +
    e.players.map(playerItem).join("") + "</ol>";
  if (e.highlights.length) {
    html += `<h3>${esc(t("players.evening.highlights"))}</h3><ul>` +
      e.highlights.map(highlightItem).join("") + "</ul>";
  }
  html += '<div class="links">' +
    `<a class="btn" id="evening-png" href="/api/evening.png${query}"` +
    ` download="mtrain-evening.png">${esc(t("players.evening.picture"))}</a>` +
    `<a class="btn" href="/api/evening/export.csv${query}" download>CSV</a>` +
    `<a class="btn" href="/api/evening/export.json${query}" download>JSON</a></div>`;
  patch($("v-evening"), html);
}

// A game finished tonight: who won it (or that it was a tie), linked to its scores.
function gameItem(g) {
  const said = g.winner == null ? t("players.evening.tie", { game: g.id })
    : t("players.evening.won", { game: g.id, winner: g.winner });
  return `<li data-key="g${g.id}"><a href="#/scores/${g.id}">${esc(said)}</a></li>`;
}
const playerItem = (p) =>
  `<li>${esc(t("players.evening.line", { count: p.wins, name: p.name, points: p.points }))}</li>`;
function highlightItem(h) {
  const params = { names: h.names.join(", "), value: h.value, game: h.game ?? "" };
  return `<li>${esc(t(`players.evening.${h.kind}`, params))}</li>`;
}
