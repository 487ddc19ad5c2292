// The new-game form, built from GET /api/rules (profiles, sets, options: the page keeps
// no rule data of its own): rules, players clockwise, their seats on a hub picture, who
// starts, the set, the rounds and the options. The deal line follows every change,
// worked out from the same data.
import { $, S, api, esc, gameId, place, setToken, toast } from "./core.js";
import { patch } from "./patch.js";
import { hubSvg, slotFromEvent } from "./table.js";
import { refresh } from "./running.js";
import { clearErrors, clearOnFix, showError } from "./form.js";
import { formatNumber, t } from "./i18n.js";

// rules: the /api/rules answer; players: [{name, slot}]; mex: the Mexican Train's slot;
// picking: the player index (or "mex") whose slot is chosen next.
const N = { rules: null, players: [], mex: null, picking: null };
// A profile's words are the catalog's, keyed by its id ("rules.<id>.name", ".about");
// the hub's default rules are the recommended ones.
const ruleName = (p) => t(`rules.${p.id}.name`);
const STARTERS = {
  rotate: "new.starter.rotate",
  "engine-holder": "new.starter.engine-holder",
  "engine-left": "new.starter.engine-left",
};

export async function open() {
  if (!N.rules) {
    const r = await api("GET", "/api/rules");
    if (!r.ok) {
      $("e-new").textContent = t("new.no_rules", { reason: r.data.error });
      return;
    }
    N.rules = r.data;
    $("new").querySelector("[type=submit]").disabled = false; // disabled until the rules came
  }
  if (!N.players.length) {
    N.players = [1, 2, 3, 4].map((slot) => ({ name: "", slot }));
    N.mex = 5; N.picking = null;
  }
  const g = S.snap && S.snap.game;
  $("new-running").hidden = !g || g.phase === "finished";
  $("new-running").textContent = g ? t("new.running", { game: g.id, round: g.round }) : "";
  renderRules(($("new").elements.rules && $("new").elements.rules.value) || N.rules.default_rules);
  render();
}

const profile = () => {
  const id = $("new").elements.rules.value || N.rules.default_rules;
  return N.rules.profiles.find((p) => p.id === id);
};
// A profile without a Mexican Train: no Mexican slot is shown, moved or sent.
const mexOn = () => profile().mexican_train !== false;
const mexAt = () => (mexOn() ? N.mex : null);
const row = (rows, n) => rows.find((r) => r.players[0] <= n && n <= r.players[1]);
function renderRules(chosen) {
  // Each profile by what it is, its one line under it (the hub's default: recommended).
  patch($("f-rules"), N.rules.profiles.map((p) => {
    const id = esc(p.id), about = t(`rules.${p.id}.about`);
    const said = p.id === N.rules.default_rules ? t("rules.recommended", { about }) : about;
    return `<label data-key="rules-${id}"><input type="radio" name="rules" value="${id}"` +
      `${p.id === chosen ? " checked" : ""} aria-describedby="about-${id}">` +
      ` ${esc(ruleName(p))}</label>` +
      `<p class="rule-about" id="about-${id}" data-key="about-${id}">${esc(said)}</p>`;
  }).join(""));
}

