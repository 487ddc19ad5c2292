// The page's words: one catalog per language, the same files the hub's Python reads
// (web/static/i18n/<lang>.json; web/i18n.py says their form). Every string a person
// reads goes through t(); sentences are whole entries with {name} placeholders, never
// glued from pieces; an entry that depends on a count is an object of plural forms
// chosen by Intl.PluralRules ("other" stands in for a missing form).
export const LANGUAGES = ["en", "es"];
const DEFAULT = "en";
const STORE = "mtrain-lang";

let current = DEFAULT;
let words = {};
let fallback = {};

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

async function fetchCatalog(name) {
  const r = await fetch(`/static/i18n/${name}.json`);
  if (!r.ok) throw new Error(`catalog ${name}: ${r.status}`);
  return r.json();
}

// Load the catalog for `choice` ("" or null: follow the browser, and forget a saved
// choice) and set <html lang>. Resolves once t() answers in that language.
export async function setLanguage(choice) {
  if (choice === "" || choice === null) localStorage.removeItem(STORE);
  else if (choice !== undefined && LANGUAGES.includes(choice)) localStorage.setItem(STORE, choice);
  const name = chosen();
  if (!Object.keys(fallback).length) fallback = await fetchCatalog(DEFAULT);
  words = name === DEFAULT ? fallback : await fetchCatalog(name);
  current = name;
  document.documentElement.lang = name;
  return name;
}

export function language() {
  return current;
}

// The words for `key`, placeholders filled from `params`; `params.count` chooses the
// plural form. A key no catalog has shows as the key itself (and a test fails).
export function t(key, params = {}) {
  let entry = key in words ? words[key] : fallback[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") {
    const form = new Intl.PluralRules(current).select(Number(params.count ?? 0));
    entry = entry[form] ?? entry.other;
  }
  return entry.replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

export function formatNumber(n) {
  return new Intl.NumberFormat(current).format(n);
}

export function formatDate(when, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(current, options).format(new Date(when));
}
