// The LED ring (an add-on): the ring's pixels drawn round the hub picture as the ring
// shows them now (state.ring: colours and effects, animated here with SVG <animate>,
// which the CSP allows), and whether the hub box is connected (state.serial).
import { S, esc, on, place } from "./core.js";
import { layers, renderTable } from "./table.js";
import { t } from "./i18n.js";

const R = 68, DOT = 4;  // just inside the rim, clear of the tracks and the engine
const ANIMATE = {
  breathe: '<animate attributeName="opacity" values=".25;1;.25" dur="2s"' +
    ' repeatCount="indefinite"/>',
  blink: '<animate attributeName="opacity" values="1;0" calcMode="discrete" dur="0.8s"' +
    ' repeatCount="indefinite"/>',
};

function chase(i, n) {
  const step = 0.06, begin = -((n - i) % n) * step;
  const times = `0;${1 / n};${2 / n};${3 / n};${4 / n};1`;
  return `<animate attributeName="opacity" values="1;.75;.5;.25;0;0" keyTimes="${times}"` +
    ` dur="${n * step}s" begin="${begin.toFixed(2)}s" repeatCount="indefinite"/>`;
}

// Slot 1's arc (n / slots pixels) is centred at the top, as on the hub; pixels go
// clockwise.
function pixelXY(i, n, slots) {
  const a = ((i - (n / slots - 1) / 2) * 2 * Math.PI) / n - Math.PI / 2;
  return [(R * Math.cos(a)).toFixed(1), (R * Math.sin(a)).toFixed(1)];
}

// With reduced motion the ring shows each LED steady: no SVG <animate> at all.
const still = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
// ``serial``: the snapshot's hub box link, when there is one (no box: no ring on it).
// Its ``connected`` is the one the hub box line says too: the snapshot says it once.
// ``slots``: the hub's (the snapshot's ``slots``).
export function ringSvg(ring, serial, slots) {
  if (!ring || !ring.pixels || !ring.pixels.length) return "";
  const n = ring.pixels.length, effects = ring.effects || [];
  const dots = ring.pixels.map((hex, i) => {
    const [x, y] = pixelXY(i, n, slots), off = hex === "000000", effect = effects[i];
    const motion = off || still() ? "" : effect === "chase" ? chase(i, n) : ANIMATE[effect] || "";
    return `<circle class="led${off ? " off" : ""}" data-led="${i}" data-colour="${hex}"` +
      ` data-effect="${effect || "steady"}" cx="${x}" cy="${y}" r="${DOT}"` +
      ` fill="${off ? "none" : "#" + hex}">${motion}</circle>`;
  }).join("");
  const connected = serial ? serial.connected : null;
  const where = connected === true ? "ring.on_box"
    : connected === false ? "ring.box_off" : "ring.no_box";
  return `<g class="leds" role="img" aria-label="${esc(t(where))}">${dots}</g>`;
}

function showLink(snap) {
  const serial = snap && snap.serial;
  const el = place("v-table", "hub-box", "p");
  el.className = "status";
  el.hidden = !serial;
  if (el.hidden) return;
  el.dataset.connected = String(serial.connected);
  el.textContent = t(serial.connected ? "ring.box_connected" : "ring.box_disconnected");
}

layers.push((snap) => ringSvg(snap.ring, snap.serial, snap.slots.length));
on("state", showLink);
showLink(S.snap);
renderTable();  // loaded after the first paint: draw the ring now
