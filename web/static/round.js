// The round view: entering a round's scores by points (a number pad) or by the tiles
// left in each hand, correcting an earlier round, marking a blocked round, and the
// round's change history. The form is patched in place: a tap on a tile or a key keeps
// focus where it is, and the history is fetched only when the round or its scores change.
import { $, S, api, byWords, esc, gameId, keeper, on, own, short, toast } from "./core.js";
import { patch } from "./patch.js";
import { onGame } from "./running.js";
import { formatDate, t } from "./i18n.js";

// errors: {p<i> | went_out | round: message}, shown by render(). out: who went out, or
// "" with blocked (nobody: the round was blocked) or neither (not chosen yet: Save asks).
// midRound: the hub said the round is still in play; the next Save says "mid_round".
const R = {
  fresh: true, key: "", round: 0, mode: "points", points: byName(), tiles: byName(), active: null,
  out: "", blocked: false, outSet: false, dirty: false, midRound: false, errors: {},
};
const BLOCKED = " ";  // the "Went out" choice "Nobody": a name is never blank
// Name-keyed data has no prototype: "__proto__" or "toString" is a player like any other.
function byName() { return Object.create(null); }
const curGame = () => (S.game && S.game.id === gameId() ? S.game : null);

let openedWith;  // the route's round ("" for the current one), for when the game comes
export function open(arg) {
  openedWith = arg;
  const g = curGame();
  if (!g) {
    $("round-changes").hidden = true;
    const loading = !S.snap || (S.snap.game && !S.game);
    const note = t(loading ? "round.loading" : "round.no_game");
    return patch($("round"), `<p class="note">${esc(note)}</p>`);
  }
  const open = g.rounds.find((r) => !r.finished), last = g.rounds[g.rounds.length - 1];
  const n = arg ? +arg : open ? open.round : last ? last.round : 1;
  if (R.key !== `${g.id}/${n}`) reset(g, n);
  render();
  loadHistory(g);
}
function hubOut(g, n) {
  const s = S.snap;
  const here = s && s.game && s.game.id === g.id && s.game.round === n;
  return here && s.went_out ? s.went_out : "";
}
function reset(g, n) {
  const rnd = g.rounds.find((r) => r.round === n) || { finished: false, points: {} };
  Object.assign(R, {
    key: `${g.id}/${n}`, round: n, mode: "points", points: byName(), tiles: byName(),
    dirty: false, outSet: false, midRound: false, fresh: true, errors: {},
  });
  for (const p of g.players) {
    R.points[p] = rnd.finished ? String(own(rnd.points, p) ?? "") : "";
    R.tiles[p] = new Set();
  }
  R.out = rnd.went_out || hubOut(g, n);
  R.blocked = !R.out && !!(rnd.finished || rnd.blocked);
  R.active = g.players.find((p) => p !== R.out) || null;
}
on("state", () => {
  const g = curGame();
  if (S.view !== "round" || !g || R.outSet || R.key !== `${g.id}/${R.round}`) return;
  const out = hubOut(g, R.round);
  if (out && out !== R.out) {
    R.out = out;
    R.blocked = false;
    if (R.active === out) R.active = g.players.find((p) => p !== out);
    render();
  }
});
on("game", () => {
  const g = curGame();
  if (S.view !== "round" || !g) return;
  if (!R.key.startsWith(`${g.id}/`)) return open(openedWith);  // the game just came
  if (!R.dirty) render();
  loadHistory(g);
});

const pipsOf = (tile, blank) => {
  const [h, l] = tile.split("-").map(Number);
  return h + l === 0 ? blank : h + l;
};
function handPips(p, g) {
  let sum = 0;
  for (const tile of R.tiles[p]) sum += pipsOf(tile, g.options.double_blank || 0);
  return sum;
}
function valueOf(p, g) {
  return p === R.out ? "0" : R.mode === "tiles" ? String(handPips(p, g)) : R.points[p];
}
const errAttrs = (key) => (R.errors[key] ? ` aria-invalid="true" aria-describedby="e-${key}"` : "");
const errBox = (key, cls = "err") =>
  `<p class="${cls}" id="e-${key}">${esc(R.errors[key] || "")}</p>`;

