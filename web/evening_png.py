"""The evening's summary as a PNG made on the hub (no outside service): the games and
their winners, the evening's table and its highlights, in the asking phone's language.

Pillow draws it in DejaVu Sans (Debian's ``fonts-dejavu-core``, which the installer
and ``make`` install: every letter of the names and of Spanish), or, without it,
Pillow's own embedded font (Latin letters without accents: an accent shows as a
box). The picture is drawn in a short-lived process of its own (:func:`render`:
``python -m web.evening_png``), so Pillow's ~10 MB never stay in the hub's memory
(docs/performance.md, "Players"); a picture takes about half a second more for it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hub.wire.i18n import text

WIDTH, MARGIN, LINE = 720, 32, 34
FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)
DRAW_TIMEOUT_S = 60
INK, PAPER, ACCENT = (28, 28, 28), (250, 248, 242), (0, 99, 166)


def lines(summary: dict[str, Any], lang: str) -> list[tuple[str, str]]:
    """The picture's lines, each ``(style, words)``: ``title``, ``head`` or ``body``."""
    day = (summary["ended"] or "")[:10]
    out = [("title", text(lang, "players.evening.title", date=day))]
    for game in summary["games"]:
        if game["winner"] is None:
            out.append(("body", text(lang, "players.evening.tie", game=game["id"])))
        else:
            out.append(
                ("body", text(lang, "players.evening.won", game=game["id"], winner=game["winner"]))
            )
    out.append(("head", text(lang, "players.evening.table")))
    for entry in summary["players"]:
        words = text(
            lang,
            "players.evening.line",
            count=entry["wins"],
            name=entry["name"],
            points=entry["points"],
        )
        out.append(("body", words))
    if summary["highlights"]:
        out.append(("head", text(lang, "players.evening.highlights")))
    for mark in summary["highlights"]:
        names = ", ".join(mark["names"])
        words = text(
            lang,
            f"players.evening.{mark['kind']}",
            names=names,
            value=mark["value"],
            game=mark.get("game", ""),
        )
        out.append(("body", words))
    return out


def evening_png(summary: dict[str, Any], lang: str) -> bytes:
    """The summary drawn as PNG bytes."""
    from PIL import Image, ImageDraw, ImageFont

    shown = lines(summary, lang)
    path = next((p for p in FONTS if Path(p).is_file()), None)

    def font(size: int) -> Any:
        return ImageFont.load_default(size) if path is None else ImageFont.truetype(path, size)

    fonts = {"title": font(34), "head": font(26), "body": font(24)}
    height = MARGIN * 2 + LINE * len(shown) + 24
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    y = MARGIN
    for style, words in shown:
        if style == "head":
            y += 8
        draw.text((MARGIN, y), words, fill=ACCENT if style != "body" else INK, font=fonts[style])
        y += LINE + (10 if style == "title" else 0)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def render(summary: dict[str, Any], lang: str) -> bytes:
    """:func:`evening_png` in a process of its own (Pillow never loads into the hub)."""
    order = json.dumps({"summary": summary, "lang": lang}).encode()
    done = subprocess.run(
        [sys.executable, "-m", "web.evening_png"],
        input=order,
        capture_output=True,
        timeout=DRAW_TIMEOUT_S,
        check=True,
    )
    return done.stdout


def main() -> None:
    """Read ``{"summary", "lang"}`` JSON on standard input, write the PNG to standard output."""
    order = json.load(sys.stdin)
    sys.stdout.buffer.write(evening_png(order["summary"], order["lang"]))


if __name__ == "__main__":
    main()
