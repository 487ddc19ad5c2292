// Field errors. An API error is {error, field?}; field is the request body's path
// ("players", "options.chickenfoot", "points.Ann"). The message goes into the error box
// whose data-errors names that field, and every input whose data-field names it gets
// aria-invalid and aria-describedby pointing at the box. A path with no input of its own
// ("players.2") goes to its nearest parent that has one; no field, to the fallback box.
import { $ } from "./core.js";

const names = (el, attr) => (el.getAttribute(attr) || "").split(" ");
const having = (form, attr, field) =>
  [...form.querySelectorAll(`[${attr}]`)].filter((el) => names(el, attr).includes(field));

export function showError(form, err, fallback) {
  const inputs = nearest(err.field, (f) => having(form, "data-field", f)) || [];
  const box = (nearest(err.field, (f) => having(form, "data-errors", f)) || [$(fallback)])[0];
  box.textContent = err.error;
  for (const el of inputs) {
    el.setAttribute("aria-invalid", "true");
    el.setAttribute("aria-describedby", box.id);
  }
  (inputs[0] || box).scrollIntoView({ block: "center" });
}
// find(field), else find(its parent path), …: the first that finds something.
function nearest(field, find) {
  for (let f = field || ""; f; f = f.includes(".") ? f.slice(0, f.lastIndexOf(".")) : "") {
    const found = find(f);
    if (found.length) return found;
  }
  return null;
}

export function clearErrors(form) {
  form.querySelectorAll(".err").forEach((e) => (e.textContent = ""));
  form.querySelectorAll("[aria-invalid]").forEach((e) => {
    e.removeAttribute("aria-invalid");
    e.removeAttribute("aria-describedby");
  });
}

// A field's error goes once the field is changed (its box too, when no other field
// still points at it): an error never stays on screen after the field is fixed.
export function clearOnFix(form) {
  form.addEventListener("input", (e) => {
    const el = e.target;
    if (el.getAttribute("aria-invalid") !== "true") return;
    const box = $(el.getAttribute("aria-describedby"));
    el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby");
    if (box && !form.querySelector(`[aria-describedby="${box.id}"]`)) box.textContent = "";
  });
}
