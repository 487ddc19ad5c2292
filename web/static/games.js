// The games view: the games, newest first, a page at a time ("Older games" asks for the
// next), with links to each one's scores and downloads.
import { $, api, esc, gameId, toast } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, t } from "./i18n.js";

const PAGE = 20;  // games a page asks for (the hub's default; at most 100)
let shown = [], next = null;  // the games listed so far; the next page's path, or null

export async function open() {
  // with the keeper's token: the keeper sees every game's scores (hide_stats)
  const r = await api("GET", `/api/games?limit=${PAGE}`, undefined, gameId());
  if (!r.ok) {
    $("games-more").hidden = true;
    return patch($("games"), `<li class="err">${esc(r.data.error)}</li>`);
  }
  shown = r.data;
  next = r.next;
  draw();
}

// The next page, after the games listed (a game started meanwhile is on no later page).
async function more() {
  if (!next) return;
  const button = $("games-more");
  button.disabled = true;
  const r = await api("GET", next, undefined, gameId());
  button.disabled = false;
  if (!r.ok) return toast(r.data.error);
  const listed = new Set(shown.map((g) => g.id));
  shown = shown.concat(r.data.filter((g) => !listed.has(g.id)));
  next = r.next;
  draw();
}

function draw() {
  patch($("games"), shown.map(gameItem).join("") || `<li>${esc(t("games.none"))}</li>`);
  $("games-more").hidden = !next;
}

$("games-more").addEventListener("click", more);

// One game: its number, rules and day, its players, how far it got, and its links
// (none for a game whose scores the hub hides from this phone: hide_stats).
function gameItem(g) {
  const head = `<strong>${esc(t("games.game", { game: g.id }))}</strong>` +
    ` · ${esc(t(`rules.${g.rules}.name`))} · ${esc(g.created_at ? formatDate(g.created_at) : "")}`;
  const links = g.stats_hidden ? `<p class="note">${esc(t("games.hidden"))}</p>` :
    `<div class="links"><a class="btn" href="#/scores/${g.id}">${esc(t("nav.scores"))}</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.csv" download>CSV</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>JSON</a></div>`;
  return `<li data-key="g${g.id}">${head}<br>` +
    `${esc(g.players.join(", "))}<br>${esc(state(g))}${links}</li>`;
}

function state(g) {
  if (g.finished) return g.winner ? t("games.won", { name: g.winner }) : t("games.finished");
  const where = { round: g.round, rounds: g.round_count };
  return t(g.id === gameId() ? "games.on_hub" : "games.round", where);
}
