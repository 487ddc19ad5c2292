// ESLint over the page's code: the scorepad's ES modules (web/static/) and the board's
// classic script (hub/board/static/). `make eslint` (which `make test` and `make lint`
// run) calls it from the repository's root:
//   tests/node_modules/.bin/eslint -c tests/eslint.config.mjs
// ESLint, its rules and the browsers' globals are pinned in tests/package.json and its
// lock, beside axe-core. There is no service worker; one would get a block of its own
// with `globals.serviceworker`.
import js from "@eslint/js";
import globals from "globals";

// The recommended rules (a name nothing defines, a variable left unused, unreachable
// code, ...) and a few more that catch bugs in code with no build step and no types.
const rules = {
  ...js.configs.recommended.rules,
  // `==` only against null (null or undefined, on purpose).
  eqeqeq: ["error", "always", { null: "ignore" }],
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
  // A `let`/`const` read in its own scope before its line throws (the temporal dead
  // zone); a function's body may name what is declared later in the module.
  "no-use-before-define": ["error", { functions: false, classes: false, variables: false }],
  "no-var": "error",
  "prefer-const": "error",
  // Python's width (ruff's line-length in pyproject.toml).
  "max-len": ["error", { code: 100 }],
};

export default [
  {
    files: ["web/static/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
    rules,
  },
  {
    // One classic script (board.html loads it with `defer`): its top-level names are
    // the page's own, as no other script shares its window.
    files: ["hub/board/static/**/*.js"],
    languageOptions: { sourceType: "script", globals: globals.browser },
    rules,
  },
];
