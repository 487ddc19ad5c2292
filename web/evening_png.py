"""The evening's summary as a PNG made on the hub (no outside service): the games and
their winners, the evening's table and its highlights, in the asking phone's language.

The picture has a bounded size whatever the evening holds (issue 33: a phone with no
token can make an evening of 100 games of 8 new names in seconds, which drew 720 ×
30,926 px): :func:`lines` keeps the newest :data:`GAMES_SHOWN` games and the table's
first :data:`PLAYERS_SHOWN` players, each with a line saying how many are left out, and
:data:`NAMES_SHOWN` names a highlight; a line too long for the width ends in "…".
So a picture is at most :data:`WIDTH` × :func:`height` of :data:`MOST_LINES` lines.

Pillow draws it in DejaVu Sans (Debian's ``fonts-dejavu-core``, which the installer
and ``make`` install: every letter of the names and of Spanish), or, without it,
Pillow's own embedded font (Latin letters without accents: an accent shows as a
box). The picture is drawn in a short-lived process of its own (:func:`render`:
``python -m web.evening_png``, handed the lines, not the evening), so Pillow's ~10 MB
never stay in the hub's memory (docs/performance.md, "Players"); the child is bounded
in time (:data:`DRAW_TIMEOUT_S`) and, where the system lets it set its own limits, in
memory and processor time. :class:`web.evening_pictures.EveningPictures` starts one
at a time and keeps what it drew.
"""

from __future__ import annotations

import io
import json
import resource
import sys
from pathlib import Path
from typing import Any

# The drawing child imports this module too: what only the hub uses (the catalogs,
# hashlib with OpenSSL's 4 MB, subprocess) is imported where it is used.

WIDTH, MARGIN, LINE = 720, 32, 34
FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)
INK, PAPER, ACCENT = (28, 28, 28), (250, 248, 242), (0, 99, 166)
GAMES_SHOWN = 12  # the evening's newest games drawn; the earlier ones are counted
PLAYERS_SHOWN = 10  # the evening's table's first players drawn; the rest are counted
NAMES_SHOWN = 3  # names drawn of one highlight; the rest are counted
HIGHLIGHT_KINDS = 5  # wins, zero rounds, went out, doubles, the best game
# title, earlier games, games, head, players, more players, head, highlights
MOST_LINES = 1 + 1 + GAMES_SHOWN + 1 + PLAYERS_SHOWN + 1 + 1 + HIGHLIGHT_KINDS
DRAW_TIMEOUT_S = 15  # a bounded picture takes ~0.5 s here, ~2 s on a Pi Zero 2 W
CHILD_MEMORY = 256 * 1024 * 1024  # the child's address space (here 42 MB at its peak)
CHILD_CPU_S = 10

Lines = list[tuple[str, str]]  # each (style, words): style "title", "head" or "body"


def lines(summary: dict[str, Any], lang: str) -> Lines:
    """The picture's lines, each ``(style, words)``: ``title``, ``head`` or ``body``; at
    most :data:`MOST_LINES` of them, however long the evening."""
    from hub.wire.i18n import text

    day = (summary["ended"] or "")[:10]
    out = [("title", text(lang, "players.evening.title", date=day))]
    games = summary["games"]
    earlier = len(games) - GAMES_SHOWN
    if earlier > 0:
        out.append(("body", text(lang, "players.evening.earlier", count=earlier)))
    for game in games[-GAMES_SHOWN:]:
        if game["winner"] is None:
            out.append(("body", text(lang, "players.evening.tie", game=game["id"])))
        else:
            won = text(lang, "players.evening.won", game=game["id"], winner=game["winner"])
            out.append(("body", won))
    out.append(("head", text(lang, "players.evening.table")))
    for entry in summary["players"][:PLAYERS_SHOWN]:
        count, name, points = entry["wins"], entry["name"], entry["points"]
        words = text(lang, "players.evening.line", count=count, name=name, points=points)
        out.append(("body", words))
    more = len(summary["players"]) - PLAYERS_SHOWN
    if more > 0:
        out.append(("body", text(lang, "players.evening.more_players", count=more)))
    if summary["highlights"]:
        out.append(("head", text(lang, "players.evening.highlights")))
    for mark in summary["highlights"][:HIGHLIGHT_KINDS]:
        words = text(
            lang,
            f"players.evening.{mark['kind']}",
            names=_names(mark["names"], lang),
            value=mark["value"],
            game=mark.get("game", ""),
        )
        out.append(("body", words))
    return out


