// The players' add-on. At a new game, the players this hub remembers: a row of names
// (most recent first, each in its colour); a tap puts the name in the first empty name
// field (newgame.js hears it as typing). After a finished game, the scores view links
// to the evening's summary.
import { $, S, api, esc, on, place } from "./core.js";
import { patch } from "./patch.js";
import { t } from "./i18n.js";

async function offer() {
  if (S.view !== "new" || !$("f-players")) return;
  const r = await api("GET", "/api/players");
  let box = $("known");
  if (!box) {  // after the list of names, which newgame.js redraws
    box = document.createElement("div");
    box.id = "known";
    box.className = "known";
    $("f-players").after(box);
  }
  if (!r.ok || !r.data.length) return patch(box, "");
  patch(box, `<p class="note">${esc(t("players.known.offer"))}</p>` + r.data.slice(0, 12).map((p) =>
    `<button type="button" class="chip" data-key="k${p.id}" data-known="${esc(p.name)}">` +
    `<span class="dot s${p.colour}" aria-hidden="true"></span>${esc(p.name)}</button>`).join(""));
}

document.addEventListener("click", (e) => {
  const chip = e.target.closest("[data-known]");
  if (!chip) return;
  const inputs = [...$("f-players").querySelectorAll("input[data-name]")];
  const known = chip.dataset.known.toLowerCase();
  const taken = inputs.some((i) => i.value.trim().toLowerCase() === known);
  const empty = inputs.find((i) => !i.value.trim());
  if (taken || !empty) return;
  empty.value = chip.dataset.known;
  empty.dispatchEvent(new Event("input", { bubbles: true }));
});
function summary() {
  const g = S.view === "scores" ? S.shown || S.game : null;
  const link = place("v-scores", "evening-link", "p");
  link.hidden = !(g && g.finished);
  if (link.hidden) return;
  patch(link, `<a class="btn wide" href="#/evening/${g.id}">${esc(t("players.evening.link"))}</a>`);
}

on("view", offer);
on("view", summary);
new MutationObserver(summary).observe($("scores"), { childList: true });  // scores.js drew a game
offer();
summary();  // a scores view drawn before this add-on loaded gets its link too