function render() {
  const g = curGame(), box = $("round");
  if (!g || S.view !== "round") return;
  const rnd = g.rounds.find((r) => r.round === R.round);
  $("round-changes").hidden = !rnd;
  if (!rnd) {
    return patch(box, `<p class="err">${esc(t("round.not_played", { round: R.round }))}</p>`);
  }
  const picker = `<label for="r-round">${esc(t("round.heading"))}</label>` +
    `<select id="r-round">${g.rounds.map(roundOption).join("")}</select>`;
  if (!keeper(g.id)) return patch(box, picker + `<p class="note">${esc(t("round.viewer"))}</p>`);
  const save = rnd.finished ? "round.save_correction"
    : R.midRound ? "round.save_mid_round" : "round.save";
  const mode = (value, key) => `<label><input type="radio" name="mode" value="${value}"` +
    `${R.mode === value ? " checked" : ""}> ${esc(t(key))}</label>`;
  const hands = g.players.map((p, i) => handRow(g, p, i)).join("");
  const warn = R.midRound ? " warn" : "";
  const saving = `<button type="button" id="r-save" class="primary wide${warn}">` +
    `${esc(t(save, { round: R.round }))}</button>`;
  const blocked = !rnd.finished && !rnd.went_out && !rnd.blocked
    ? `<button type="button" id="r-blocked" class="wide">${esc(t("round.blocked_button"))}</button>`
    : "";
  patch(box, picker + outPicker(g) +
    `<div class="seg" role="radiogroup" aria-label="${esc(t("round.count_by"))}">` +
    mode("points", "round.points") + mode("tiles", "round.tiles_left") + "</div>" +
    `<ul class="hands" aria-label="${esc(t("round.hands"))}">${hands}</ul>` +
    (R.mode === "points" ? "" : tilePicker(g, rnd) + errBox("round")) +
    // Save sits in the dock over the tabs with the pad: never under the tabs, no scroll.
    `<div class="dock">${R.mode === "points" ? padHtml() + errBox("round") : ""}${saving}</div>` +
    blocked);
}
// A round in the picker: scored, or in play now, with its engine.
function roundOption(r) {
  const key = r.finished ? "round.option_scored" : "round.option_now";
  return `<option value="${r.round}"${r.round === R.round ? " selected" : ""}>` +
    `${esc(t(key, { round: r.round, engine: r.engine }))}</option>`;
}
function outPicker(g) {
  const unset = !R.out && !R.blocked;
  const players = g.players
    .map((p) => `<option value="${esc(p)}"${p === R.out ? " selected" : ""}>${esc(p)}</option>`);
  return `<label for="r-out">${esc(t("round.went_out"))}</label>` +
    `<select id="r-out"${errAttrs("went_out")}>` +
    (unset ? `<option value="" selected>${esc(t("round.choose_out"))}</option>` : "") +
    players.join("") +
    `<option value="${BLOCKED}"${R.blocked ? " selected" : ""}>${esc(t("round.nobody"))}</option>` +
    `</select>${errBox("went_out")}`;
}
function handRow(g, p, i) {
  const out = p === R.out, tiles = [...R.tiles[p]], active = p === R.active;
  const who = esc(out ? t("round.player_out", { name: p }) : p);
  const typing = active && R.mode === "points" && !out
    ? `<span class="typing">${esc(t("round.typing"))}</span>` : "";
  const locked = out || R.mode === "tiles" ? " readonly" : "";
  return `<li class="hand${active ? " active" : ""}" data-i="${i}" data-key="h${i}">` +
    `<button type="button" class="who" data-pick="${i}">${who}${typing}</button>` +
    `<input id="p${i}" aria-label="${esc(t("round.points_of", { name: p }))}" inputmode="none"` +
    ` autocomplete="off" value="${esc(valueOf(p, g))}"${locked}${errAttrs("p" + i)}>` +
    (R.mode === "tiles" && !out
      ? `<span class="tiles">${esc(tiles.length ? tiles.join("  ") : t("round.no_tiles"))}</span>`
      : "") +
    errBox("p" + i) + "</li>";
}
function padHtml() {
  const keys = ["1", "2", "3", "⌫", "4", "5", "6", "Clear", "7", "8", "9", "0", "Next"];
  const face = { Clear: t("pad.clear"), Next: t("pad.next") };
  const label = {
    "⌫": t("pad.delete_label"), Clear: t("pad.clear_label"), Next: t("pad.next_label"),
  };
  const button = (k) => `<button type="button" data-key="${k}"` +
    `${label[k] ? ` aria-label="${esc(label[k])}"` : ""}>${esc(face[k] || k)}</button>`;
  const name = R.active || "";
  return `<div class="pad" role="group" aria-label="${esc(t("pad.label", { name }))}">` +
    `${keys.map(button).join("")}</div>`;
}
function tilePicker(g, rnd) {
  if (!R.active || R.active === R.out) return `<p class="note">${esc(t("round.tap_player"))}</p>`;
  const holder = byName();
  for (const p of g.players) for (const tile of R.tiles[p]) holder[tile] = p;
  const chips = g.players.filter((p) => p !== R.out).map((p) =>
    `<button type="button" data-pick="${g.players.indexOf(p)}" aria-pressed="${p === R.active}">` +
    `${esc(short(p, 8))} ${handPips(p, g)}</button>`).join("");
  let html = `<div class="chips" role="group" aria-label="${esc(t("round.whose_hand"))}">` +
    `${chips}</div><p class="note">${esc(t("round.tap_tiles", { name: R.active }))}</p>` +
    `<div class="dominoes" role="group" aria-label="${esc(t("round.set_tiles"))}">`;
  for (let h = g.set; h >= 0; h--) for (let l = h; l >= 0; l--) {
    const tile = `${h}-${l}`, who = holder[tile], engine = h === l && h === rnd.engine;
    const mine = who === R.active, off = engine || (who && !mine);
    const what = engine ? t("round.tile_engine", { tile })
      : off ? t("round.tile_taken", { tile, name: who }) : tile;
    html += `<button type="button" class="dom${engine ? " engine" : off ? " taken" : ""}"` +
      ` data-tile="${tile}" aria-pressed="${mine}"${off ? " disabled" : ""}` +
      ` aria-label="${esc(what)}"><span>${h}</span><span>${l}</span></button>`;
  }
  return html + "</div>";
}