def _names(names: list[str], lang: str) -> str:
    from hub.wire.i18n import text

    shown = ", ".join(names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown if more <= 0 else text(lang, "players.evening.more_names", count=more, names=shown)


def height(shown: Lines) -> int:
    """The picture's height in pixels for ``shown`` (the title's and heads' extra room
    comes out of the bottom margin's 24 pixels)."""
    return MARGIN * 2 + LINE * min(len(shown), MOST_LINES) + 24


def key(shown: Lines) -> str:
    """The picture's name: it changes exactly when what the picture shows changes (its
    lines, or how they are laid out: a phone's copy from before an upgrade is not kept)."""
    import hashlib

    layout = [WIDTH, MARGIN, LINE, MOST_LINES, 16]  # 16: the colours
    return hashlib.sha256(json.dumps([layout, shown]).encode()).hexdigest()[:32]


def evening_png(shown: Lines) -> bytes:
    """``shown`` (:func:`lines`) drawn as PNG bytes."""
    from PIL import Image, ImageDraw, ImageFont

    path = next((p for p in FONTS if Path(p).is_file()), None)

    def font(size: int) -> Any:
        return ImageFont.load_default(size) if path is None else ImageFont.truetype(path, size)

    fonts = {"title": font(34), "head": font(26), "body": font(24)}
    shown = shown[:MOST_LINES]
    image = Image.new("RGB", (WIDTH, height(shown)), PAPER)
    draw = ImageDraw.Draw(image)
    y = MARGIN
    for style, words in shown:
        if style == "head":
            y += 8
        fitted = _fit(words, fonts[style], WIDTH - 2 * MARGIN)
        draw.text((MARGIN, y), fitted, fill=ACCENT if style != "body" else INK, font=fonts[style])
        y += LINE + (10 if style == "title" else 0)
    # 16 colours hold the paper, the two inks and their edges: a seventh of the bytes
    # of RGB, and quicker (Pillow's ``optimize`` took 0.8 s of the drawing's 0.9).
    out = io.BytesIO()
    image.quantize(colors=16, method=Image.Quantize.FASTOCTREE).save(out, format="PNG")
    return out.getvalue()


def _fit(words: str, font: Any, room: int) -> str:
    """``words``, cut and ended with "…" if they are wider than ``room`` pixels."""
    words = words[:200]
    if font.getlength(words) <= room:
        return words
    while words and font.getlength(words + "…") > room:
        words = words[:-1]
    return words + "…"


def render(shown: Lines) -> bytes:
    """:func:`evening_png` in a process of its own (Pillow never loads into the hub),
    killed after :data:`DRAW_TIMEOUT_S`; raises if it fails."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "web.evening_png"],
        input=json.dumps({"lines": shown}).encode(),
        capture_output=True,
        timeout=DRAW_TIMEOUT_S,
        check=True,
    )
    return done.stdout


def _bound_self() -> None:
    """Limit this child's memory and processor time. The hub's systemd unit refuses
    ``setrlimit`` (its filter ``~@resources``): there the bounded picture is the bound."""
    for limit, value in ((resource.RLIMIT_AS, CHILD_MEMORY), (resource.RLIMIT_CPU, CHILD_CPU_S)):
        try:
            resource.setrlimit(limit, (value, value))
        except (OSError, ValueError):  # refused: the unit's filter, or a lower hard limit
            pass


def main() -> None:
    """Read ``{"lines"}`` JSON on standard input, write the PNG to standard output."""
    _bound_self()
    order = json.load(sys.stdin)
    shown = [(str(style), str(words)) for style, words in order["lines"]]
    sys.stdout.buffer.write(evening_png(shown))


if __name__ == "__main__":
    main()
