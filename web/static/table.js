// The table view: the hub as an SVG picture, patched in place on every snapshot (a slot
// that has focus keeps it), and the virtual hub of the sim backend, a <dialog>.
import { $, S, api, esc, keeper, newState, on, short, toast } from "./core.js";
import { patch } from "./patch.js";
import { t } from "./i18n.js";

// Add-ons draw into the picture: each layer is (snap) => SVG markup, drawn over the rim
// and under the slots (e.g. the LED ring's pixels). Push one from a module.
export const layers = [];

const RIM = 146;
function slotXY(n) {
  const a = ((n - 1) * Math.PI) / 4 - Math.PI / 2;
  return [Math.round(RIM * Math.cos(a)), Math.round(RIM * Math.sin(a))];
}

// A long name is squeezed to the disc's width: it never spills out of its circle.
const fit = (name) =>
  name.length > 7 ? ' textLength="82" lengthAdjust="spacingAndGlyphs"' : "";
function slotSvg(s) {
  const [x, y] = slotXY(s.slot);
  const role = s.button ? 'role="button" tabindex="0"' : 'role="img"';
  const tags = s.tags.slice(0, 2)
    .map((t, i) => ` <text class="tag" y="${14 + i * 17}">${esc(t)}</text>`).join("");
  const name = short(s.name, 10);
  return `<g class="slot ${s.cls.join(" ")}" data-slot="${s.slot}" data-key="slot${s.slot}"` +
    ` transform="translate(${x},${y})" ${role} aria-label="${esc(s.label)}">` +
    '<circle class="ring" r="53"/><circle class="ring2" r="50"/><circle class="disc" r="45"/>' +
    `<text class="num" y="-29">${s.slot}</text>` +
    ` <text class="name" y="-9"${fit(name)}>${esc(name)}</text>${tags}` +
    (s.marker ? '<g class="marker"><rect x="-13" y="35" width="26" height="8" rx="2"/></g>' : "") +
    (s.badge ? ' <g class="badge"><circle cx="34" cy="-34" r="13"/>' +
      `<text x="34" y="-34">${esc(s.badge)}</text></g>` : "") +
    "</g>";
}

// slots: [{slot, cls, name, tags, label, badge, marker, button}]; centre and extra: SVG.
export function hubSvg(slots, centre, extra = "") {
  const parts = ['<circle class="rim" r="78"/>', extra];
  for (const s of slots) {
    const [x, y] = slotXY(s.slot);
    const cls = s.cls.includes("public") ? "track public" : "track";
    parts.push(
      `<line class="${cls}" x1="${x * 0.55}" y1="${y * 0.55}" x2="${x * 0.7}" y2="${y * 0.7}"/>`,
    );
  }
  parts.push(`<g class="centre">${centre}</g>`, ...slots.map(slotSvg));
  return parts.join("");
}

export function slotFromEvent(e) {
  const g = e.target.closest && e.target.closest(".slot");
  return g ? +g.dataset.slot : 0;
}

function engineSvg(engine, above, below) {
  return '<g class="engine"><rect x="-46" y="-22" width="92" height="44" rx="8"/>' +
    '<line x1="0" y1="-16" x2="0" y2="16"/>' +
    `<text x="-23">${engine}</text><text x="23">${engine}</text></g>` +
    `<text class="center-note" y="-38">${esc(above)}</text>` +
    `<text class="center-note" y="38">${esc(below)}</text>`;
}
// The picture's centre: the engine, the round above it and the phase below; or a note.
function centreSvg(g) {
  if (!g) return `<text class="center-note">${esc(t("table.no_game_yet"))}</text>`;
  const round = t("table.centre_round", { round: g.round, rounds: g.rounds });
  return engineSvg(g.engine, round, t(`phase.${g.phase}`));
}
export const nameOf = (snap, slot) => {
  const s = snap.slots.find((x) => x.slot === slot);
  if (!s || !s.owner) return t("table.slot", { slot });
  return s.owner === "mexican" ? t("table.the_mexican") : s.owner;
};
const doublesOf = (snap) => snap.doubles || (snap.double ? [snap.double] : []);

