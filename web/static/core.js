// What every part of the scorepad shares: the page state, the hub's answers, the
// scorekeeper tokens, the toast, and the hooks that let a module follow the hub:
//   on("state", (snap) => …)   every snapshot (SSE, a sim press, a refresh)
//   on("game", (game) => …)    every change of the running game's scores
//   on("sound", (sound) => …)  every sound the hub plays
//   on("view", (name) => …)    every change of view
//   on("lang", (lang) => …)    a change of the page's language (redraw your words)
//   on("keeper", (id) => …)    this phone stopped keeping game id's score (handed over)
import { language, t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);
// A value of name-keyed data: own properties only, so a player called "constructor" or
// "__proto__" is a name like any other, never something every object has.
export const own = (o, k) => (o != null && Object.hasOwn(o, k) ? o[k] : undefined);
export const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// Who did it, as the hub's log and a round's history name them ("scorekeeper", "centre",
// "mqtt", "journal", "tablesim"), in the page's words; any other name as it is.
const BY = { centre: "fixes.by_centre", scorekeeper: "fixes.by_scorekeeper", mqtt: "fixes.by_mqtt",
  journal: "fixes.by_journal", tablesim: "fixes.by_tablesim" };
export const byWords = (by) => (Object.hasOwn(BY, by) ? t(BY[by]) : by);
export const short = (name, n = 9) => (name.length > n ? name.slice(0, n - 1) + "…" : name);

// snap: /api/state; game: the running game (/api/games/<id>); shown: the game on the
// scores view; view: the route; sim: the virtual hub is on; sheet: its slot, or null.
export const S = { snap: null, game: null, shown: null, view: "table", sim: false, sheet: null };

const hooks = { state: [], game: [], sound: [], view: [], lang: [], keeper: [] };
export function on(kind, fn) { hooks[kind].push(fn); }
export function emit(kind, data) { for (const fn of hooks[kind]) fn(data); }
export function newState(snap) { S.snap = snap; emit("state", snap); }

// A control rests a moment once what it acts on has changed (a new self-test step, the
// table an undo came back to): the second tap of a double tap, landing just after, must
// not answer what nobody has looked at yet. One rule for the whole page: rest(wake)
// gives {start(), resting}; start() begins a rest of REST_MS, and wake() runs after it.
export const REST_MS = 600;
export function rest(wake) {
  let until = 0, timer = null;
  return {
    start() {
      until = performance.now() + REST_MS;
      clearTimeout(timer);
      timer = setTimeout(wake, REST_MS + 10);
    },
    get resting() { return performance.now() < until; },
  };
}

// --- tokens: {gameId: token} in localStorage -------------------------------------------
const KEY = "mtrain.tokens";
function tokens() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}
export function tokenFor(id) { return id ? tokens()[id] || null : null; }
export function setToken(id, token) {
  const all = tokens();
  if (token) all[id] = token; else delete all[id];
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { toast(t("app.token_not_kept")); }
}
export const gameId = () => (S.snap && S.snap.game ? S.snap.game.id : S.game ? S.game.id : null);
export const keeper = (id = gameId()) => !!tokenFor(id);

// --- HTTP: {ok, status, data}; a refusal's data is {code, error, field?, params} ----
// The hub refuses with {"error": code, "field", "params", "message"}: the page words
// it from the code and params with its own catalogs (error.<code>), in its language;
// the hub's "message" is the fallback for a code this page does not know. So a view
// shows data.error (the words) and decides by data.code, never by the words.
export async function api(method, path, body, id) {
  // The hub takes changes as JSON only (415 otherwise): a change always sends a body.
  const changes = method !== "GET" && method !== "HEAD";
  const headers = { "Accept-Language": language() };
  if (changes) headers["Content-Type"] = "application/json";
  if (tokenFor(id)) headers.Authorization = "Bearer " + tokenFor(id);
  let res;
  try {
    const sent = changes ? JSON.stringify(body ?? {}) : undefined;
    res = await fetch(path, { method, headers, body: sent });
  } catch {
    return { ok: false, status: 0, data: { code: "no_answer", error: t("error.no_answer") } };
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) data = refusal(res, data);
  return { ok: res.ok, status: res.status, data, next: nextPage(res) };
}

// The next page of a paged list (GET /api/games): the path its Link header names, or null.
function nextPage(res) {
  const link = /<([^>]*)>\s*;\s*rel="next"/.exec(res.headers.get("Link") || "");
  return link && link[1].startsWith("/api/") ? link[1] : null;
}

// A refusal's words from its code: the catalogs' error.<code> with its params; else
// the hub's message; else general words for the status (a 429 says when to ask again).
export function refusal(res, data) {
  const given = data && typeof data === "object" ? data : {};
  const code = typeof given.error === "string" ? given.error : "";
  const params = given.params && typeof given.params === "object" ? given.params : {};
  const said = (v) => (Array.isArray(v) ? v.join(", ") : v);  // a list, in words
  const words = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, said(v)]));
  const key = `error.${code}`;
  const known = code && t(key, words) !== key;
  let error = known ? t(key, words) : given.message;
  if (!error && res.status === 429) {
    error = t("error.wait", { count: Math.max(1, +res.headers.get("Retry-After") || 1) });
  }
  if (!error) error = t("error.status", { status: res.status });
  return { ...given, code, params, error };
}

let toastTimer;
export function toast(text) {
  $("toast").textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => ($("toast").textContent = ""), 2600);
}

// An element of the page for an add-on: found by id, or made inside `where` at the end.
export function place(where, id, tag = "span") {
  let el = $(id);
  if (!el) { el = document.createElement(tag); el.id = id; $(where).append(el); }
  return el;
}
