// The tournament board: every table on the broker and the standings across them,
// live over Server-Sent Events (no other host is ever asked for anything).
"use strict";

const tables = new Map();
let standings = [];

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
  return "Table " + id;
}

function meta(t) {
  const round = num(t.round), rounds = num(t.rounds), engine = num(t.engine);
  if (round === null) return "No game";
  const parts = ["Round " + round + (rounds ? " of " + rounds : "")];
  if (engine !== null) parts.push("engine double-" + engine);
  const phase = str(t.phase);
  if (phase) parts.push(phase.replace("-", " "));
  return parts.join(" · ");
}

function card(t) {
  const offline = t.online === false;
  const badge = el("span", {class: "badge " + (offline ? "off" : "on")},
    offline ? "offline" : "online");
  const players = el("ol", {});
  const seated = list(t.players).filter((p) => p && str(p.name) !== null);
  const standing = list(t.standings).filter((name) => str(name) !== null);
  const order = standing.length ? standing : seated.map((p) => p.name);
  const byName = new Map(seated.map((p) => [p.name, p]));
  for (const name of order) {
    const total = num((byName.get(name) || {}).total);
    const li = el("li", {class: name === str(t.turn) ? "now" : ""}, el("span", {}, name),
      el("span", {class: "num"}, total === null ? "" : String(total)));
    players.append(li);
  }
  let turn = "";
  if (str(t.winner)) turn = "Winner: " + t.winner;
  else if (str(t.turn)) turn = t.turn + "’s turn";
  return el("article", {class: "card" + (offline ? " offline" : ""), "data-hub": t.hub_id,
                        "data-online": String(!offline)},
    el("h3", {}, el("span", {}, tableName(t.hub_id)), badge),
    el("p", {class: "meta"}, meta(t)),
    el("p", {class: "turn"}, turn),
    players);
}

function renderTables() {
  const box = document.getElementById("tables");
  const sorted = [...tables.values()].sort((a, b) => a.hub_id.localeCompare(b.hub_id));
  box.replaceChildren(...sorted.map(card));
  document.getElementById("no-tables").hidden = sorted.length > 0;
  const offline = sorted.filter((t) => t.online === false).length;
  document.getElementById("count").textContent = sorted.length
    ? "(" + sorted.length + (offline ? ", " + offline + " offline" : "") + ")" : "";
}

function renderStandings() {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...standings.map((r) => el("tr",
    {class: r.online === false ? "offline" : "", "data-player": r.name, "data-hub": r.hub_id},
    el("td", {}, num(r.place) === null ? "–" : String(r.place)), el("td", {}, r.name),
    el("td", {}, r.hub_id, r.online === false ? el("small", {}, " offline") : null),
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
  badge.textContent = connected ? "Live" : "Broker unreachable";
}

function keep(t) {
  if (t && typeof t === "object" && str(t.hub_id) !== null) tables.set(t.hub_id, t);
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
        badge.textContent = `Every ${BUSY_RETRY_MS / 1000} s`;
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
    badge.textContent = "Reconnecting…";
    if (source.readyState === EventSource.CLOSED) {
      // Refused (a 503) or not a stream: the browser will not retry this one itself.
      source.close();
      poll();
    }
  };
}

connect();
