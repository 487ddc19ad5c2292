// The join view: the hub's address as a QR code, handing the scorekeeping over, and
// the hub's settings (volume, quiet mode, turn chime, the voice).
import { $, S, api, emit, esc, gameId, keeper, setToken, toast, tokenFor } from "./core.js";
import { LANGUAGES, formatNumber, language, names, saved, setLanguage, t } from "./i18n.js";
import { renderHeader } from "./running.js";
import { clearErrors, clearOnFix, showError } from "./form.js";

export async function open() {
  const qr = $("join-qr");  // again after a failed load (the hub was away)
  if (!qr.getAttribute("src")) qr.src = "/join.svg";
  else if (qr.complete && !qr.naturalWidth) qr.src = `/join.svg?again=${Date.now()}`;
  const r = await api("GET", "/api/join");
  $("join-url").textContent = r.ok ? r.data.url : "";
  const local = r.ok && r.data.local_only;  // bound to 127.0.0.1: say so
  $("join-local").hidden = !local;
  $("join-local").textContent = local ? t("a11y.join.local_only", { url: r.data.url }) : "";
  $("handover").hidden = !keeper();
  $("handover-qr").replaceChildren(); $("handover-url").textContent = "";
  showWifi();
  showLanguage();
  loadSettings();
}

// The page's language, saved on this phone: "" follows the phone's own setting. Each
// language is offered in its own words (its catalog's "language.name").
async function showLanguage() {
  const select = $("language"), own = await names().catch(() => ({}));
  // One option for each language the hub has (i18n.js, LANGUAGES), in its own words.
  for (const lang of LANGUAGES) {
    const option = [...select.options].find((o) => o.value === lang)
      || select.appendChild(new Option(lang, lang));
    option.lang = lang;
    option.textContent = own[lang] || lang;
  }
  select.value = saved();
}
$("language").addEventListener("change", async (e) => {
  await setLanguage(e.target.value);
  emit("lang", language());
  $("language").focus();
});
$("show-handover").addEventListener("click", async () => {
  const id = gameId();
  const r = await api("POST", "/api/join/handover", { game: id, token: tokenFor(id) });
  if (!r.ok) { $("handover-url").textContent = r.data.error; return; }
  const named = `<svg role="img" aria-label="${esc(t("join.handover_qr"))}" class="qr" `;
  $("handover-qr").innerHTML = r.data.svg.replace("<svg ", () => named);  // no $-patterns
  $("handover-url").textContent = r.data.url;
  $("handover-qr").scrollIntoView({ block: "center" });  // the code to scan, in view
});
// The hub's own Wi-Fi: its code and passphrase for the scorekeeper or a phone the
// table trusts (the passphrase is a secret: shown on a press, never to a viewer).
function showWifi() {
  const g = S.snap && S.snap.game;
  $("wifi").hidden = !((g ? keeper(g.id) : false) || Date.now() < trustedUntil);
  $("wifi-qr").replaceChildren(); $("wifi-words").textContent = "";
  $("wifi-cards").hidden = true;
}
$("show-wifi").addEventListener("click", async () => {
  const g = S.snap && S.snap.game, r = await api("GET", "/api/wifi", undefined, g ? g.id : null);
  if (!r.ok) { $("wifi-words").textContent = r.data.error; return; }
  const named = `<svg role="img" aria-label="${esc(t("join.wifi_qr"))}" class="qr" `;
  $("wifi-qr").innerHTML = r.data.svg.replace("<svg ", () => named);  // no $-patterns
  $("wifi-words").textContent = `${t("join.wifi_network", { ssid: r.data.ssid })} · `
    + t("join.wifi_passphrase", { passphrase: r.data.passphrase });
  $("wifi-cards").hidden = false;
  $("wifi-qr").scrollIntoView({ block: "center" });
});
// The claim: the hub lights a slot; that slot and the centre held together within the
// window (the table's chord) grant a token.
$("claim").addEventListener("click", async () => {
  const r = await api("POST", "/api/claim", {}), note = $("claim-note");
  if (!r.ok) { note.textContent = r.data.error; return; }
  const { claim, slot } = r.data, until = Date.now() + r.data.seconds * 1000 + 3000;
  note.textContent = t("join.claim_hold", { slot, count: r.data.seconds });
  $("claim").disabled = true;
  while (Date.now() < until) {
    await new Promise((done) => setTimeout(done, 700));
    const s = await api("GET", `/api/claim/${encodeURIComponent(claim)}`);
    if (!s.ok || s.data.state === "expired") break;
    if (s.data.state !== "granted") continue;
    if (s.data.game) setToken(s.data.game, s.data.token);
    if (!s.data.game) trustedUntil = Date.now() + 10 * 60 * 1000;
    note.textContent = s.data.game ? t("join.claim_game", { game: s.data.game })
      : t("join.claim_table", { count: 10 });
    loadSettings(); showWifi();
    $("claim").disabled = false; renderHeader(); $("handover").hidden = !keeper();
    return;
  }
  $("claim").disabled = false;
  note.textContent = t("join.claim_late");
});
$("forget").addEventListener("click", () => {
  setToken(gameId(), null);
  renderHeader();
  open();
  toast(t("join.viewer_now"));
});

