"""The page's language: the browser's languages choose the catalog, a choice saved on
the phone overrides them, and <html lang> always names the language in use."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("locale", "lang"), [("es-MX", "es"), ("en-US", "en"), ("fr-FR", "en")])
def test_the_browser_language_chooses_the_catalog(phones, locale: str, lang: str) -> None:
    phone = phones(locale=locale)
    phone.open("/")
    expect(phone.page.locator("html")).to_have_attribute("lang", lang)
    words = phone.page.evaluate(
        "import('/static/i18n.js').then(m => [m.language(), m.t('language.name')])"
    )
    assert words == [lang, {"en": "English", "es": "Español"}[lang]]


def test_a_saved_choice_overrides_the_browser_and_can_be_forgotten(phones) -> None:
    phone = phones(locale="en-US")
    phone.open("/")
    phone.page.evaluate("import('/static/i18n.js').then(m => m.setLanguage('es'))")
    phone.open("/")
    expect(phone.page.locator("html")).to_have_attribute("lang", "es")
    counted = phone.page.evaluate(
        "import('/static/i18n.js').then(m => [1, 3].map(n => m.t('count.players', {count: n})))"
    )
    assert counted == ["1 jugador", "3 jugadores"]
    phone.page.evaluate("import('/static/i18n.js').then(m => m.setLanguage(''))")
    phone.open("/")
    expect(phone.page.locator("html")).to_have_attribute("lang", "en")
