// The scorepad: one page of ES modules, everything from the hub. Views are hash routes
// (#/table, #/scores[/id], #/round[/r], #/new, #/games, #/join). The hub pushes its
// snapshot, sounds and score changes over SSE (/api/events); edits send the game's
// scorekeeper token (kept in localStorage) as "Authorization: Bearer".
//
// This module is the entry: it imports the views and add-ons, and no module imports it
// (what they share is in core.js, and the running game and the header in running.js;
// tests/page/test_page_modules.py holds the import graph free of circles). The table view
// needs only this module, core.js, patch.js, table.js and running.js; every other view
// is a module loaded with import() on its first visit. To add a view: a module
// exporting open(arg, section) and a line in VIEWS. To add anything else that follows
// the hub (an indicator, a layer of the hub picture): a module using on()/place() or
// table.js's layers, and a line in ADD_ONS.
import { $, S, api, emit, newState, on, setToken, toast } from "./core.js";
import { fill, setLanguage, t } from "./i18n.js";
import { renderTable } from "./table.js";
import { loadGame, onGame, refresh, renderHeader } from "./running.js";

const VIEWS = {
  table: null,
  scores: () => import("./scores.js"),
  round: () => import("./round.js"),
  new: () => import("./newgame.js"),
  games: () => import("./games.js"),
  join: () => import("./join.js"),
  selftest: () => import("./selftest.js"),
  players: () => import("./players.js"),
  player: () => import("./player.js"),
  versus: () => import("./versus.js"),
  season: () => import("./season.js"),
  evening: () => import("./evening.js"),
};
// Loaded after the table's first paint; import() of a literal, so the import graph is
// plain to read (and to test).
const ADD_ONS = [
  () => import("./mqtt.js"),
  () => import("./ring.js"),
  () => import("./fixes.js"),
  () => import("./storage.js"),
  () => import("./known.js"),
];

// --- live updates ----------------------------------------------------------------------
// The stream; or, while the hub refuses it (a 503: it serves all the streams it can),
// polling /api/state (and the game now and then) until the stream is taken again.
// EventSource cannot read Retry-After: the page tries again after about as long.
const POLL_MS = 3000, STREAM_RETRY_MS = 10000;
let source = null, retry = null, hiddenAt = 0, poller = null, polls = 0, lost = false;
// The hub is back (after a restart, or the Wi-Fi): the view on screen asks again.
function back() {
  $("banner").hidden = true;
  if (!lost) return;
  lost = false;
  route(true);
}
function connect() {
  if (source) source.close();
  clearTimeout(retry);
  source = new EventSource("/api/events");
  // The stream starts with the state; scores changed while it was down are fetched.
  source.onopen = () => { stopPolling(); back(); if (S.game) loadGame(S.game.id, true); };
  source.onerror = () => {
    lost = true;
    if (source.readyState !== EventSource.CLOSED) {  // it retries itself
      $("banner").hidden = false;
      return;
    }
    startPolling();
    retry = setTimeout(connect, STREAM_RETRY_MS * (0.75 + Math.random() / 2));
  };
  source.addEventListener("state", (e) => newState(JSON.parse(e.data)));
  source.addEventListener("game", (e) => onGame(JSON.parse(e.data)));
  source.addEventListener("sound", (e) => emit("sound", JSON.parse(e.data)));
}
function startPolling() {
  document.documentElement.dataset.live = "polling";
  if (poller) return;
  poll();
  poller = setInterval(poll, POLL_MS);
}
function stopPolling() {
  document.documentElement.dataset.live = "stream";
  clearInterval(poller);
  poller = null;
}
async function poll() {
  if (document.hidden) return;
  const r = await api("GET", "/api/state");
  if (r.ok) back(); else { lost = true; $("banner").hidden = false; }
  if (!r.ok || !poller) return;
  const was = S.snap && S.snap.game, g = r.data.game;
  newState(r.data);
  // Score changes come as "game" news on the stream; polling, the game is fetched when
  // the table moves on to another round, and every fourth poll.
  const moved = !was || !g || was.id !== g.id || was.round !== g.round || was.phase !== g.phase;
  if (g && (++polls % 4 === 0 || moved)) loadGame(g.id, true);
}
document.addEventListener("visibilitychange", () => {
  if (document.hidden) { hiddenAt = Date.now(); return; }
  // After a long sleep the stream may be dead without an error: open a new one.
  const dead = !source || source.readyState === EventSource.CLOSED;
  if (dead || Date.now() - hiddenAt > 20000) connect();
  else refresh();
});

