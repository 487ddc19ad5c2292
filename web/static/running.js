// The running game: fetched when the snapshot names it (one request at a time), kept
// in S.game as its news comes (onGame), fetched again with the snapshot (refresh), and
// named in the header. Shared by app.js and the views, so no view imports app.js.
import { $, S, api, emit, gameId, keeper, newState, on, setToken, toast } from "./core.js";
import { t } from "./i18n.js";
import { renderTable } from "./table.js";

export async function refresh() {
  const r = await api("GET", "/api/state");
  if (!r.ok) { $("banner").hidden = false; return; }
  newState(r.data);
  if (r.data.game) loadGame(r.data.game.id, true);
}

on("state", (snap) => {
  const id = snap.game && snap.game.id;
  if (id && (!S.game || S.game.id !== id)) loadGame(id);
  renderHeader();
});
// A phone that handed the scorekeeping over learns it with the game's next news: its
// token no longer works, so it forgets it and is a viewer again, on every view.
async function stillKeeper(id) {
  const r = await api("GET", `/api/games/${id}/keeper`, undefined, id);
  if (!r.ok || r.data.keeper || !keeper(id)) return;
  setToken(id, null);
  renderHeader();
  toast(t("a11y.handover.gone"));
  emit("keeper", id);
}
export function onGame(game) {
  if (keeper(game.id)) stillKeeper(game.id);
  if (S.game && S.game.id === game.id || gameId() === game.id) S.game = game;
  if (S.shown && S.shown.id === game.id) S.shown = game;
  renderHeader();
  if (S.game === game) renderTable();  // the table view names the winner
  emit("game", game);
}
let loading = null;  // the game being fetched: one request at a time per game
export async function loadGame(id, again = false) {
  if (loading === id && !again) return;
  loading = id;
  const r = await api("GET", `/api/games/${id}`);
  if (loading === id) loading = null;
  if (r.ok && gameId() === id) { S.game = r.data; onGame(r.data); renderTable(); }
}

export function renderHeader() {
  const g = S.snap && S.snap.game;
  $("title").textContent = !g ? t("app.title")
    : g.phase === "finished" ? t("app.header_over", { game: g.id })
    : t("app.header_round", { game: g.id, round: g.round, rounds: g.rounds });
  const k = keeper();
  $("role").textContent = k ? t("app.role.keeper") : t("app.role.viewer");
  $("role").classList.toggle("keeper", k);
}
