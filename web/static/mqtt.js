// The MQTT indicator (an add-on): whether the hub reaches its broker, when MQTT is on.
import { S, on, place } from "./core.js";

function show(snap) {
  const m = snap && snap.mqtt;
  const el = place("v-table", "mqtt", "p");
  el.className = "status";
  el.hidden = !m || !m.enabled;
  if (el.hidden) return;
  el.dataset.connected = String(m.connected);
  el.textContent = m.connected ? "MQTT broker: connected"
    : `MQTT broker: not reachable; the game goes on${m.dropped ? ` (${m.dropped} updates dropped)` : ""}`;
}
on("state", show);
show(S.snap);  // loaded after the first snapshot: show that one now
