// Putting mistakes right (an add-on of the table view): who holds one tile; for the
// scorekeeper an Undo button, the round's engine (where the table names it) and a panel
// to set the table right by hand (whose turn, the open double and who covers it, a
// train's public flag when its marker is missing); the last undos and fixes from
// /api/log; and, on the sim backend's virtual hub, the centre button (tap, hold, long
// hold = undo).
import { $, S, api, byWords, keeper, on, place, rest, toast } from "./core.js";
import { holdMs } from "./table.js";
import { formatDate, t } from "./i18n.js";

let shownDepth = null;

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}
const owner = (snap, slot) =>
  slot === 0 ? t("fixes.centre") : snap.slots[slot - 1].owner || t("table.slot", { slot });
const seats = (snap) => snap.slots.filter((s) => s.owner && s.owner !== "mexican");
// A game without a Mexican Train has no mexican_at: its players' trains only.
const trains = (snap) => [...seats(snap).map((s) => [s.slot, s.owner]),
  ...(snap.mexican_at == null ? [] : [[snap.mexican_at, t("fixes.mexican_train")]])];

// The choices offered, ``chosen`` selected; but a choice the person made by hand stays
// while the table changes under it (a press at the table, a sound's status), as long as
// it is still offered: a state update must not swap their pick before they press the
// button. After a fix is sent, the selects follow the table again.
function options(select, pairs, chosen) {
  const mine = select.dataset.picked && pairs.find(([value]) => String(value) === select.value);
  if (mine) chosen = mine[0];
  select.replaceChildren(...pairs.map(([value, label]) => {
    const o = el("option", { value: String(value) }, label);
    if (value === chosen) o.selected = true;
    return o;
  }));
}

// --- who holds one tile ----------------------------------------------------------------
function renderOneTile(snap) {
  const box = place("v-table", "one-tile", "p");
  box.className = "status one-tile";
  // Only while a round is played: whoever went out holds none; a new round starts afresh.
  const playing = snap.game && snap.game.playing;
  const names = !playing ? []
    : (snap.one_tile || []).map((slot) => owner(snap, slot)).filter((n) => n !== snap.went_out);
  box.hidden = !names.length;
  box.textContent = names.length
    ? t("fixes.one_tile", { names: names.join(", "), count: names.length }) : "";
}

// --- the scorekeeper's tools --------------------------------------------------------------
function tools() {
  let box = $("fixes");
  if (box) return box;
  box = place("v-table", "fixes", "div");
  box.className = "fixes";
  const undo = el("button", { type: "button", id: "undo", class: "btn wide" }, t("fixes.undo"));
  // The undo names the table this phone shows (its ``undo`` count and the stamp of the
  // action it takes back): a double tap, a second phone's undo or a press at the hub
  // since (an undo and a new press too: the same count, another stamp) is refused.
  // The button also rests while its request is out and a moment after (core.js, rest):
  // a slow double tap's second tap, after the table came back undone, is not a second
  // undo (walking further back takes a deliberate tap).
  const resting = rest(() => { delete undo.dataset.busy; render(S.snap); });
  undo.addEventListener("click", async () => {
    if (undo.dataset.busy) return;
    undo.dataset.busy = "1";
    undo.disabled = true;
    const what = S.snap.undoes;  // what this phone shows the undo taking back
    try {
      const done = what ? t("fixes.undone_what", { what: undid(what) }) : t("fixes.undone");
      await send("/undo", { undo: S.snap.undo, stamp: S.snap.undo_stamp }, done);
    } finally {
      resting.start();
    }
  });
  const panel = el("details", { id: "fix-panel" });
  panel.append(el("summary", {}, t("fixes.panel")), fixForm(), engineForm());
  const log = el("ol", { id: "fix-log", class: "history", "aria-label": t("fixes.log") });
  box.append(undo, panel, log);
  return box;
}

// A line of the panel: labelled controls, then buttons ([text, onClick] pairs).
function row(controls, buttons) {
  const line = el("div", { class: "row fix-row" });
  for (const [label, control] of controls) {
    line.append(el("label", { for: control.id }, label), control);
  }
  for (const [text, onClick] of buttons) {
    const go = el("button", { type: "button" }, text);
    go.addEventListener("click", onClick);
    line.append(go);
  }
  return line;
}

// A select changed by hand keeps the person's pick while the table changes (options()).
function keepPicks(form) {
  form.addEventListener("change", (e) => {
    if (e.target.tagName === "SELECT") e.target.dataset.picked = "1";
  });
}