// Who may change the settings: the running game's scorekeeper, or a phone the table
// trusts (a claim with no game, for 10 minutes). Others see them, not a Save refused.
let trustedUntil = 0;
async function loadSettings() {
  const r = await api("GET", "/api/settings"), form = $("settings");
  form.hidden = !r.ok;
  if (!r.ok) return;
  const g = S.snap && S.snap.game, may = (g ? keeper(g.id) : false) || Date.now() < trustedUntil;
  for (const el of form.elements) el.disabled = !may;
  $("s-who").textContent = may ? "" : t("settings.who");
  // Each menu offers what the hub allows (GET /api/settings, `choices`), in words.
  const choices = r.data.choices || {};
  menu($("s-quiet"), choices.quiet, (v) => t(`settings.quiet_mode.${v}`));
  menu($("s-voice"), choices.voice, (v) => t(`settings.voice.${v}`));
  menu($("s-voice_language"), choices.voice_language, (v) => t(`settings.voice.lang_${v}`));
  $("s-volume").value = r.data.volume; $("s-volume-out").textContent = percent(r.data.volume);
  $("s-quiet").value = r.data.quiet; $("s-turn_chime").checked = !!r.data.turn_chime;
  showVoice(r.data, may);
  const sound = r.data.sound;
  // In plain words, in the page's language; the system's own message is for whoever
  // fixes it: GET /api/settings (sound.reason) and the hub's log say it.
  const off = sound && sound.available === false;
  $("s-sound").textContent = off ? t("settings.no_sound") : "";
}
function menu(select, values, words) {
  select.replaceChildren(...(values || []).map((value) => {
    const option = document.createElement("option");
    option.value = value; option.textContent = words(value);
    return option;
  }));
}
// The voice: what it says, its language, and how it says this game's names (a
// spelling for a name the engine gets wrong; empty: the name as written).
let spellings = {};
function showVoice(data, may) {
  $("s-voice-label").textContent = t("settings.voice.label");
  $("s-voice_language-label").textContent = t("settings.voice.language");
  $("s-voice").value = data.voice; $("s-voice_language").value = data.voice_language;
  spellings = { ...(data.spoken_names || {}) };
  const slots = (S.snap && S.snap.slots) || [];
  const names = slots.map((s) => s.owner).filter((o) => o && o !== "mexican");
  const box = $("s-spell");
  box.hidden = !names.length;
  $("s-spell-note").textContent = t("settings.voice.spell_note");
  box.replaceChildren($("s-spell-note"));
  for (const name of names) {
    const label = document.createElement("label"), input = document.createElement("input");
    label.textContent = t("settings.voice.spell", { name });
    input.dataset.name = name; input.placeholder = name; input.maxLength = 60;
    input.value = spellings[name] || ""; input.disabled = !may;
    label.append(input); box.append(label);
  }
}
function spokenNames() {
  const names = { ...spellings };
  for (const input of $("s-spell").querySelectorAll("input")) {
    const v = input.value.trim();
    if (v && v !== input.dataset.name) names[input.dataset.name] = v;
    else delete names[input.dataset.name];
  }
  return names;
}
const percent = (v) => formatNumber(Math.round(v * 100) / 100, { style: "percent" });
$("s-volume").addEventListener("input", (e) =>
  ($("s-volume-out").textContent = percent(e.target.value)));
clearOnFix($("settings"));
$("settings").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = $("settings");
  clearErrors(form);
  const body = {
    volume: +$("s-volume").value,
    quiet: $("s-quiet").value,
    turn_chime: $("s-turn_chime").checked,
    voice: $("s-voice").value,
    voice_language: $("s-voice_language").value,
    spoken_names: spokenNames(),
  };
  const g = S.snap && S.snap.game, r = await api("POST", "/api/settings", body, g ? g.id : null);
  if (r.ok) return toast(t("settings.saved"));
  if (r.status === 401 || r.status === 403) $("e-settings").textContent = t("settings.refused");
  else showError(form, r.data, "e-settings");
});