let historyFor = "";  // the latest history request: an older answer is dropped
async function loadHistory(g) {
  const want = (historyFor = `${g.id}/${R.round}`);
  const r = await api("GET", `/api/games/${g.id}/rounds/${R.round}/history`);
  if (historyFor !== want) return;
  if (!r.ok) return patch($("r-history"), "");
  patch($("r-history"), r.data.map(historyItem).join("") ||
    `<li>${esc(t("round.no_scores"))}</li>`);
}
// A change of the round's scores: whose, from what to what, by whom and when.
function historyItem(e) {
  const from = e.old == null ? "" : `${e.old} → `;
  const when = e.at ? formatDate(e.at, { timeStyle: "short" }) : "";
  return `<li>${esc(e.player)}: ${from}${e.new}` +
    ` <small>(${esc(byWords(e.by))}, ${esc(when)})</small></li>`;
}

// fresh: the active player was just chosen, so the first digit replaces what was there.
function setActive(p) { R.active = p; R.fresh = true; render(); }
$("round").addEventListener("input", (e) => {
  const g = curGame(), m = /^p(\d+)$/.exec(e.target.id || "");
  if (e.target.id === "r-round") location.hash = `#/round/${e.target.value}`;
  else if (e.target.id === "r-out") {
    R.blocked = e.target.value === BLOCKED;
    R.out = R.blocked ? "" : e.target.value;
    R.outSet = R.dirty = true;
    delete R.errors.went_out;
    if (R.active === R.out) R.active = g.players.find((p) => p !== R.out);
    render();
  } else if (e.target.name === "mode") { R.mode = e.target.value; render(); }
  else if (m) {
    const v = e.target.value.trim(), key = "p" + m[1];
    R.points[g.players[+m[1]]] = v; R.dirty = true; R.fresh = false;
    const was = R.errors[key] || "";
    if (/^\d*$/.test(v)) delete R.errors[key];
    else R.errors[key] = t("round.not_a_number", { value: v });
    if ((R.errors[key] || "") !== was) render();
  }
});
$("round").addEventListener("click", (e) => {
  const g = curGame(), b = e.target.closest("button, input");
  if (!g || !b) return;
  if (b.dataset.pick || b.matches("input[id^=p]")) {
    const p = g.players[+(b.dataset.pick ?? b.id.slice(1))];
    if (p !== R.out && p !== R.active) setActive(p);
  } else if (b.dataset.key) padKey(g, b.dataset.key);
  else if (b.dataset.tile) {
    const hand = R.tiles[R.active];
    if (hand.has(b.dataset.tile)) hand.delete(b.dataset.tile); else hand.add(b.dataset.tile);
    R.dirty = true; render();
  } else if (b.id === "r-save") save(g);
  else if (b.id === "r-blocked") block(g);
});
function padKey(g, key) {
  const p = R.active;
  if (!p) return;
  if (key === "Next") {
    const order = g.players.filter((x) => x !== R.out);
    return setActive(order[(order.indexOf(p) + 1) % order.length]);
  }
  const v = R.fresh || !/^\d*$/.test(R.points[p]) ? "" : R.points[p];
  const typed = (v === "0" ? "" : v).concat(key).slice(0, 4);  // over a lone 0; 4 digits at most
  R.points[p] = key === "Clear" ? "" : key === "⌫" ? R.points[p].slice(0, -1) : typed;
  R.fresh = false;
  R.dirty = true;
  delete R.errors["p" + g.players.indexOf(p)];
  const points = R.points[p] || t("round.typed_empty");
  $("r-live").textContent = t("round.typed", { name: p, points });  // typed digits are heard
  render();
}

