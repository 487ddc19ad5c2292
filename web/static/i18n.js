// The page's words: one catalog per language, the same files the hub's Python reads
// (web/static/i18n/<lang>.json; hub/wire/i18n.py says their form). Every string a person
// reads goes through t(); sentences are whole entries with {name} placeholders, never
// glued from pieces; an entry that depends on a count is an object of plural forms
// chosen by Intl.PluralRules ("other" stands in for a missing form).
export const LANGUAGES = ["en", "es"];
const DEFAULT = "en";
const STORE = "mtrain-lang";

let current = DEFAULT;
let words = {};

// The language to use: the phone's own choice on this page (saved), else the
// browser's languages in order, else English.
export function chosen() {
  const saved = localStorage.getItem(STORE);
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return DEFAULT;
}

const fetched = {};  // name: the promise of its catalog (each file fetched once)
function fetchCatalog(name) {
  fetched[name] ??= fetch(`/static/i18n/${name}.json`).then((r) => {
    if (!r.ok) throw new Error(`catalog ${name}: ${r.status}`);
    return r.json();
  });
  fetched[name].catch(() => delete fetched[name]);  // a failed fetch is tried again
  return fetched[name];
}

// Each language's own name, from its catalog ({en: "English", es: "Español"}): the
// language setting offers every language in its own words.
export async function names() {
  const all = await Promise.all(LANGUAGES.map(fetchCatalog));
  return Object.fromEntries(LANGUAGES.map((name, i) => [name, all[i]["language.name"] || name]));
}

// Load the catalog for `choice` ("" or null: follow the browser, and forget a saved
// choice) and set <html lang>. Resolves once t() answers in that language.
export async function setLanguage(choice) {
  if (choice === "" || choice === null) localStorage.removeItem(STORE);
  else if (choice !== undefined && LANGUAGES.includes(choice)) localStorage.setItem(STORE, choice);
  // Only the language in use is fetched: every catalog has every key (a test). One
  // the hub cannot give falls back to English.
  let name = chosen();
  try {
    words = await fetchCatalog(name);
  } catch (err) {
    if (name === DEFAULT) throw err;
    name = DEFAULT;
    words = await fetchCatalog(name);
  }
  current = name;
  document.documentElement.lang = name;
  return name;
}

// The language saved on this phone, or "" when the page follows the browser.
export function saved() {
  const choice = localStorage.getItem(STORE);
  return choice && LANGUAGES.includes(choice) ? choice : "";
}

export function language() {
  return current;
}

// The words of the static page: an element marked data-i18n="key" gets t(key) as its
// text, and data-i18n-<attribute>="key" (aria-label, alt, title, placeholder) that
// attribute. Run once the catalog is loaded and after each change of language.
const ATTRIBUTES = ["aria-label", "alt", "title", "placeholder"];
export function fill(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const name of ATTRIBUTES) {
    for (const el of root.querySelectorAll(`[data-i18n-${name}]`)) {
      el.setAttribute(name, t(el.getAttribute(`data-i18n-${name}`)));
    }
  }
}

// The words for `key`, placeholders filled from `params`; `params.count` chooses the
// plural form. A key the catalog lacks shows as the key itself (and a test fails).
export function t(key, params = {}) {
  let entry = Object.hasOwn(words, key) ? words[key] : undefined;
  if (entry === undefined) return key;
  if (typeof entry === "object") {
    const form = new Intl.PluralRules(current).select(Number(params.count ?? 0));
    entry = entry[form] ?? entry.other;
  }
  return entry.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

export function formatNumber(n, options = {}) {
  return new Intl.NumberFormat(current, options).format(n);
}

export function formatDate(when, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(current, options).format(new Date(when));
}
