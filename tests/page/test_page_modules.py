"""The pages' ES modules: every import names a file of the page, no module imports the
entry (``app.js``: the views take what they share from ``core.js`` and ``running.js``),
the entry reaches every module, and the import graph has no circle (docs/architecture.md,
"The page").

The imports are read from the source: ``import … from "./x.js"``, ``import "./x.js"``,
``export … from "./x.js"`` and ``import("./x.js")``, with comments, strings, template
literals and regular expressions stepped over, so text inside them is never taken for an
import. A dynamic import of anything but a string literal is refused: the graph could
not be read from the files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each page's folder, its HTML and its entry (the one script the HTML loads).
PAGES = {
    "web/static": ("index.html", "app.js"),
    "hub/board/static": ("board.html", "board.js"),
}
# After these, a "/" starts a regular expression; after anything else it divides.
BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^")
KEYWORDS_BEFORE_REGEX = {"return", "typeof", "case", "do", "else", "in", "of", "new"}
KEYWORDS_BEFORE_REGEX |= {"delete", "void", "throw", "instanceof", "yield", "await"}
# In the masked source: a string literal is "#<its index>".
STATIC_IMPORT = re.compile(
    r'(?<![\w$.])(?:import|export)\s*(?:[\w$\s{},*]*?\bfrom\s*)?"#(\d+)"', re.S
)
DYNAMIC_IMPORT = re.compile(r'(?<![\w$.])import\s*\(\s*(?:"#(\d+)"\s*\))?')


@dataclass(frozen=True)
class Import:
    """One import in a module: its specifier (None: not a string literal) and line."""

    specifier: str | None
    dynamic: bool
    line: int


class Masker:
    """A module's source with comments dropped and every string literal replaced by
    ``"#<n>"`` (its text kept in ``literals``), template text and regular expressions
    emptied; lines keep their numbers. Unterminated literals are a ValueError."""

    def __init__(self, source: str) -> None:
        self.src, self.i = source, 0
        self.out: list[str] = []
        self.literals: list[str] = []

    def run(self) -> str:
        self.code(in_hole=False)
        return "".join(self.out)

    def code(self, in_hole: bool) -> None:
        """Code up to the end, or (in a template's ``${…}``) up to its closing brace."""
        depth = 0
        while self.i < len(self.src):
            c = self.src[self.i]
            if self.src.startswith("//", self.i):
                end = self.src.find("\n", self.i)
                self.i = len(self.src) if end < 0 else end
            elif self.src.startswith("/*", self.i):
                start = self.i
                self.upto("*/")
                self.out.append(" " + "\n" * self.src.count("\n", start, self.i))
            elif c in "'\"":
                self.string(c)
            elif c == "`":
                self.template()
            elif c == "/" and self.regex_may_start():
                self.regex()
            elif c == "}" and depth == 0 and in_hole:
                self.i += 1
                return
            else:
                depth += {"{": 1, "}": -1}.get(c, 0)
                self.out.append(c)
                self.i += 1
        if in_hole:
            raise ValueError("a template's ${ is never closed")

    def upto(self, end: str) -> None:
        """Move past the next ``end`` (a comment's close)."""
        found = self.src.find(end, self.i + len(end))
        if found < 0:
            raise ValueError(f"{end!r} missing after line {self.line()}")
        self.i = found + len(end)

    def line(self) -> int:
        return self.src.count("\n", 0, self.i) + 1

    def string(self, quote: str) -> None:
        start = self.i + 1
        self.i = start
        while self.i < len(self.src) and self.src[self.i] not in (quote, "\n"):
            self.i += 2 if self.src[self.i] == "\\" else 1
        if self.i >= len(self.src) or self.src[self.i] != quote:
            raise ValueError(f"unterminated string on line {self.line()}")
        self.out.append(f'"#{len(self.literals)}"')
        self.literals.append(self.src[start : self.i])
        self.i += 1

    def template(self) -> None:
        self.out.append("`")
        self.i += 1
        while self.i < len(self.src) and self.src[self.i] != "`":
            if self.src[self.i] == "\\":
                self.i += 2
            elif self.src.startswith("${", self.i):
                self.i += 2
                self.out.append("${")
                self.code(in_hole=True)
                self.out.append("}")
            else:
                self.out.append("\n" if self.src[self.i] == "\n" else "")
                self.i += 1
        if self.i >= len(self.src):
            raise ValueError("unterminated template literal")
        self.out.append("`")
        self.i += 1

    def regex_may_start(self) -> bool:
        before = "".join(self.out).rstrip()
        if not before or before[-1] in BEFORE_REGEX:
            return True
        word = re.search(r"[\w$]+$", before)
        return word is not None and word.group() in KEYWORDS_BEFORE_REGEX

    def regex(self) -> None:
        self.i += 1
        in_class = False
        while self.i < len(self.src) and self.src[self.i] != "\n":
            c = self.src[self.i]
            self.i += 2 if c == "\\" else 1
            if c == "/" and not in_class:
                while self.i < len(self.src) and self.src[self.i].isalpha():
                    self.i += 1
                self.out.append("/r/")
                return
            in_class = (in_class or c == "[") and c != "]"
        raise ValueError(f"unterminated regular expression on line {self.line()}")


def imports_in(source: str) -> list[Import]:
    """Every import of a module's source, in order."""
    masker = Masker(source)
    code = masker.run()
    found = []
    for m in STATIC_IMPORT.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        found.append((m.start(), Import(masker.literals[int(m.group(1))], False, line)))
    for m in DYNAMIC_IMPORT.finditer(code):
        literal = None if m.group(1) is None else masker.literals[int(m.group(1))]
        found.append((m.start(), Import(literal, True, code.count("\n", 0, m.start()) + 1)))
    return [imp for _, imp in sorted(found, key=lambda pair: pair[0])]


def read_graph(folder: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph of the ``*.js`` files in ``folder`` (by file name), and what is
    wrong: an import that is not a literal, not a sibling file, or of no file."""
    graph: dict[str, set[str]] = {}
    problems = []
    for path in sorted(folder.glob("*.js")):
        graph[path.name] = set()
        for imp in imports_in(path.read_text()):
            where = f"{path.name}:{imp.line}"
            spec = imp.specifier
            if spec is None:
                problems.append(f"{where}: import() of something other than a string literal")
            elif not re.fullmatch(r"\./[\w.-]+\.js", spec):
                problems.append(f"{where}: imports {spec!r}, not a file of the page ('./x.js')")
            elif not (folder / spec[2:]).is_file():
                problems.append(f"{where}: imports {spec!r}: no such file")
            else:
                graph[path.name].add(spec[2:])
    return graph, problems


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The circles a depth-first walk closes, each as a path: ``["a.js", "b.js", "a.js"]``.
    A graph has a circle exactly when the walk closes one."""
    found: list[list[str]] = []
    done: set[str] = set()
    path: list[str] = []

    def walk(node: str) -> None:
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                walk(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        if node not in done:
            walk(node)
    return found


def importers(graph: Mapping[str, Iterable[str]], module: str) -> list[str]:
    return sorted(name for name, targets in graph.items() if module in targets)


def reached(graph: Mapping[str, Iterable[str]], entry: str) -> set[str]:
    seen, todo = {entry}, [entry]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def named(cycle: list[str]) -> str:
    return " → ".join(cycle)


@pytest.mark.parametrize("folder", PAGES)
def test_every_import_names_a_file_of_the_page(folder):
    _, problems = read_graph(ROOT / folder)
    assert problems == []


@pytest.mark.parametrize("folder", PAGES)
def test_no_circle(folder):
    graph, _ = read_graph(ROOT / folder)
    assert [named(c) for c in circles(graph)] == []


@pytest.mark.parametrize("folder", PAGES)
def test_the_html_loads_the_entry_and_no_module_imports_it(folder):
    html, entry = PAGES[folder]
    scripts = re.findall(
        r"<script\b[^>]*\bsrc=\"/static/([^\"]+)\"", (ROOT / folder / html).read_text()
    )
    assert scripts == [entry]
    graph, _ = read_graph(ROOT / folder)
    assert importers(graph, entry) == []


@pytest.mark.parametrize("folder", PAGES)
def test_the_entry_reaches_every_module(folder):
    """No dead file, and proof that the graph the other tests check is the whole page."""
    graph, _ = read_graph(ROOT / folder)
    assert reached(graph, PAGES[folder][1]) == set(graph)


def test_the_scorepad_views_take_what_they_share_from_core_and_running():
    graph, _ = read_graph(ROOT / "web/static")
    views = {"scores.js", "round.js", "newgame.js", "games.js", "join.js", "selftest.js"}
    add_ons = {"mqtt.js", "ring.js", "fixes.js"}
    assert views | add_ons | {"core.js", "table.js", "running.js"} <= graph["app.js"]
    assert all("core.js" in graph[view] for view in views)
    # The bottom of the graph: everything may use them (core.js says its words by i18n.js).
    assert graph["i18n.js"] == set()
    assert graph["core.js"] == {"i18n.js"}


# --- the checks themselves, on made-up modules ---------------------------------------


def test_circles_are_found_and_named():
    ring = {"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}, "d.js": {"a.js"}}
    assert [named(c) for c in circles(ring)] == ["a.js → b.js → c.js → a.js"]
    assert circles({"x.js": ["x.js"]}) == [["x.js", "x.js"]]
    two = {"app.js": {"v.js", "w.js"}, "v.js": {"app.js"}, "w.js": {"app.js"}}
    assert circles(two) == [["app.js", "v.js", "app.js"], ["app.js", "w.js", "app.js"]]
    diamond = {"a.js": {"b.js", "c.js"}, "b.js": {"d.js"}, "c.js": {"d.js"}, "d.js": set()}
    assert circles(diamond) == []


SOURCE = """\
// import { no } from "./comment.js"; and import("./comment.js")
/* import "./block.js";
   export * from "./block.js"; */
import { a,
  b as c } from "./multi.js";
import "./bare.js";
import * as all from "./star.js";
import def, { x } from './default.js';
export { y } from "./reexport.js";
export * from "./star-export.js";
export const from = "./not-an-import.js";
const s = 'import("./in-string.js")', t = `import "./in-template.js" ${import("./hole.js")}`;
const nested = `a ${`b ${x} "c` + "d"} e`;
const re = /import("\\.\\/in-regex.js")['"/]/g, half = 1 / 2;
import("./after-division.js"); const q = half / 2;
const lazy = () => import("./lazy.js");
const hidden = import(name), later = import(`./template.js`);
obj.import("./method.js"); const meta = import.meta;
const url = "https://x/y.js"; // import("./after-url.js")
"""


def test_the_reader_finds_imports_and_only_imports():
    found = [(imp.specifier, imp.dynamic, imp.line) for imp in imports_in(SOURCE)]
    assert found == [
        ("./multi.js", False, 4),
        ("./bare.js", False, 6),
        ("./star.js", False, 7),
        ("./default.js", False, 8),
        ("./reexport.js", False, 9),
        ("./star-export.js", False, 10),
        ("./hole.js", True, 12),
        ("./after-division.js", True, 15),
        ("./lazy.js", True, 16),
        (None, True, 17),
        (None, True, 17),
    ]


@pytest.mark.parametrize("source", ["'open", "`open ${x}", "/* open", "a = /open", "`${open"])
def test_the_reader_refuses_what_it_cannot_read(source):
    with pytest.raises(ValueError):
        imports_in(source)


def test_a_page_with_every_fault_fails_every_check(tmp_path):
    files = {
        "app.js": 'import { S } from "./core.js";\nconst v = () => import("./view.js");\n',
        "core.js": "export const S = {};\n",
        "view.js": 'import { refresh } from "./app.js";\nimport "./gone.js";\n'
        'import "lib";\nimport "../outside.js";\nimport(which);\n',
        "dead.js": 'import "./dead.js";\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    graph, problems = read_graph(tmp_path)
    assert problems == [
        "view.js:2: imports './gone.js': no such file",
        "view.js:3: imports 'lib', not a file of the page ('./x.js')",
        "view.js:4: imports '../outside.js', not a file of the page ('./x.js')",
        "view.js:5: import() of something other than a string literal",
    ]
    assert [named(c) for c in circles(graph)] == [
        "app.js → view.js → app.js",
        "dead.js → dead.js",
    ]
    assert importers(graph, "app.js") == ["view.js"]
    assert reached(graph, "app.js") == {"app.js", "core.js", "view.js"}