// Everything that depends on the rules or the number of players.
function render() {
  renderPlayers(); renderSeats(); renderSet(); renderOptions(); showDeal();
}
function renderPlayers() {
  const [fewest, most] = profile().players;
  patch($("f-players"), N.players.map((p, i) => playerRow(p, i, fewest)).join(""));
  $("f-players").setAttribute("aria-label", t("count.players", { count: N.players.length }));
  const slots = N.rules.slots;  // the hub's slots and the longest name: GET /api/rules
  const full = N.players.length >= Math.min(most, slots);
  $("add-player").disabled = full;
  // Greyed out with the reason beside it, never silently.
  place("v-new", "add-note", "p").className = "note";
  $("add-note").textContent = !full ? ""
    : most < slots ? t("new.rules_seat_most", { count: most })
    : t("new.hub_seats_most", { count: slots });
  $("add-player").after($("add-note"));
  renderFirst();
}
// A player's line: the seat button (press it, then a slot on the picture), the name, and
// a button to remove the player (not below the rules' fewest).
function playerRow(p, i, fewest) {
  const n = i + 1, slot = t("table.slot", { slot: p.slot });
  const seat = `${slot}: ${t("new.choose_slot", { n })}`;
  const locked = N.players.length <= fewest ? " disabled" : "";
  return `<li class="hand player-row" data-key="row${i}">` +
    `<button type="button" class="seat" data-seat="${i}" aria-pressed="${N.picking === i}"` +
    ` aria-label="${esc(seat)}">${esc(slot)}</button>` +
    `<input data-field="players players.${i}" data-name="${i}" value="${esc(p.name)}"` +
    ` maxlength="${N.rules.name_length}" autocomplete="off"` +
    ` aria-label="${esc(t("new.name_of", { n }))}" placeholder="${esc(t("new.player", { n }))}">` +
    `<button type="button" data-remove="${i}" aria-label="${esc(t("new.remove", { n }))}"` +
    `${locked}>✕</button></li>`;
}
function renderFirst() {
  const sel = $("f-first"), keep = sel.value;
  const chosen = keep && +keep < N.players.length ? keep : "";
  const auto = t(STARTERS[profile().starter] || "new.starter.rotate");
  patch(sel, `<option value="">${esc(auto)}</option>` + N.players.map((p, i) => {
    const name = p.name || t("new.player", { n: i + 1 });
    const first = esc(t("new.first_at", { name, slot: p.slot }));
    return `<option value="${i}"${String(i) === chosen ? " selected" : ""}>${first}</option>`;
  }).join(""));
}
function renderSet() {
  const sel = $("f-set"), keep = sel.value, usual = row(profile().default_set, N.players.length);
  const auto = usual ? t("new.set_usual_is", { set: usual.set }) : t("new.set_usual");
  patch(sel, `<option value="">${esc(auto)}</option>` + N.rules.sets.map((s) =>
    `<option value="${s}"${String(s) === keep ? " selected" : ""}>` +
    `${esc(t("new.set_double", { set: s }))}</option>`).join(""));
}
// Each option the hub offers: a checkbox for on/off, else a choice of its values;
// disabled when these rules or this many players do not allow it.
function renderOptions() {
  const box = $("f-options"), p = profile(), n = N.players.length, html = [];
  for (const [id, o] of Object.entries(N.rules.options)) {
    const off = !p.options.includes(id) || (o.players && !o.players.includes(n));
    const now = off ? o.default : optionValue(id, o);
    const dis = off ? " disabled" : "";
    if (o.values.length === 2 && o.values.includes(false) && o.values.includes(true)) {
      html.push(`<label class="check" data-key="o-${id}"><input type="checkbox" id="f-${id}"` +
        ` name="${id}" data-field="options.${id}"${now ? " checked" : ""}${dis}>` +
        ` ${esc(t(`option.${id}`))}</label>`);
    } else {
      const shown = (v) => esc(typeof v === "number" ? formatNumber(v) : v);
      const choice = (v) => `<label><input type="radio" name="${id}" value="${esc(v)}"` +
        `${v === now ? " checked" : ""}${dis}> ${shown(v)}</label>`;
      html.push(`<p class="label" id="l-${id}">${esc(t(`option.${id}`))}</p>` +
        `<div class="seg" id="f-${id}" data-key="o-${id}" data-field="options.${id}"` +
        ` role="radiogroup" aria-labelledby="l-${id}">` + o.values.map(choice).join("") + "</div>");
    }
    html.push(`<p class="err" id="e-options.${id}" data-errors="options.${id}"></p>`);
  }
  patch(box, html.join(""));
}
function optionValue(id, o) {
  const el = $("new").elements[id];
  if (!el) return o.default;
  if (el.type === "checkbox") return el.checked;
  const v = el.value;  // a RadioNodeList's checked value
  return v === "" ? o.default : o.values.find((x) => String(x) === v) ?? o.default;
}
function showDeal() {
  const p = profile(), n = N.players.length, box = $("deal"), usual = row(p.default_set, n);
  const set = $("f-set").value ? +$("f-set").value : usual ? usual.set : null;
  // The profile's deal for this set where the seed gives one (the tournament rules on
  // double-6 and -9).
  const bySet = set != null && p.tiles_by_set ? p.tiles_by_set[String(set)] : null;
  const each = row(bySet || p.tiles_each, n);
  const rounds = set == null ? null
    : p.rounds && p.rounds.default != null ? p.rounds.default : set + 1;
  const left = set == null || !each ? 0 : ((set + 1) * (set + 2)) / 2 - n * each.tiles;
  $("f-rounds").placeholder = rounds ?? t("new.rounds_all");
  if (set != null) $("f-rounds").max = p.rounds && p.rounds.max != null ? p.rounds.max : set + 1;
  box.className = each && left > 0 ? "ok" : "err";
  const rules = ruleName(p);
  box.textContent = !each && bySet ? t("new.deal_none_on_set", { rules, count: n, set })
    : !each ? t("new.deal_not_for", { rules, count: n, fewest: p.players[0], most: p.players[1] })
    : set == null ? t("new.deal_choose_set")
    : left <= 0 ? t("new.deal_too_small", { set, count: n, tiles: each.tiles })
    : t("new.deal", { tiles: each.tiles, left, set, rounds });
}

