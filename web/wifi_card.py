"""The hub's own Wi-Fi on a printable card (PNG or PDF), made on the hub: the Wi-Fi
QR code that joins the hotspot beside the page's own QR code, the network's name and
passphrase in words, for the box's lid (docs/deploy.md, "The hub's own Wi-Fi").

Drawn as :mod:`web.evening_png` draws: Pillow in a short-lived process of its own
(:func:`render`: ``python -m web.wifi_card``), so Pillow never stays in the hub's
memory; segno makes the codes. The card is A6 landscape at 300 dpi.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import segno

from hub.wire.i18n import text
from hub.wire.wifi import Hotspot, wifi_code
from web.evening_png import FONTS, INK, PAPER

KINDS = {"png": "image/png", "pdf": "application/pdf"}
WIDTH, HEIGHT, DPI = 1748, 1240, 300  # A6 landscape
MARGIN, CODE = 90, 620
DRAW_TIMEOUT_S = 60


def _code_image(words: str) -> Any:
    from PIL import Image

    out = io.BytesIO()
    segno.make(words, error="m").save(out, kind="png", scale=10, border=2)
    out.seek(0)
    return Image.open(out).convert("RGB").resize((CODE, CODE), Image.Resampling.NEAREST)


def card(hotspot: Hotspot, url: str, lang: str, kind: str) -> bytes:
    """The card for ``hotspot`` (the page at ``url``) in ``lang``, as ``kind`` bytes."""
    from pathlib import Path

    from PIL import Image, ImageDraw, ImageFont

    path = next((p for p in FONTS if Path(p).is_file()), None)

    def font(size: int) -> Any:
        return ImageFont.load_default(size) if path is None else ImageFont.truetype(path, size)

    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 60), text(lang, "wifi.card.title"), fill=INK, font=font(64))
    top = 200
    for x, code, step in (
        (MARGIN, wifi_code(hotspot), text(lang, "wifi.card.join")),
        (WIDTH - MARGIN - CODE, url, text(lang, "wifi.card.open")),
    ):
        image.paste(_code_image(code), (x, top))
        draw.text((x, top + CODE + 20), step, fill=INK, font=font(40))
    lines = (
        text(lang, "wifi.card.network", ssid=hotspot.ssid),
        text(lang, "wifi.card.passphrase", passphrase=hotspot.passphrase),
        text(lang, "wifi.card.address", url=url),
    )
    for i, line in enumerate(lines):
        draw.text((MARGIN, top + CODE + 90 + 48 * i), line, fill=INK, font=font(36))
    out = io.BytesIO()
    if kind == "pdf":
        image.save(out, format="PDF", resolution=DPI)
    else:
        image.save(out, format="PNG", optimize=True, dpi=(DPI, DPI))
    return out.getvalue()


def render(hotspot: Hotspot, url: str, lang: str, kind: str) -> bytes:
    """:func:`card` in a process of its own (Pillow never loads into the hub)."""
    order = {"ssid": hotspot.ssid, "passphrase": hotspot.passphrase, "url": url}
    done = subprocess.run(
        [sys.executable, "-m", "web.wifi_card"],
        input=json.dumps({**order, "lang": lang, "kind": kind}).encode(),
        capture_output=True,
        timeout=DRAW_TIMEOUT_S,
        check=True,
    )
    return done.stdout


def main() -> None:
    """Read the order as JSON on standard input, write the card to standard output."""
    order = json.load(sys.stdin)
    hotspot = Hotspot(order["ssid"], order["passphrase"])
    sys.stdout.buffer.write(card(hotspot, order["url"], order["lang"], order["kind"]))


if __name__ == "__main__":
    main()
