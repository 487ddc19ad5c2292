// The join view: the hub's address as a QR code, handing the scorekeeping over, and
// the hub's settings (volume, quiet mode, turn chime).
import { $, S, api, gameId, keeper, setToken, toast, tokenFor } from "./core.js";
import { renderHeader } from "./running.js";
import { clearErrors, clearOnFix, showError } from "./form.js";
import { t } from "./i18n.js";

export async function open() {
  const qr = $("join-qr");  // again after a failed load (the hub was away)
  if (!qr.getAttribute("src")) qr.src = "/join.svg";
  else if (qr.complete && !qr.naturalWidth) qr.src = `/join.svg?again=${Date.now()}`;
  const r = await api("GET", "/api/join");
  $("join-url").textContent = r.ok ? r.data.url : "";
  $("join-local").hidden = !(r.ok && r.data.local_only);  // bound to 127.0.0.1: say so
  $("join-local").textContent = r.ok && r.data.local_only ? t("a11y.join.local_only", { url: r.data.url }) : "";
  $("handover").hidden = !keeper();
  $("handover-qr").replaceChildren(); $("handover-url").textContent = "";
  loadSettings();
}
$("show-handover").addEventListener("click", async () => {
  const id = gameId(), r = await api("POST", "/api/join/handover", { game: id, token: tokenFor(id) });
  if (!r.ok) { $("handover-url").textContent = r.data.error; return; }
  $("handover-qr").innerHTML = r.data.svg.replace("<svg ", '<svg role="img" aria-label="QR code that hands over the scorekeeping" class="qr" ');
  $("handover-url").textContent = r.data.url;
  $("handover-qr").scrollIntoView({ block: "center" });  // the code to scan, in view
});
// The claim: the hub lights a slot; a hold there within the window grants a token.
$("claim").addEventListener("click", async () => {
  const r = await api("POST", "/api/claim", {}), note = $("claim-note");
  if (!r.ok) { note.textContent = r.data.error; return; }
  const { claim, slot } = r.data, until = Date.now() + r.data.seconds * 1000 + 3000;
  note.textContent = `Hold slot ${slot} on the hub for two seconds (it blinks white) within ${r.data.seconds} seconds.`;
  $("claim").disabled = true;
  while (Date.now() < until) {
    await new Promise((done) => setTimeout(done, 700));
    const s = await api("GET", `/api/claim/${encodeURIComponent(claim)}`);
    if (!s.ok || s.data.state === "expired") break;
    if (s.data.state !== "granted") continue;
    if (s.data.game) setToken(s.data.game, s.data.token);
    if (!s.data.game) trustedUntil = Date.now() + 10 * 60 * 1000;
    note.textContent = s.data.game ? `This phone keeps the score of game ${s.data.game} now.` : "The table trusts this phone for 10 minutes: change the settings or start a game.";
    loadSettings();
    $("claim").disabled = false; renderHeader(); $("handover").hidden = !keeper();
    return;
  }
  $("claim").disabled = false;
  note.textContent = "No press on the hub in time: ask again.";
});
$("forget").addEventListener("click", () => { setToken(gameId(), null); renderHeader(); open(); toast("This phone only views now"); });

// Who may change the settings: the running game's scorekeeper, or a phone the table
// trusts (a claim with no game, for 10 minutes). Others see them, not a Save refused.
let trustedUntil = 0;
async function loadSettings() {
  const r = await api("GET", "/api/settings"), form = $("settings");
  form.hidden = !r.ok;
  if (!r.ok) return;
  const g = S.snap && S.snap.game, may = (g ? keeper(g.id) : false) || Date.now() < trustedUntil;
  for (const el of form.elements) el.disabled = !may;
  $("s-who").textContent = may ? "" : "Only the scorekeeper's phone changes these. To change them from this phone, ask the hub above.";
  $("s-volume").value = r.data.volume; $("s-volume-out").textContent = Math.round(r.data.volume * 100) + "%";
  $("s-quiet").value = r.data.quiet; $("s-turn_chime").checked = !!r.data.turn_chime;
  const sound = r.data.sound;
  // In plain words; the system's own message stays for whoever fixes it (a tooltip).
  const off = sound && sound.available === false;
  $("s-sound").textContent = off ? "The hub's speaker is not working: no sound device answers. Check that a speaker is connected; the games go on without sound." : "";
  $("s-sound").title = off ? sound.reason || "" : "";
}
clearOnFix($("settings"));
$("s-volume").addEventListener("input", (e) => ($("s-volume-out").textContent = Math.round(e.target.value * 100) + "%"));
$("settings").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = $("settings");
  clearErrors(form);
  const body = { volume: +$("s-volume").value, quiet: $("s-quiet").value, turn_chime: $("s-turn_chime").checked };
  const g = S.snap && S.snap.game, r = await api("POST", "/api/settings", body, g ? g.id : null);
  if (r.ok) return toast("Settings saved");
  if (r.status === 401 || r.status === 403) $("e-settings").textContent = "Only the scorekeeper, or the table (ask the hub above), changes the settings.";
  else showError(form, r.data, "e-settings");
});
