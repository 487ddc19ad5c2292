"""The catalogs (hub/wire/i18n.py): every language has every key, with the same
placeholders, stored in the one form that merges cleanly; the Python side picks the
language and fills the words as the page does."""

from __future__ import annotations

import json

import pytest

from hub.wire import i18n


def stored(lang: str) -> str:
    return (i18n.CATALOGS / f"{lang}.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_each_catalog_is_stored_sorted_and_indented(lang: str) -> None:
    text = stored(lang)
    assert text == i18n.canonical(json.loads(text)), (
        f"web/static/i18n/{lang}.json is not in canonical form: "
        f"python -c 'import json,hub.wire.i18n as i; ...' or keep keys sorted, indent 2"
    )


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    catalogs = {lang: json.loads(stored(lang)) for lang in i18n.LANGUAGES}
    keys = {lang: set(c) for lang, c in catalogs.items()}
    for lang, have in keys.items():
        for other, theirs in keys.items():
            missing = sorted(theirs - have)
            assert not missing, f"{lang} lacks keys that {other} has: {missing}"
    english = catalogs[i18n.DEFAULT]
    for lang, entries in catalogs.items():
        for key, entry in entries.items():
            assert entry, f"{lang}: {key} is empty"
            if isinstance(entry, dict):
                assert "other" in entry, f"{lang}: {key} has no 'other' form"
                assert set(entry) <= {"zero", "one", "two", "few", "many", "other"}, key
                assert all(isinstance(v, str) and v for v in entry.values()), key
            else:
                assert isinstance(entry, str), f"{lang}: {key} is neither words nor forms"
            assert i18n.placeholders(entry) == i18n.placeholders(english[key]), (
                f"{lang}: {key} has placeholders {sorted(i18n.placeholders(entry))}, "
                f"English has {sorted(i18n.placeholders(english[key]))}"
            )


@pytest.mark.parametrize(
    ("tag", "lang"),
    [
        (None, "en"),
        ("", "en"),
        ("es", "es"),
        ("es-MX", "es"),
        ("ES-mx", "es"),
        ("es-MX,es;q=0.9,en;q=0.8", "es"),
        ("en-US,en;q=0.9,es;q=0.8", "en"),
        ("fr-FR,es;q=0.5,en;q=0.4", "es"),
        ("fr-FR,de;q=0.5", "en"),
        ("es;q=0,en", "en"),
        ("es;q=abc,en;q=0.2", "en"),
        ("*", "en"),
    ],
)
def test_the_language_comes_from_a_tag_or_an_accept_language_header(
    tag: str | None, lang: str
) -> None:
    assert i18n.language(tag) == lang


def test_words_are_filled_in_and_counted() -> None:
    assert i18n.text("es", "count.players", count=1) == "1 jugador"
    assert i18n.text("es", "count.players", count=4) == "4 jugadores"
    assert i18n.text("en", "count.players", count=0) == "0 players"
    assert i18n.text("fr", "language.name") == "English"
    with pytest.raises(i18n.UnknownKey):
        i18n.text("en", "no.such.key")
    with pytest.raises(TypeError):
        i18n.text("en", "count.players")
