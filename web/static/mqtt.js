// The MQTT indicator (an add-on): whether the hub reaches its broker, when MQTT is on.
import { S, on, place } from "./core.js";
import { t } from "./i18n.js";

function show(snap) {
  const m = snap && snap.mqtt;
  const el = place("v-table", "mqtt", "p");
  el.className = "status";
  el.hidden = !m || !m.enabled;
  if (el.hidden) return;
  el.dataset.connected = String(m.connected);
  el.textContent = m.connected ? t("mqtt.connected")
    : m.dropped ? t("mqtt.unreachable_dropped", { count: m.dropped }) : t("mqtt.unreachable");
}
on("state", show);
show(S.snap);  // loaded after the first snapshot: show that one now