function tableSlot(snap, s, doubles) {
  const cls = [], tags = [], said = [];
  const mex = s.owner === "mexican";
  cls.push(mex ? "mexican" : s.owner ? "player" : "empty");
  if (s.public) {
    cls.push("public");
    if (!mex) tags.push(t("table.tag.open"));
    said.push(t("table.said.open"));
  }
  if (mex) tags.push(t("table.tag.train"));
  if (s.marker) said.push(t("table.said.marker"));
  if (snap.turn === s.slot) {
    cls.push("turn");
    tags.unshift(t("table.tag.turn"));
    said.push(t("table.said.turn"));
  }
  const open = doubles.find((d) => d.slot === s.slot);
  if (open) { cls.push("double"); said.push(t("table.said.double", { count: open.covers_left })); }
  const owes = doubles.find((d) => d.responsible === s.slot && !d.queued);
  if (owes) {
    cls.push("cover");
    tags.splice(snap.turn === s.slot ? 1 : 0, 0, t("table.tag.cover"));
    said.push(t("table.said.cover", { name: nameOf(snap, owes.slot) }));
  }
  const sim = S.sim && snap.backend === "sim";
  if (sim) cls.push("tappable");
  if (S.sheet === s.slot) cls.push("selected");
  const name = mex ? t("table.mexican") : s.owner || t("table.empty");
  const who = mex ? t("table.the_mexican") : s.owner || t("table.empty");
  const badge = open ? String(open.covers_left) : "";
  let label = said.length
    ? t("table.slot_label_more", { slot: s.slot, who, more: said.join(t("table.list_sep")) })
    : t("table.slot_label", { slot: s.slot, who });
  // A slot one can press is named by the words it shows first (WCAG's label in name),
  // then what they stand for.
  if (sim) {
    const more = s.owner && !mex && short(name, 10) !== name ? [name, ...said] : said;
    const shown = [t("table.slot", { slot: s.slot }), short(name, 10), ...tags.slice(0, 2), badge]
      .filter(Boolean).join(" ");
    label = more.length ? `${shown}: ${more.join(t("table.list_sep"))}` : shown;
  }
  return { slot: s.slot, cls, name, tags, label, marker: s.marker, badge, button: sim };
}

export function renderTable() {
  const snap = S.snap;
  if (!snap) return;
  const g = snap.game, svg = $("hub"), doubles = doublesOf(snap);
  const extra = layers.map((layer) => layer(snap)).join("");
  patch(svg, hubSvg(snap.slots.map((s) => tableSlot(snap, s, doubles)), centreSvg(g), extra));
  svg.dataset.turn = snap.turn ?? "";
  svg.dataset.doubles = doubles.map((d) => `${d.slot}:${d.responsible}`).join(",");
  svg.dataset.public = snap.slots.filter((s) => s.public).map((s) => s.slot).join(",");
  patch($("status"), statusLine(snap));
  $("double-note").textContent = doubles.map((d) => {
    const who = nameOf(snap, d.responsible);
    const params = { train: nameOf(snap, d.slot), who, count: d.covers_left };
    const many = d.covers_left > 1;
    if (d.queued) return t("table.double_queued", params);  // doubled doubles: next in line
    const key = d.waiting ? (many ? "table.double_waits_many" : "table.double_waits")
      : many ? "table.double_covers_many" : "table.double_covers";
    return t(key, params);
  }).join(" · ");
  const over = g && g.phase === "round-over", done = !g || g.phase === "finished";
  $("go-round").hidden = !(over && keeper());
  $("go-round").textContent = t("table.enter_scores", { round: g ? g.round : "" });
  $("go-new").hidden = !done;
  $("sim").hidden = snap.backend !== "sim";
  if (S.sheet) renderSheet();
}

function statusLine(snap) {
  const g = snap.game;
  if (!g) return esc(t("table.no_game"));
  const head = esc(t("table.head", { round: g.round, rounds: g.rounds, engine: g.engine }));
  if (g.phase === "finished") {
    const done = S.game && S.game.id === g.id ? S.game : null;
    const tied = done && done.winners && done.winners.length;
    const won = done && (done.winner ? t("table.won", { name: done.winner })
      : tied ? t("table.tied", { names: done.winners.join(", ") }) : "");
    const over = esc(t("app.header_over", { game: g.id }));
    return won ? `${over}: <strong class="big">${esc(won)}</strong>` : over;
  }
  if (g.phase === "round-over") {
    const who = snap.went_out
      ? t("table.went_out", { name: snap.went_out }) : t("table.round_over");
    const next = t(keeper() ? "table.enter_now" : "table.keeper_enters");
    return `${head} · <strong>${esc(who)}</strong>: ${esc(next)}`;
  }
  if (snap.turn == null) return `${head} · ${esc(t("table.place_engine", { engine: g.engine }))}`;
  const first = g.phase === "first-turn" ? ` · ${esc(t("table.first_turns"))}` : "";
  const turn = t("table.turn", { name: nameOf(snap, snap.turn) });
  return `${head}${first} · <strong>${esc(turn)}</strong>`;
}

