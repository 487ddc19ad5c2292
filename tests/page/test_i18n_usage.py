"""The catalogs and the code that uses them: every key the page's code or the hub's
Python names exists in every catalog, and every key of the catalogs is used somewhere
(no dead words). Keys of other areas (``say.``, ``players.``, ``settings.voice.``) are
theirs to use and are not counted as dead here.

A key is named in the page's code as a string literal (``t("round.save")``, a map of
keys, ``data-i18n="nav.table"`` and ``data-i18n-aria-label=…`` in the HTML). The words
for each rule profile and option are keyed by the hub's own ids
(``rules.<profile id>.name``, ``rules.<profile id>.about``, ``option.<option id>``):
they come from scorer/profiles.py here, and their English is the hub's own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hub.core.news import Reason
from hub.core.state import PHASES
from hub.io.sound import QUIET_MODES
from hub.persist.journal import PROBLEMS
from hub.selftest.walkthrough import OUTCOMES
from hub.wire import i18n
from scorer.profiles import OPTIONS, PROFILES
from tests.web.test_refusals import ANSWERED, raise_sites

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "web" / "static"
BOARD = ROOT / "hub" / "board" / "static"
PAGE = [
    *sorted(STATIC.glob("*.js")),
    STATIC / "index.html",
    BOARD / "board.js",
    BOARD / "board.html",
]
# The hub's Python that names keys (hub/wire/i18n.py, the reader, only shows examples).
PYTHON = sorted(path for path in (ROOT / "web").glob("*.py") if path.name != "i18n.py")
OTHERS = ("say.", "players.", "settings.voice.")
LITERAL = re.compile(r"""(?<![\w$])["'`]([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_-]+)+)["'`]""")
MARKED = re.compile(r'data-i18n(?:-[a-z-]+)?="([^"]+)"')
# The key families the page builds from the hub's ids (a template literal in its code).
FAMILIES = {
    "`rules.${": [f"rules.{pid}.{part}" for pid in PROFILES for part in ("name", "about")],
    "`option.${": [f"option.{oid}" for oid in OPTIONS],
    "`settings.quiet_mode.${": [f"settings.quiet_mode.{mode}" for mode in QUIET_MODES],
    "`errors.storage.${": [f"errors.storage.{p}" for p in {*PROBLEMS.values(), "error"}],
    "`selftest.outcome.${": [f"selftest.outcome.{outcome}" for outcome in OUTCOMES],
    "`phase.${": [f"phase.{phase}" for phase in PHASES],
    "`board.phase.${": [f"board.phase.{phase}" for phase in PHASES],
    # A refusal's words, by its code (web/static/core.js; web/errors.py on the hub's side).
    "`error.${": sorted(
        {f"error.{code}" for _, code, _ in raise_sites()} | {f"error.{code}" for code in ANSWERED}
    ),
}


def catalogs() -> dict[str, dict[str, object]]:
    return {
        lang: json.loads((i18n.CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
        for lang in i18n.LANGUAGES
    }


def prefixes() -> set[str]:
    return {key.split(".")[0] for key in catalogs()[i18n.DEFAULT]}


def code(path: Path) -> str:
    """``path``'s text without its comments (a comment may name a field like a key)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        return re.sub(r"<!--.*?-->", "", text, flags=re.S)
    if path.suffix == ".py":
        return re.sub(r"(?m)#.*$", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|\s)//.*$", r"\1", text)


def named_in(paths: list[Path]) -> dict[str, set[str]]:
    """Each catalog-shaped key named in ``paths``, with the files naming it."""
    heads = prefixes()
    found: dict[str, set[str]] = {}
    for path in paths:
        text = code(path)
        for key in [*LITERAL.findall(text), *MARKED.findall(text)]:
            if key.split(".")[0] in heads:
                found.setdefault(key, set()).add(path.name)
        for start, keys in FAMILIES.items():
            if start in text:
                for key in keys:
                    found.setdefault(key, set()).add(path.name)
    return found


def test_the_page_reads_its_words_from_the_catalogs() -> None:
    """Enough keys are found that the scan is known to work (and index.html is read)."""
    page = named_in(PAGE)
    assert len(page) > 250, len(page)
    assert "nav.table" in page and "index.html" in page["nav.table"]
    assert "round.js" in page["round.save"]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_key_the_code_names_is_in_the_catalog(lang: str) -> None:
    have = catalogs()[lang]
    missing = {
        key: sorted(files) for key, files in named_in([*PAGE, *PYTHON]).items() if key not in have
    }
    assert not missing, f"{lang}.json lacks: {missing}"


def test_every_key_of_the_catalogs_is_used() -> None:
    used = named_in([*PAGE, *PYTHON])
    dead = sorted(
        key for key in catalogs()[i18n.DEFAULT] if key not in used and not key.startswith(OTHERS)
    )
    assert not dead, f"catalog keys nothing uses: {dead}"


def test_each_profile_and_option_is_shown_by_the_hubs_own_english() -> None:
    english = catalogs()[i18n.DEFAULT]
    for pid, profile in PROFILES.items():
        assert english[f"rules.{pid}.name"] == profile.name, pid
    for oid, option in OPTIONS.items():
        assert english[f"option.{oid}"] == option.label, oid


def test_the_scan_finds_a_missing_key(tmp_path: Path) -> None:
    page = tmp_path / "x.js"
    page.write_text('t("round.no_such_words"); const k = "nav.games";', encoding="utf-8")
    found = named_in([page])
    assert set(found) == {"round.no_such_words", "nav.games"}
    assert "round.no_such_words" not in catalogs()[i18n.DEFAULT]


def test_the_reminders_the_page_words_are_the_hubs_own() -> None:
    """fixes.js says each reminder of the turn rules as a whole sentence, by the
    reminder's ``reason`` (hub/core/news.py's ``Reason``), never by its English ``why``:
    every reason has its sentence (a Spanish page never shows the hub's English words),
    and the page knows no reason the hub does not give."""
    page = (STATIC / "fixes.js").read_text(encoding="utf-8")
    block = re.search(r"const REMINDERS = \{(.*?)\};", page, re.S)
    assert block is not None
    reasons = dict(re.findall(r'(\w+): "(fixes\.[\w.]+)"', block.group(1)))
    assert set(reasons) == {reason.value for reason in Reason}
    for key in reasons.values():
        assert key in catalogs()[i18n.DEFAULT], key


def test_the_self_tests_words_are_the_hubs_own_in_english() -> None:
    """selftest.js says each step by its kind and slot from the catalog; in English
    that is word for word what the hub's walkthrough says (and the terminal shows)."""
    from hub.runtime.config import load
    from hub.selftest.steps import Wiring, plan

    kinds = {"marker-on": "marker_on", "marker-off": "marker_off"}
    steps = plan(Wiring("gpio", load(None)["pins"], "default"), voice=True)
    assert {step.kind for step in steps} == {"button", "marker-on", "marker-off", "light", "sound"}
    assert steps[-1].sound == "say"  # the voice's step: words of its own
    for step in steps:
        centre = step.kind == "button" and step.slot == 0
        name = "centre" if centre else kinds.get(step.kind, step.kind)
        name = "voice" if step.sound == "say" else name
        params = {"slot": step.slot, "sound": step.sound}
        assert i18n.text("en", f"selftest.part.{name}", **params) == step.part, step
        assert i18n.text("en", f"selftest.prompt.{name}", **params) == step.prompt, step
