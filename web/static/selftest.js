// The self-test view (#/selftest): the hub walks a person through every button, marker,
// light and sound, then shows a pass/fail table naming each part's pin. The hub runs it
// (POST /api/selftest); this view shows the step waiting and polls while it runs.
// Starting it needs the table's proof (a claim at the hub, on the join view: a game's
// token never does, it may be a stranger's own game's); the start reads every input's
// level first (a stuck one is named at once) and leaves the lights out when no hub box
// drives a ring.
import { S, api, esc, rest } from "./core.js";
import { formatNumber, t } from "./i18n.js";

let root = null, timer = null;
let shown = null;  // the number of the step the view shows: an answer names it
// A new step's answers rest a moment (core.js, rest), and every button while a request
// is out: the second tap of a double tap, landing just after the next step appeared,
// must not answer a light nobody has looked at yet. A person needs longer to look.
let busy = false;
const settling = rest(() => arm());
function arm() {
  for (const b of root.querySelectorAll("#st-buttons button")) {
    const a = b.dataset.action;
    b.disabled = busy || (settling.resting && a !== "start" && a !== "stop");
  }
}

// A step's part and what to do, in the page's language, from its kind and slot (the
// hub's own English "part" and "prompt" are the same words: tests/page/test_i18n_usage.py).
const PARTS = {
  button: "selftest.part.button",
  "marker-on": "selftest.part.marker_on",
  "marker-off": "selftest.part.marker_off",
  light: "selftest.part.light",
  sound: "selftest.part.sound",
};
const PROMPTS = {
  button: "selftest.prompt.button",
  "marker-on": "selftest.prompt.marker_on",
  "marker-off": "selftest.prompt.marker_off",
  light: "selftest.prompt.light",
  sound: "selftest.prompt.sound",
};
const centre = (s) => s.kind === "button" && s.slot === 0;
const voice = (s) => s.kind === "sound" && s.sound === "say";  // the voice's sentence
const partOf = (s) => (centre(s) ? t("selftest.part.centre")
  : voice(s) ? t("selftest.part.voice")
  : PARTS[s.kind] ? t(PARTS[s.kind], s) : s.part);
const promptOf = (s) => (centre(s) ? t("selftest.prompt.centre")
  : voice(s) ? t("selftest.prompt.voice")
  : PROMPTS[s.kind] ? t(PROMPTS[s.kind], s) : s.prompt);

// Where a part is wired (hub/selftest/walkthrough.py, Wiring: "BCM 4 (header pin 7)",
// "Pico GP2 (pin 4)", "pixels 1-3, …", "ALSA device 'default'") in the page's words;
// the names of pins and chips stay as printed on the boards.
const pinOf = (pin) => String(pin)
  .replace(/\(header pin (\d+)\)/, (_, n) => `(${t("selftest.wiring.header_pin", { n })})`)
  .replace(/\(pin (\d+)\)/, (_, n) => `(${t("selftest.wiring.pico_pin", { n })})`)
  .replace(/^pixels (\d+)-(\d+)/, (_, from, to) => t("selftest.wiring.pixels", { from, to }))
  .replace(/^ALSA device (.*)$/, (_, name) => t("selftest.wiring.alsa", { name }));

// How a step went, from its outcome (hub/selftest/walkthrough.py, OUTCOMES), with the
// other inputs that answered instead; the hub's English detail where it names none.
const strayOf = (s) => t(s.input === "sensor" ? "selftest.stray.sensor"
  : s.slot === 0 ? "selftest.stray.centre" : "selftest.stray.button", s);
function detailOf(r) {
  if (!r.outcome) return r.detail;
  const seconds = r.seconds == null ? "" : formatNumber(r.seconds);
  const said = t(`selftest.outcome.${r.outcome}`, { seconds });
  if (!(r.strays && r.strays.length)) return said;
  return t("selftest.instead", { detail: said, strays: r.strays.map(strayOf).join(", ") });
}
// The step waiting: its number of all, the part and its pin, and what to do.
const stepSaid = (test, s) => t("selftest.step",
  { number: s.number, steps: test.steps, part: partOf(s), pin: pinOf(s.pin), prompt: promptOf(s) });
// An input found stuck at the start: which, and its pin.
function stuckItem(s) {
  const key = s.kind !== "button" ? "selftest.stuck.marker"
    : s.slot === 0 ? "selftest.stuck.centre" : "selftest.stuck.button";
  return `<li data-slot="${s.slot}">${esc(t(key, { slot: s.slot, pin: pinOf(s.pin) }))}</li>`;
}
// A step done: the part, its pin, pass or fail, and how it went.
const resultRow = (r) => `<tr data-passed="${r.passed}"><td>${esc(partOf(r))}</td>` +
  `<td>${esc(pinOf(r.pin))}</td><td>${esc(t(r.passed ? "selftest.pass" : "selftest.fail"))}</td>` +
  `<td>${esc(detailOf(r))}</td></tr>`;