const SOUNDS = {
  choo: "sound.choo",
  chicken: "sound.chicken",
  nope: "sound.nope",
  out: "sound.out",
  reminder: "sound.reminder",
};
on("sound", (sound) => { if (SOUNDS[sound.name]) toast(t(SOUNDS[sound.name])); });

// --- routing -------------------------------------------------------------------------
function section(view) {
  let el = $("v-" + view);
  if (!el) {
    el = document.createElement("section");
    el.id = "v-" + view;
    el.className = "view";
    $("main").append(el);
  }
  return el;
}
async function route(again = false) {
  const [view, arg] = location.hash.replace(/^#\/?/, "").split("/");
  S.view = view in VIEWS ? view : "table";
  for (const v of Object.keys(VIEWS)) section(v).hidden = v !== S.view;
  document.querySelectorAll(".tabs a").forEach((a) => {
    if (a.getAttribute("href") === "#/" + S.view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  if (again) {  // the same view asks the hub again, scrolled and focused as it is
    if (!VIEWS[S.view]) return;
    try {
      (await VIEWS[S.view]()).open(arg, section(S.view));
    } catch {
      $("banner").hidden = false;
    }
    return;
  }
  window.scrollTo(0, 0);
  emit("view", S.view);
  if (!VIEWS[S.view]) return;
  const want = S.view, shown = section(want);
  let mod;
  // Its controls (in the page from the start) answer once its module listens: until
  // then the view is inert, so a choice made on a slow link is not silently lost.
  shown.inert = true;
  try {
    mod = await VIEWS[want]();
  } catch {
    $("banner").hidden = false;
    return;
  } finally {
    shown.inert = false;
  }
  if (S.view === want) mod.open(arg, shown);
}
// A view changed by the reader: focus goes to its heading (a screen reader says where).
function focusHeading() {
  const h = section(S.view).querySelector("h2");
  if (!h) return;
  h.tabIndex = -1;
  h.focus({ preventScroll: true });
}
window.addEventListener("hashchange", () =>
  location.hash.startsWith("#claim=") ? claim().finally(route) : route().then(focusHeading));

// This phone handed the scorekeeping over: every part and the view on screen follow.
on("keeper", () => { if (S.snap) newState(S.snap); route(true); });

// --- claiming the scorekeeper role (#claim=<id>:<token>) ------------------------------
async function claim() {
  const m = /^#claim=(\d+):(.+)$/.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", "#/table");
  const id = +m[1], token = decodeURIComponent(m[2]);
  // The link's token is the other phone's: the hub gives this one its own, and the
  // link's stops working (that phone is a viewer from now on).
  const r = await api("POST", "/api/join/take", { game: id, token });
  if (r.ok) { setToken(id, r.data.token); toast(t("app.claimed", { game: id })); }
  else toast(t("app.handover_invalid", { reason: r.data.error }));
  renderHeader(); renderTable();
}

// A new language (the setting on the Join page): every word on screen again, the view
// asked again, and the add-ons redrawn with the snapshot they have.
on("lang", () => {
  fill();
  renderHeader();
  renderTable();
  route(true);
  if (S.snap) newState(S.snap);
});

// The words first (a catalog the page cannot fetch leaves the words in English).
setLanguage()
  .catch(() => {})
  .then(() => fill())
  .then(claim)
  .finally(() => { route(); connect(); for (const load of ADD_ONS) load(); });
