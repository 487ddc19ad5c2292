// The tournament board: every table on the broker and the standings across them,
// live over Server-Sent Events (no other host is ever asked for anything).
"use strict";

const tables = new Map();
let standings = [];

// The words: the scorepad's catalog for the browser's language (the board serves it at
// /i18n/<lang>.json; web/static/i18n.js is the scorepad's reader of the same files).
const LANGUAGES = ["en", "es"];
let words = {}, lang = "en";
function t(key, params = {}) {
  let entry = Object.hasOwn(words, key) ? words[key] : undefined;
  if (entry === undefined) return key;
  if (typeof entry === "object") {
    entry = entry[new Intl.PluralRules(lang).select(Number(params.count ?? 0))] ?? entry.other;
  }
  return entry.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole);
}
async function loadWords() {
  const tags = navigator.languages || [navigator.language || ""];
  const bases = tags.map((tag) => String(tag).toLowerCase().split("-")[0]);
  lang = bases.find((l) => LANGUAGES.includes(l)) || "en";
  const response = await fetch(`/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`catalog ${lang}: ${response.status}`);
  words = await response.json();
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n);
  }
  for (const node of document.querySelectorAll("[data-i18n-title]")) {
    node.title = t(node.dataset.i18nTitle);
  }
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// The board checks what it serves, but the page trusts nothing: any field of any
// other type reads as absent, so one odd table can never blank the others.
function str(value) {
  return typeof value === "string" ? value : null;
}

function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function list(value) {
  return Array.isArray(value) ? value : [];
}

function tableName(id) {
  return t("board.table_name", { table: id });
}

function meta(table) {
  const round = num(table.round), rounds = num(table.rounds), engine = num(table.engine);
  if (round === null) return t("board.no_game");
  const parts = [rounds ? t("board.round_of", { round, rounds }) : t("board.round", { round })];
  if (engine !== null) parts.push(t("board.engine", { engine }));
  const phase = str(table.phase);
  // The hub's phases (hub/core/state.py, PHASES) each have words; another hub's newer one
  // is shown as it came.
  const phaseKey = `board.phase.${phase}`;
  if (phase) parts.push(Object.hasOwn(words, phaseKey) ? t(phaseKey) : phase);
  return parts.join(" · ");
}

function card(table) {
  const offline = table.online === false;
  const badge = el("span", {class: "badge " + (offline ? "off" : "on")},
    offline ? t("board.offline") : t("board.online"));
  const players = el("ol", {});
  const seated = list(table.players).filter((p) => p && str(p.name) !== null);
  const standing = list(table.standings).filter((name) => str(name) !== null);
  const order = standing.length ? standing : seated.map((p) => p.name);
  const byName = new Map(seated.map((p) => [p.name, p]));
  for (const name of order) {
    const total = num((byName.get(name) || {}).total);
    const li = el("li", {class: name === str(table.turn) ? "now" : ""}, el("span", {}, name),
      el("span", {class: "num"}, total === null ? "" : String(total)));
    players.append(li);
  }
  let turn = "";
  if (str(table.winner)) turn = t("board.winner", { name: table.winner });
  else if (str(table.turn)) turn = t("board.turn", { name: table.turn });
  return el("article", {class: "card" + (offline ? " offline" : ""), "data-hub": table.hub_id,
                        "data-online": String(!offline)},
    el("h3", {}, el("span", {}, tableName(table.hub_id)), badge),
    el("p", {class: "meta"}, meta(table)),
    el("p", {class: "turn"}, turn),
    players);
}

function renderTables() {
  const box = document.getElementById("tables");
  const sorted = [...tables.values()].sort((a, b) => a.hub_id.localeCompare(b.hub_id));
  box.replaceChildren(...sorted.map(card));
  document.getElementById("no-tables").hidden = sorted.length > 0;
  const offline = sorted.filter((table) => table.online === false).length;
  const count = sorted.length;
  document.getElementById("count").textContent = !count ? ""
    : offline ? t("board.count_offline", { count, offline }) : t("board.count", { count });
}

function renderStandings() {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...standings.map((r) => el("tr",
    {class: r.online === false ? "offline" : "", "data-player": r.name, "data-hub": r.hub_id},
    el("td", {}, num(r.place) === null ? "–" : String(r.place)), el("td", {}, r.name),
    el("td", {}, r.hub_id, r.online === false ? el("small", {}, " " + t("board.offline")) : null),
    el("td", {class: "num"}, String(num(r.points) ?? "")),
    el("td", {class: "num"}, String(num(r.rounds) ?? "")),
    el("td", {class: "num"}, String(num(r.won) ?? "")))));
  document.getElementById("no-standings").hidden = standings.length > 0;
  document.getElementById("standings").hidden = standings.length === 0;
  const rounds = new Set(standings.map((r) => r.rounds));
  rounds.delete(0);
  if (standings.some((r) => r.rounds === 0) && rounds.size) rounds.add(0);
  document.getElementById("provisional").hidden = rounds.size < 2;
}

function setLink(connected) {
  const badge = document.getElementById("link");
  badge.className = "badge " + (connected ? "on" : "off");
  badge.textContent = connected ? t("board.live") : t("board.unreachable");
}

function keep(table) {
  if (table && typeof table === "object" && str(table.hub_id) !== null) {
    tables.set(table.hub_id, table);
  }
}

function rows(value) {
  return list(value).filter((r) => r && str(r.name) !== null && str(r.hub_id) !== null);
}

function showBoard(view) {
  view = view && typeof view === "object" ? view : {};
  tables.clear();
  list(view.tables).forEach(keep);
  standings = rows(view.standings);
  setLink(view.connected);
  renderTables();
  renderStandings();
}

// The board refused a live stream (every live place taken: a 503): fetch the whole
// board now, then try the stream again in a few seconds; until a place is free the
// page updates that often instead of live.
const BUSY_RETRY_MS = 5000;

async function poll() {
  try {
    const response = await fetch("/api/board", { cache: "no-store" });
    if (response.ok) {
      const view = await response.json();
      showBoard(view);
      if (view.connected) {
        const badge = document.getElementById("link");
        badge.className = "badge on";
        badge.textContent = t("board.every", { count: BUSY_RETRY_MS / 1000 });
      }
    }
  } catch (err) {
    // the board is unreachable: the badge says so below, and the next try comes anyway
  }
  setTimeout(connect, BUSY_RETRY_MS);
}

function connect() {
  const source = new EventSource("/api/board/events");
  source.addEventListener("board", (e) => showBoard(JSON.parse(e.data)));
  source.addEventListener("tables", (e) => {
    const parsed = JSON.parse(e.data);
    const update = parsed && typeof parsed === "object" ? parsed : {};
    list(update.tables).forEach(keep);
    setLink(update.connected);
    if (list(update.tables).length) renderTables();
    if (Array.isArray(update.standings)) {
      standings = rows(update.standings);
      renderStandings();
    }
  });
  source.onerror = () => {
    const badge = document.getElementById("link");
    badge.className = "badge off";
    badge.textContent = t("board.reconnecting");
    if (source.readyState === EventSource.CLOSED) {
      // Refused (a 503) or not a stream: the browser will not retry this one itself.
      source.close();
      poll();
    }
  };
}

// The words first (a catalog the board cannot fetch leaves them in English).
loadWords().catch(() => {}).finally(connect);
