// Field errors. An API error is {error, field?}; field is the request body's path
// ("players", "options.chickenfoot", "points.Ann"). The message goes into the error box
// whose data-errors names that field, and every input whose data-field names it gets
// aria-invalid and aria-describedby pointing at the box. A path with no input of its own
// ("players.2") goes to its nearest parent that has one; no field, to the fallback box.
import { $ } from "./core.js";

const names = (el, attr) => (el.getAttribute(attr) || "").split(" ");
const having = (form, attr, field) => [...form.querySelectorAll(`[${attr}]`)].filter((el) => names(el, attr).includes(field));

export function showError(form, err, fallback) {
  let field = err.field || legacyField(err.error), inputs = [];
  while (field) {
    inputs = having(form, "data-field", field);
    if (inputs.length) break;
    field = field.includes(".") ? field.slice(0, field.lastIndexOf(".")) : "";
  }
  const box = (field && having(form, "data-errors", field)[0]) || $(fallback);
  box.textContent = err.error;
  for (const el of inputs) {
    el.setAttribute("aria-invalid", "true");
    el.setAttribute("aria-describedby", box.id);
  }
  (inputs[0] || box).scrollIntoView({ block: "center" });
}

export function clearErrors(form) {
  form.querySelectorAll(".err").forEach((e) => (e.textContent = ""));
  form.querySelectorAll("[aria-invalid]").forEach((e) => { e.removeAttribute("aria-invalid"); e.removeAttribute("aria-describedby"); });
}

// TEMPORARY, until the API's errors carry their `field` key everywhere (issue 9 item 4):
// the field named before the first colon. Removed when that lands.
function legacyField(message) {
  const m = /^([\w.]+): /.exec(message || "");
  return m ? m[1] : "";
}