function body(g) {
  if (!R.out && !R.blocked) R.errors.went_out = t("round.choose_out_error");
  const out = { went_out: R.out || null };
  if (R.midRound) out.mid_round = true;
  if (R.mode === "tiles") {
    out.tiles = byName();
    for (const p of g.players) out.tiles[p] = p === R.out ? [] : [...R.tiles[p]];
  } else {
    out.points = byName();
    g.players.forEach((p, i) => {
      const v = valueOf(p, g);
      if (!/^\d+$/.test(v)) {
        R.errors["p" + i] = /^\d*$/.test(v) ? t("round.type_points", { name: p })
          : t("round.not_a_number", { value: v });
      }
      out.points[p] = +v;
    });
  }
  return out;
}
async function save(g) {
  R.errors = {};
  const sent = body(g);
  if (Object.keys(R.errors).length) return render();
  const seen = S.game && S.game.id === g.id ? S.game : g; // the newest this phone has
  if (typeof seen.version === "number") sent.version = seen.version; // 409 if stale
  const button = $("r-save");
  button.disabled = true;
  const r = await api("POST", `/api/games/${g.id}/rounds/${R.round}/scores`, sent, g.id);
  button.disabled = false;
  if (r.status === 409 && r.data.code === "stale") return stale(g, r);
  if (r.status === 409 && r.data.code === "round_in_play") return inPlay(r);
  if (!r.ok) return failed(g, r);
  const n = R.round;
  R.key = "";
  onGame(r.data);
  toast(t("round.saved", { round: n }));
  location.hash = "#/scores";
}
// The hub says the round is still in play: say so, and make Save the second step.
function inPlay(r) {
  R.midRound = true;
  R.errors = { round: r.data.error };
  render();
  $("e-round").scrollIntoView({ block: "center" });
}
// Another scorekeeper saved first: show what is stored now, keep what was typed.
async function stale(g, r) {
  const fresh = await api("GET", `/api/games/${g.id}`);
  if (fresh.ok) onGame(fresh.data);
  const stored = r.data.round && r.data.round.points;
  const now = stored ? Object.entries(stored).map(([p, n]) => `${p} ${n}`).join(", ") : "";
  R.errors = { round: t(now ? "round.stale" : "round.stale_empty", { round: R.round, now }) };
  render();
}
// Where an error goes: its field's hand ("points.Ann", "tiles.Ann"), "Went out", or the
// box over the save button.
function errorKey(g, field) {
  if (field === "went_out") return "went_out";
  const m = /^(?:points|tiles)\.(.+)$/.exec(field || "");
  const i = m ? g.players.indexOf(m[1]) : -1;
  return i >= 0 ? "p" + i : "round";
}
function failed(g, r) {
  const auth = r.status === 401 || r.status === 403;
  const key = auth ? "round" : errorKey(g, r.data.field);
  R.errors = { [key]: auth ? t("round.not_keeper", { reason: r.data.error }) : r.data.error };
  render();
  const where = $(key === "round" ? "e-round" : key === "went_out" ? "r-out" : key);
  if (where) where.scrollIntoView({ block: "center" });
}
async function block(g) {
  const r = await api("POST", `/api/games/${g.id}/rounds/${R.round}/blocked`, {}, g.id);
  if (!r.ok) { R.errors = { round: r.data.error }; return render(); }
  R.out = ""; R.blocked = true; R.outSet = true;
  onGame(r.data);
  render();
}