function fixForm() {
  const form = el("div", { id: "fix-form" });
  keepPicks(form);
  const turn = el("select", { id: "fix-turn" });
  const dslot = el("select", { id: "fix-double" });
  const covers = el("select", { id: "fix-covers" });
  options(covers, [[1, "1"], [2, "2"], [3, "3"]], 1);
  const resp = el("select", { id: "fix-responsible" });
  const pslot = el("select", { id: "fix-public" });
  const double = () =>
    ({ double: { slot: +dslot.value, covers_left: +covers.value, responsible: +resp.value } });
  const flag = (pub) => ({ public: { slot: +pslot.value, public: pub } });
  // A button's click: the fix as its controls say it then, and the words of the toast.
  const fix = (body, done) => () => send("/fix", body(), t(done));
  form.append(
    row([[t("fixes.whose_turn"), turn]],
      [[t("fixes.set_turn"), fix(() => ({ turn: +turn.value }), "fixes.turn_set")]]),
    row(
      [[t("fixes.double_on"), dslot], [t("fixes.tiles_needed"), covers],
        [t("fixes.who_covers"), resp]],
      [[t("fixes.open_double"), fix(double, "fixes.double_set")],
        [t("fixes.close_double"), fix(() => ({ double: { slot: null } }), "fixes.double_closed")]]),
    row([[t("fixes.no_marker"), pslot]],
      [[t("fixes.public"), fix(() => flag(true), "fixes.train_public")],
        [t("fixes.private"), fix(() => flag(false), "fixes.train_private")]]));
  return form;
}

function engineForm() {
  const form = el("div", { id: "engine-form", hidden: "" });
  keepPicks(form);
  const engine = el("select", { id: "fix-engine" });
  const setEngine = () => {
    const g = S.snap.game, done = t("fixes.engine_set", { engine: engine.value });
    send(`/rounds/${g.round}/engine`, { engine: +engine.value }, done);
  };
  form.append(row([[t("fixes.engine"), engine]], [[t("fixes.set_engine"), setEngine]]));
  return form;
}

function fillTools(snap) {
  const g = snap.game, double = snap.double;
  const players = seats(snap).map((s) => [s.slot, s.owner]);
  options($("fix-turn"), players, snap.turn);
  options($("fix-double"), trains(snap), double ? double.slot : snap.turn);
  options($("fix-responsible"), players, double ? double.responsible : snap.turn);
  options($("fix-public"), players, $("fix-public").value ? +$("fix-public").value : null);
  const named = !!g.engine_named;
  $("engine-form").hidden = !named;
  if (named) {
    const engines = Array.from({ length: g.set + 1 }, (_, n) => g.set - n);  // highest first
    options($("fix-engine"), engines.map((e) => [e, `${e}-${e}`]), g.engine);
  }
  $("undo").disabled = !!$("undo").dataset.busy || (!snap.undo && g.phase !== "round-over");
  $("undo").textContent = snap.undoes
    ? t("fixes.undo_what", { what: undid(snap.undoes) }) : t("fixes.undo");
}

async function send(path, body, done) {
  const g = S.snap && S.snap.game;
  if (!g) return;
  const r = await api("POST", `/api/games/${g.id}${path}`, body, g.id);
  const moved = r.status === 409 && r.data.code === "undo_moved";  // the table moved on
  toast(r.ok ? done : moved ? t("fixes.undo_moved")
    : t("fixes.not_done", { reason: r.data.error }));
  if (r.ok) {
    for (const select of document.querySelectorAll("#fix-panel select")) {
      delete select.dataset.picked;
    }
  }
  logAgain = r.ok;  // and once more with the table it made (its log line may come after)
  renderLog();
}
let logAgain = false;
on("state", () => { if (logAgain) { logAgain = false; renderLog(); } });

async function renderLog() {
  const list = $("fix-log");
  if (!list) return;
  const r = await api("GET", "/api/log?limit=300");
  if (!r.ok) return;
  const lines = r.data.filter((e) => e.kind === "undo" || e.kind === "fix").slice(-5);
  list.replaceChildren(...lines.map((e) => el("li", { class: "fix-line" }, describe(e))));
}

