// The games view: every game, newest first, with links to its scores and downloads.
import { $, api, esc, gameId } from "./core.js";
import { patch } from "./patch.js";

export async function open() {
  const r = await api("GET", "/api/games");
  if (!r.ok) return patch($("games"), `<li class="err">${esc(r.data.error)}</li>`);
  patch($("games"), r.data.map((g) => `<li data-key="g${g.id}"><strong>Game ${g.id}</strong> · ${esc(g.rules)} · ${esc((g.created_at || "").slice(0, 10))}<br>` +
    `${esc(g.players.join(", "))}<br>${g.id === gameId() && !g.finished ? "on the hub now · " : ""}${g.finished ? `finished${g.winner ? `: ${esc(g.winner)} won` : ""}` : `round ${g.round} of ${g.round_count}`}` +
    `<div class="links"><a class="btn" href="#/scores/${g.id}">Scores</a><a class="btn" href="/api/games/${g.id}/export.csv" download>CSV</a>` +
    `<a class="btn" href="/api/games/${g.id}/export.json" download>JSON</a></div></li>`).join("") || "<li>No games yet.</li>");
}