// One of the walk-through's buttons: its action, its words (data-i18n, for a new language).
const button = (action, key, cls = "btn") =>
  `<button type="button" class="${cls}" data-action="${action}" data-i18n="${key}">` +
  `${esc(t(key))}</button>`;

export function open(arg, section) {
  root = section;
  if (!root.dataset.built) build();
  refresh();
}

function build() {
  root.dataset.built = "1";
  const heading = esc(t("selftest.heading"));
  root.innerHTML = `<h2 id="h-selftest" data-i18n="selftest.heading">${heading}</h2>
<p class="note" data-i18n="selftest.about">${esc(t("selftest.about"))}</p>
<p id="st-step" class="status" aria-live="polite"></p>
<div class="links" id="st-buttons">
  ${button("start", "selftest.start", "btn primary")}
  ${button("yes", "selftest.yes", "btn primary")}
  ${button("no", "selftest.no")}
  ${button("skip", "selftest.skip")}
  ${button("stop", "selftest.stop")}
</div>
<p id="st-error" class="err" role="alert"></p>
<p id="st-claim" class="note" hidden></p>
<ul id="st-stuck" class="err"></ul>
<p id="st-lights" class="note" hidden></p>
<table class="results" id="st-results" aria-labelledby="h-selftest"></table>
<div id="st-wifi" hidden>${button("wifi", "join.wifi_show")}<div id="st-wifi-code"></div></div>`;
  root.querySelector("#st-wifi button").addEventListener("click", showWifi);
  root.querySelector("#st-buttons").addEventListener("click", async (e) => {
    const action = e.target.dataset && e.target.dataset.action;
    if (!action) return;
    // An answer or a skip is for the step on the screen: a double tap, or a tap on a
    // view a poll behind the hub, is refused (409) rather than answering the next step.
    if (busy) return;
    const bare = action === "start" || action === "stop" || shown == null;
    const body = bare ? { action } : { action, step: shown };
    busy = true;
    arm();
    let r;
    try {
      r = await api("POST", "/api/selftest", body);
    } finally {
      busy = false;
      arm();
    }
    const behind = r.status === 409 && r.data.code === "selftest_moved";  // the hub moved on
    root.querySelector("#st-error").textContent = r.ok || behind ? "" : r.data.error;
    const claim = root.querySelector("#st-claim");
    claim.hidden = r.ok || r.status !== 403;
    if (!claim.hidden) claim.innerHTML = `<a href="#/join">${esc(t("selftest.claim_first"))}</a>`;
    if (r.ok) show(r.data);
    if (r.ok || behind) refresh();
  });
}

async function refresh() {
  clearTimeout(timer);
  if (S.view !== "selftest") return;
  const r = await api("GET", "/api/selftest");
  if (r.ok) show(r.data);
  timer = setTimeout(refresh, r.ok && r.data.running ? 400 : 3000);
}

function show(test) {
  const step = test.step, running = test.running;
  const number = running && step ? step.number : null;
  if (number !== shown) {
    shown = number;
    settling.start();
  }
  const buttons = root.querySelectorAll("#st-buttons button");
  for (const b of buttons) {
    const a = b.dataset.action;
    const answer = a === "yes" || a === "no";
    b.hidden = a === "start" ? running : !running || (answer && !(step && step.answer));
  }
  arm();
  root.querySelector("#st-step").textContent = running && step ? stepSaid(test, step)
    : test.done ? t(test.passed ? "selftest.passed" : "selftest.failed")
    : test.results.length ? t("selftest.stopped") : "";
  root.querySelector("#st-stuck").innerHTML = (test.stuck || []).map(stuckItem).join("");
  root.querySelector("#st-lights").hidden = test.lights !== false || !(running || test.done);
  root.querySelector("#st-lights").textContent = t("selftest.no_ring");
  const rows = test.results.map(resultRow).join("");
  const head = [t("selftest.part"), t("selftest.pin"), t("selftest.result"), t("selftest.detail")]
    .map((word) => `<th>${esc(word)}</th>`).join("");
  root.querySelector("#st-results").innerHTML = test.results.length
    ? `<thead><tr>${head}</tr></thead><tbody>${rows}</tbody>` : "";
  root.querySelector("#st-wifi").hidden = !test.done;
}

// The end: the hub's own Wi-Fi code, to print for the box's lid (GET /api/wifi: the
// table's proof or the scorekeeper's; a hub without a hotspot says so).
async function showWifi() {
  const g = S.snap && S.snap.game, r = await api("GET", "/api/wifi", undefined, g ? g.id : null);
  const box = root.querySelector("#st-wifi-code");
  if (!r.ok) { box.textContent = r.data.error; return; }
  const named = `<svg role="img" aria-label="${esc(t("join.wifi_qr"))}" class="qr" `;
  box.innerHTML = `${r.data.svg.replace("<svg ", () => named)}
<p class="url">${esc(t("join.wifi_network", { ssid: r.data.ssid }))}</p>
<p><a href="/api/wifi/card.pdf">${esc(t("selftest.wifi_card"))}</a></p>`;
}
