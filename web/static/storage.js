// The storage warning (an add-on): while the hub cannot write the table to its storage
// (an SD card gone read-only, a full disk), every phone says so, naming the file; the
// snapshot's `storage` says why (hub/persist/journal.py, storage_problem).
import { S, on, place } from "./core.js";
import { t } from "./i18n.js";

function show(snap) {
  const s = snap && snap.storage;
  const el = place("v-table", "storage", "p");
  el.className = "err";
  el.setAttribute("role", "alert");
  el.hidden = !s || s.saved !== false;
  if (el.hidden) return;
  const problem = ["read_only", "full"].includes(s.problem) ? s.problem : "error";
  el.dataset.problem = problem;
  const params = { path: String(s.path), detail: String(s.detail) };
  el.textContent = t(`errors.storage.${problem}`, params);
}
on("state", show);
show(S.snap);  // loaded after the first snapshot: show that one now
