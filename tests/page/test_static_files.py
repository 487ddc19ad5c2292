"""The scorepad's files: gzipped once at start, with validators, and 304 when unchanged."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from web import static_files

STATIC = Path(static_files.__file__).resolve().parent / "static"
NAMES = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*") if p.is_file())
GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def url(name: str) -> str:
    return "/" if name == "index.html" else f"/static/{name}"


@pytest.mark.parametrize("name", NAMES)
def test_each_file_goes_out_gzipped_with_validators(client, name):
    raw = (STATIC / name).read_bytes()
    answer = client.get(url(name), headers=GZIP)
    assert answer.status_code == 200
    assert answer.headers["Vary"] == "Accept-Encoding"
    assert answer.headers["Cache-Control"] == "no-cache"
    assert answer.headers["ETag"].startswith('"') and answer.headers["Last-Modified"]
    body = answer.get_data()
    if answer.headers.get("Content-Encoding") == "gzip":
        assert gzip.decompress(body) == raw and len(body) < len(raw)
    else:  # only where gzip would not make it smaller
        assert body == raw and len(gzip.compress(raw, 9)) >= len(raw)


@pytest.mark.parametrize("name", ["index.html", "app.js", "app.css"])
def test_text_files_compress_and_plain_clients_get_plain_bytes(client, name):
    raw = (STATIC / name).read_bytes()
    zipped = client.get(url(name), headers=GZIP)
    plain = client.get(url(name), headers={"Accept-Encoding": "identity"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in plain.headers and plain.get_data() == raw
    assert plain.headers["ETag"] != zipped.headers["ETag"]  # two representations
    assert "charset=utf-8" in plain.headers["Content-Type"]


def test_a_reload_fetches_nothing_unchanged(client):
    for name in NAMES:
        first = client.get(url(name), headers=GZIP)
        again = client.get(url(name), headers={**GZIP, "If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and again.get_data() == b"", name
        assert again.headers["ETag"] == first.headers["ETag"]
        since = client.get(
            url(name), headers={**GZIP, "If-Modified-Since": first.headers["Last-Modified"]}
        )
        assert since.status_code == 304, name


def test_a_changed_file_is_sent_again(client):
    first = client.get("/static/app.js", headers=GZIP)
    other = client.get("/static/app.js", headers={**GZIP, "If-None-Match": '"not-this-one"'})
    assert first.status_code == other.status_code == 200
    assert other.get_data() == first.get_data()


def test_gzip_is_prepared_once_not_per_request(client, monkeypatch):
    calls = []
    monkeypatch.setattr(static_files.zlib, "compress", lambda *a, **k: calls.append(a))
    for _ in range(3):
        assert client.get("/static/app.css", headers=GZIP).status_code == 200
    assert calls == []


def test_unknown_files_are_404(client):
    for path in ["/static/nope.js", "/static/../__init__.py", "/static/"]:
        assert client.get(path).status_code == 404, path


def test_types(client):
    assert client.get("/static/app.js").mimetype == "application/javascript"
    assert client.get("/static/app.css").mimetype == "text/css"
    assert client.get("/").mimetype == "text/html"


@pytest.mark.parametrize("name", NAMES)
def test_each_file_has_its_type_from_the_table_as_mimetypes_would_say(name):
    import mimetypes

    path = STATIC / name
    assert path.suffix in static_files.TYPES  # not from the machine's own mime table
    guessed = mimetypes.guess_type(path.name)[0]
    assert static_files.mimetype_of(path) == (
        "application/javascript" if guessed == "text/javascript" else guessed
    )


def test_a_suffix_not_in_the_table_asks_mimetypes(tmp_path):
    assert static_files.mimetype_of(tmp_path / "song.mp3") == "audio/mpeg"
    assert static_files.mimetype_of(tmp_path / "blob.nosuchtype") == "application/octet-stream"
