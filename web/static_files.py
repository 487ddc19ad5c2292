"""The scorepad's files, prepared once when the app is made: bytes, gzip, validators.

Every file under ``web/static/`` is read and gzipped once (level 9) when
:func:`create_app` runs, never per request. Answers carry a strong ``ETag`` (a hash of
the bytes; the gzip form has its own), ``Last-Modified``, ``Vary: Accept-Encoding`` and
``Cache-Control: no-cache``: a phone keeps its copy and asks each time whether it is
still current, and the hub answers ``304 Not Modified`` with no body when it is. So a
reload fetches nothing unchanged, and a hub updated with new files is seen at once.
Files edited while the hub runs are seen after a restart.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Flask, Request, Response, abort, current_app, request
from werkzeug.http import http_date, parse_date

STATIC = Path(__file__).resolve().parent / "static"
CACHE_CONTROL = "no-cache"
# Compressing these is worth it; images such as PNG are compressed already.
TEXT_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")
# The types of the files the scorepad has, by suffix. ``mimetypes`` is asked only for
# any other suffix: its first use reads the system's whole table (~0.8 MB of memory
# for the life of the process), and this way a file's type never depends on the machine.
TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "application/javascript",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/vnd.microsoft.icon",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain",
    ".woff2": "font/woff2",
}
GZIP = 31  # zlib's wbits for a gzip stream (header and trailer; mtime 0)

bp = Blueprint("static_files", __name__)


@dataclass(frozen=True)
class Prepared:
    """One file as served: its bytes, their gzip form (None if it does not pay) and tags."""

    raw: bytes
    gz: bytes | None
    etag: str
    gz_etag: str
    modified: int
    mimetype: str


def prepare(path: Path) -> Prepared:
    """Read ``path`` and prepare its answer once."""
    raw = path.read_bytes()
    mimetype = mimetype_of(path)
    gz = None
    if mimetype.startswith(TEXT_TYPES):
        packed = zlib.compress(raw, 9, GZIP)
        gz = packed if len(packed) < len(raw) else None
    tag = hashlib.sha256(raw).hexdigest()[:20]
    return Prepared(
        raw=raw,
        gz=gz,
        etag=f'"{tag}"',
        gz_etag=f'"{tag}-gz"',
        modified=int(path.stat().st_mtime),
        mimetype=mimetype,
    )


def mimetype_of(path: Path) -> str:
    """The ``Content-Type`` for ``path``, by its suffix."""
    known = TYPES.get(path.suffix.lower())
    if known is not None:
        return known
    import mimetypes  # only for a suffix the scorepad does not have today

    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return "application/javascript" if guessed == "text/javascript" else guessed


def prepare_all(root: Path = STATIC) -> dict[str, Prepared]:
    """Every file under ``root`` by its path relative to it (``views/x.js``)."""
    return {
        path.relative_to(root).as_posix(): prepare(path)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _not_modified(file: Prepared, req: Request) -> bool:
    tags = req.headers.get("If-None-Match")
    if tags is not None:
        sent = {tag.strip().removeprefix("W/") for tag in tags.split(",")}
        return "*" in sent or file.etag in sent or file.gz_etag in sent
    since = parse_date(req.headers.get("If-Modified-Since"))
    return since is not None and file.modified <= since.timestamp()


def answer(file: Prepared, req: Request, cache_control: str = CACHE_CONTROL) -> Response:
    """The answer to ``req`` for ``file``: gzip when the client takes it, 304 when current."""
    zipped = file.gz is not None and req.accept_encodings["gzip"] > 0
    headers = {
        "ETag": file.gz_etag if zipped else file.etag,
        "Last-Modified": http_date(file.modified),
        "Cache-Control": cache_control,
        "Vary": "Accept-Encoding",
    }
    if _not_modified(file, req):
        return Response(status=304, headers=headers)
    if zipped:
        headers["Content-Encoding"] = "gzip"
    body = file.gz if zipped and file.gz is not None else file.raw
    return Response(body, mimetype=file.mimetype, headers=headers)


def install(app: Flask, root: Path = STATIC) -> None:
    """Prepare ``root``'s files for ``app`` and serve them under ``/static/``."""
    app.extensions["static_files"] = prepare_all(root)
    app.register_blueprint(bp)


def send(name: str) -> Response:
    """Answer the current request with the prepared file ``name`` (404 if there is none)."""
    files: dict[str, Prepared] = current_app.extensions["static_files"]
    file = files.get(name)
    if file is None:
        abort(404)
    return answer(file, request)


@bp.get("/static/<path:name>")
def static(name: str) -> Response:
    """A file of the scorepad."""
    return send(name)