// What an undo takes back (the snapshot's ``undoes``, an undo's ``undid``: an action
// as data, docs/api.md: {"kind": "tap", "slot": 3}), in the page's words.
const UNDID = {
  tap: "fixes.undid_tap",
  hold: "fixes.undid_hold",
  "long-hold": "fixes.undid_long_hold",
  "round-over": "fixes.undid_round_over",
};
function undid(what) {
  const where = what.slot === 0 ? t("fixes.centre") : t("fixes.where_slot", { slot: what.slot });
  if (what.kind === "marker") {
    return t(what.present ? "fixes.undid_marker_on" : "fixes.undid_marker_off", { where });
  }
  if (what.kind === "fix") return t(fixed(what), { where });
  if (what.kind === "round-over" && what.went_out) {
    return t("fixes.undid_went_out", { name: what.went_out });
  }
  return t(UNDID[what.kind] || "fixes.undid_action", { where });
}
function fixed(what) {
  if (what.fixed === "turn") return "fixes.undid_fix_turn";
  if (what.fixed === "public") {
    return what.public ? "fixes.undid_fix_public" : "fixes.undid_fix_private";
  }
  if (what.fixed === "double") {
    return what.slot == null ? "fixes.undid_fix_double_closed" : "fixes.undid_fix_double";
  }
  return "fixes.undid_fix";
}

function describe(e) {
  const when = formatDate(e.at, { timeStyle: "medium" }), by = byWords(e.by);
  if (e.kind === "undo") {
    return e.undid ? t("fixes.log_undo", { when, by, what: undid(e.undid) })
      : t("fixes.log_undo_nothing", { when, by });
  }
  const what = e.what === "turn" ? t("fixes.log_turn", { slot: e.slot })
    : e.what === "public" ? t(e.public ? "fixes.log_public" : "fixes.log_private", { slot: e.slot })
      : e.slot === null ? t("fixes.log_double_closed")
        : t("fixes.log_double", { slot: e.slot, count: e.covers_left, who: e.responsible });
  return t("fixes.log_fix", { when, by, what });
}

// --- the centre button of the virtual hub ------------------------------------------------
function centre(snap) {
  let box = $("centre");
  if (!box) {
    box = place("sim", "centre", "div");
    box.className = "row centre";
    // Held as long as the hub's own thresholds say (the snapshot's gestures: table.js).
    const presses = [
      ["tap", "fixes.centre_tap"], ["hold", "fixes.centre_hold"], ["long", "fixes.centre_undo"],
    ];
    for (const [kind, label] of presses) {
      const b = el("button", { type: "button", "data-centre": kind, "data-i18n": label }, t(label));
      b.addEventListener("click", async () => {
        const held = holdMs(kind, S.snap.gestures, true);
        const r = await api("POST", "/api/sim/centre/press", { hold_ms: held });
        if (!r.ok) toast(r.data.error);
      });
      box.append(b);
    }
  }
  box.hidden = !S.sim || snap.backend !== "sim";
}

function render(snap) {
  if (!snap) return;
  renderOneTile(snap);
  centre(snap);
  const g = snap.game, mine = g && keeper(g.id) && g.phase !== "finished";
  if (!mine) {
    if ($("fixes")) $("fixes").hidden = true;
    return;
  }
  const box = tools();
  box.hidden = false;
  fillTools(snap);
  if (snap.undo !== shownDepth) { shownDepth = snap.undo; renderLog(); }
  if (!g.playing && g.phase !== "round-over") box.hidden = true;
}

on("state", render);
on("view", () => render(S.snap));
on("sound", (sound) => {
  if (sound.name === "last_tile") toast(t("fixes.last_tile"));
  if (sound.name === "turn_back") toast(t("fixes.turn_back"));
  if (sound.name === "reminder") remind();
});
// The hub's reasons (a reminder's ``reason``, hub/core/news.py) in whole sentences.
const REMINDERS = {
  no_marker: "fixes.remind_no_marker",
  own_double: "fixes.remind_own_double",
  last_tile: "fixes.remind_last_tile",
  private: "fixes.remind_private",
  lifted: "fixes.remind_lifted",
  draw: "fixes.remind_draw",
};
async function remind() {  // say why: the reminder's reason is in the log
  const r = await api("GET", "/api/log?limit=20");
  const last = r.ok ? r.data.filter((e) => e.kind === "reminder").pop() : null;
  if (!last) return;
  const name = owner(S.snap, last.slot);
  toast(t(REMINDERS[last.reason] || "fixes.reminder", { name, why: last.why }));
}
document.addEventListener("change", (e) => {
  if (e.target && e.target.id === "sim-on") render(S.snap);
});
// A new language: the tools are built again in its words.
on("lang", () => {
  if ($("fixes")) $("fixes").remove();
  shownDepth = null;
  render(S.snap);
});
render(S.snap);  // loaded after the first snapshot: show that one now
