// The games view: every game, newest first, with links to its scores and downloads.
import { $, api, esc, gameId } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, t } from "./i18n.js";

export async function open() {
  const r = await api("GET", "/api/games", undefined, gameId());  // the keeper sees all
  if (!r.ok) return patch($("games"), `<li class="err">${esc(r.data.error)}</li>`);
  patch($("games"), r.data.map(gameItem).join("") || `<li>${esc(t("games.none"))}</li>`);
}

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