function renderSeats() {
  const slots = [], mex = mexAt();
  $("seat-mex").hidden = $("no-mex").hidden = !mexOn();
  if (!mexOn() && N.picking === "mex") N.picking = null;
  for (let n = 1; n <= N.rules.slots; n++) {
    const i = N.players.findIndex((p) => p.slot === n), p = N.players[i];
    const cls = [p ? "player" : n === mex ? "mexican" : "empty", "tappable"];
    if ((p && N.picking === i) || (n === mex && N.picking === "mex")) cls.push("turn");
    const name = p ? p.name || t("new.player", { n: i + 1 })
      : n === mex ? t("table.mexican") : t("new.free");
    const tags = p ? [] : n === mex ? [t("table.tag.train")] : [];
    // Named by the words it shows, in their order (WCAG's label in name), in any language.
    const label = [t("table.slot", { slot: n }), name, ...tags].join(" ");
    slots.push({ slot: n, cls, name, tags, button: true, label });
  }
  const centre = `<text class="center-note">${esc(t("new.centre_1"))}</text>` +
    `<text class="center-note" y="18">${esc(t("new.centre_2"))}</text>`;
  patch($("seat-hub"), hubSvg(slots, centre));
  $("mex-slot").textContent = mex ? t("table.slot", { slot: mex }) : t("new.mex_none");
  $("seat-mex").setAttribute("aria-pressed", N.picking === "mex");
  const who = N.picking === "mex" ? t("table.the_mexican")
    : N.picking != null ? N.players[N.picking].name || t("new.player", { n: N.picking + 1 })
    : null;
  $("seat-help").textContent = who ? t("new.seat_now", { name: who }) : t("new.seat_help");
}
function seatAt(n) {
  const i = N.players.findIndex((p) => p.slot === n);
  if (N.picking == null) {
    if (i >= 0) N.picking = i;
    else if (n === mexAt()) N.picking = "mex";
  } else if (N.picking === "mex") {
    if (i >= 0) N.players[i].slot = N.mex || firstFree();
    N.mex = n; N.picking = null;
  } else {
    const me = N.players[N.picking], old = me.slot;
    if (i >= 0) N.players[i].slot = old; else if (n === N.mex) N.mex = old;
    me.slot = n; N.picking = null;
    clockwise();
  }
  renderPlayers(); renderSeats();
}
// The list is the order of play: clockwise round the hub, from slot 1.
function clockwise() { N.players.sort((a, b) => a.slot - b.slot); }
function firstFree() {
  for (let n = 1; n <= N.rules.slots; n++) {
    if (n !== N.mex && !N.players.some((p) => p.slot === n)) return n;
  }
  return null;
}
$("seat-hub").addEventListener("click", (e) => {
  const n = slotFromEvent(e);
  if (n) seatAt(n);
});
$("seat-hub").addEventListener("keydown", (e) => {
  if ((e.key === "Enter" || e.key === " ") && slotFromEvent(e)) {
    e.preventDefault();
    seatAt(slotFromEvent(e));
  }
});
$("seat-mex").addEventListener("click", () => {
  N.picking = N.picking === "mex" ? null : "mex";
  renderSeats();
});
$("no-mex").addEventListener("click", () => { N.mex = null; N.picking = null; renderSeats(); });
$("add-player").addEventListener("click", () => {
  if (!N.rules) return; // the rules have not come yet (the button starts disabled)
  let slot = firstFree();
  if (slot == null) { slot = N.mex; N.mex = null; N.mexTaken = true; }  // an 8th player
  const added = { name: "", slot };
  N.players.push(added);
  clockwise();
  render();
  $("f-players").querySelector(`input[data-name="${N.players.indexOf(added)}"]`).focus();
});
$("f-players").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  if (b.dataset.remove) {
    N.players.splice(+b.dataset.remove, 1); N.picking = null;
    if (N.mex == null && N.mexTaken) {  // the train gets its slot back
      N.mex = firstFree();
      N.mexTaken = false;
    }
    render(); return;
  }
  const i = +b.dataset.seat;
  N.picking = N.picking === i ? null : i;
  renderPlayers(); renderSeats();
});
$("f-players").addEventListener("input", (e) => {
  const i = e.target.dataset.name;
  if (i != null) { N.players[+i].name = e.target.value; renderSeats(); renderFirst(); }
});
clearOnFix($("new"));
$("new").addEventListener("change", (e) => {
  if (e.target.name === "rules") render();
  else if (e.target.id === "f-set") showDeal();
});
function newGameBody() {
  const body = {
    players: N.players.map((p) => p.name.trim()),
    rules: profile().id,
    seats: N.players.map((p) => p.slot),
    mexican_slot: mexAt(),
  };
  const first = $("f-first").value, set = $("f-set").value, rounds = $("f-rounds").value.trim();
  if (first !== "") body.first = N.players[+first].slot;
  if (set) body.set = +set;
  if (rounds) body.rounds = /^\d+$/.test(rounds) ? +rounds : rounds;
  body.options = {};
  for (const [id, o] of Object.entries(N.rules.options)) {
    const el = $("new").elements[id], v = optionValue(id, o);
    const disabled = el && (el.disabled ?? [...el].every((x) => x.disabled));
    if (el && !disabled && v !== o.default) body.options[id] = v;
  }
  return body;
}
$("new").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!N.rules) return;
  const form = $("new");
  clearErrors(form);
  const body = newGameBody(), empty = body.players.findIndex((p) => !p);
  if (empty >= 0) {
    const error = t("new.no_name", { n: empty + 1 });
    return showError(form, { field: `players.${empty}`, error }, "e-new");
  }
  if (typeof body.rounds === "string") {
    const error = t("new.rounds_not_whole", { value: body.rounds });
    return showError(form, { field: "rounds", error }, "e-new");
  }
  const submit = form.querySelector("[type=submit]");
  submit.disabled = true;
  const r = await api("POST", "/api/games", body, gameId()); // over a game: its token
  submit.disabled = false;
  if (!r.ok) return showError(form, r.data, "e-new");
  setToken(r.data.id, r.data.token);
  N.players = [];
  toast(t("new.started", { game: r.data.id }));
  location.hash = "#/table";
  refresh();
});

