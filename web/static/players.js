// The players view: everyone this hub remembers (most recent first, in their colour),
// with links to each player's page, to two players head to head, to the season and the
// evening; and the privacy switches (remember_players, hide_stats: hub settings).
import { $, api, esc, gameId, toast } from "./core.js";
import { patch } from "./patch.js";
import { formatDate, formatNumber, t } from "./i18n.js";

export const dot = (p) => `<span class="dot s${p.colour ?? 0}" aria-hidden="true"></span>`;
export const percent = (rate) =>
  rate == null ? "–" : formatNumber(Math.round(rate * 100)) + " %";

export async function open() {
  const r = await api("GET", "/api/players");
  const title = esc(t("players.title"));
  if (!r.ok) {
    return patch($("v-players"), `<h2>${title}</h2><p class="err">${esc(r.data.error)}</p>`);
  }
  const people = r.data;
  let html = `<h2 id="h-players">${title}</h2>`;
  if (!people.length) {
    return patch($("v-players"), html + `<p class="note">${esc(t("players.none"))}</p>`);
  }
  html += '<div class="links">' +
    `<a class="btn" href="#/evening">${esc(t("players.evening.link"))}</a>` +
    `<a class="btn" href="#/season">${esc(t("players.season.link"))}</a></div>` +
    '<ul class="games">' + people.map(personItem).join("") + "</ul>";
  if (people.length > 1) {
    const options = people.map((p) => `<option value="${p.id}">${esc(p.name)}</option>`).join("");
    html += `<h3>${esc(t("players.versus.title"))}</h3><form id="versus-pick" class="pick">` +
      `<label>${esc(t("players.versus.one"))} <select id="vs-a">${options}</select></label>` +
      `<label>${esc(t("players.versus.other"))} <select id="vs-b">${options}</select></label>` +
      `<button type="submit">${esc(t("players.versus.show"))}</button></form>`;
  }
  patch($("v-players"), html + await privacy());
  if ($("vs-b") && people.length > 1) $("vs-b").value = String(people[1].id);
}

// One player: the colour, a link to the page, the games and wins (unless the hub hides
// them), when last seen.
function personItem(p) {
  let record = "";
  if (p.games != null) {
    const counts = { games: formatNumber(p.games), wins: formatNumber(p.wins), count: p.games };
    record = ` · ${esc(t("players.games_wins", counts))}`;
  }
  return `<li data-key="p${p.id}">${dot(p)}` +
    `<a href="#/player/${p.id}"><strong>${esc(p.name)}</strong></a>${record}` +
    `<br><small>${esc(t("players.last_seen", { date: formatDate(p.last_seen) }))}</small></li>`;
}

async function privacy() {
  const r = await api("GET", "/api/settings");
  if (!r.ok) return "";
  const box = (id, key, on) => `<label class="check"><input type="checkbox" id="${id}"` +
    `${on ? " checked" : ""}> ${esc(t(key))}</label>`;
  return `<form id="privacy"><h3>${esc(t("players.privacy.title"))}</h3>` +
    box("pr-remember", "players.privacy.remember", r.data.remember_players !== false) +
    box("pr-hide", "players.privacy.hide", !!r.data.hide_stats) +
    `<p class="note">${esc(t("players.privacy.hide_note"))}</p>` +
    `<button type="submit">${esc(t("players.privacy.save"))}</button>` +
    '<p class="err" id="e-privacy" role="status"></p></form>';
}

document.addEventListener("submit", async (e) => {
  if (e.target.id === "privacy") {
    e.preventDefault();
    const body = { remember_players: $("pr-remember").checked, hide_stats: $("pr-hide").checked };
    const r = await api("POST", "/api/settings", body, gameId());
    if (r.ok) toast(t("players.privacy.saved")); else $("e-privacy").textContent = r.data.error;
    return;
  }
  if (e.target.id !== "versus-pick") return;
  e.preventDefault();
  location.hash = `#/versus/${$("vs-a").value}-${$("vs-b").value}`;
});