// --- the virtual hub (sim backend): a non-modal <dialog> over the tabs -----------------
// Non-modal so the picture stays live and another slot can be tapped; focus moves to
// its first button, Escape closes it, and focus goes back to the slot that opened it.
const sheet = $("sheet");
let opener = null;
$("sim-on").addEventListener("change", (e) => {
  S.sim = e.target.checked;
  if (!S.sim) closeSheet();
  renderTable();
});
$("hub").addEventListener("click", (e) => {
  const n = slotFromEvent(e);
  if (n && S.sim) openSheet(n, e.target.closest(".slot"));
});
$("hub").addEventListener("keydown", (e) => {
  if ((e.key === "Enter" || e.key === " ") && slotFromEvent(e) && S.sim) {
    e.preventDefault();
    openSheet(slotFromEvent(e), e.target.closest(".slot"));
  }
});
function openSheet(n, from) {
  S.sheet = n; opener = from;
  renderTable();
  if (!sheet.open) sheet.show();
  document.body.classList.add("sheet-open");
  sheet.querySelector("[data-press]").focus();
}
export function closeSheet() { if (sheet.open) sheet.close(); }
sheet.addEventListener("close", () => {
  S.sheet = null;
  document.body.classList.remove("sheet-open");
  renderTable();
  if (opener && opener.isConnected && S.view === "table") opener.focus();
  opener = null;
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && sheet.open) {
    e.preventDefault();
    closeSheet();
  }
});
$("sheet-close").addEventListener("click", closeSheet);
function renderSheet() {
  const s = S.snap.slots.find((x) => x.slot === S.sheet);
  $("sheet-title").textContent =
    t("sheet.title", { slot: S.sheet, name: nameOf(S.snap, S.sheet) });
  $("sheet-marker").textContent = t(s.marker ? "sheet.marker_off" : "sheet.marker_on");
  // A claim lit here: the table's chord (this slot and the centre held together).
  $("sheet-chord").hidden = !(S.snap.claims || []).some((c) => c.slot === S.sheet);
}
async function simAct(path, body, button) {
  const buttons = sheet.querySelectorAll("button");
  buttons.forEach((b) => (b.disabled = true));
  const label = button.textContent;
  if (body.hold_ms) button.textContent = t("sheet.holding");
  const r = await api("POST", `/api/sim/slots/${S.sheet}/${path}`, body);
  button.textContent = label;
  buttons.forEach((b) => (b.disabled = false));
  if (!r.ok) return toast(r.data.error);
  newState(r.data);
  if (sheet.open && !sheet.contains(document.activeElement)) button.focus();
}
sheet.addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b || b.id === "sheet-close") return;
  if (b.id === "sheet-marker") {
    const s = S.snap.slots.find((x) => x.slot === S.sheet);
    simAct("marker", { present: !s.marker }, b);
  } else if (b.dataset.press === "chord") {
    simAct("press", { hold_ms: holdMs("hold", S.snap.gestures), centre: true }, b);
  } else simAct("press", { hold_ms: holdMs(b.dataset.press, S.snap.gestures) }, b);
});
// How long the virtual hand holds, from the hub's own thresholds (the snapshot's
// `gestures`): a double's hold sits well inside the hold band, the long hold past it
// (the centre button's own long hold, `centre`, undoes).
export function holdMs(kind, g, centre = false) {
  if (kind === "tap") return 0;
  if (kind === "long") return (centre ? g.centre_long_hold_ms : g.long_hold_ms) + 300;
  return Math.min(g.tap_max_ms + 500, Math.round((g.tap_max_ms + g.long_hold_ms) / 2));
}

on("state", renderTable);
on("view", (view) => { if (view !== "table") closeSheet(); });
