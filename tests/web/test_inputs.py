"""Every input checked at the edge: names, JSON bodies, ids in paths, query parameters."""

from __future__ import annotations

import json

import pytest

from scorer.inputs import MAX_DEPTH, BadInput, depth, parse_body, query_whole
from scorer.names import BadName, clean, first_clash, skeleton
from scorer.setup import SetupError, check_setup

# --- names ------------------------------------------------------------------------------


def test_names_are_nfc_and_trimmed() -> None:
    assert clean(" Ame\u0301lie ") == "Amélie"
    assert check_setup({"players": ["Ame\u0301lie", "Bo"]}).players == ("Amélie", "Bo")


@pytest.mark.parametrize(
    "name, char",
    [
        ("An\u200bn", "U+200B ZERO WIDTH SPACE"),
        ("Ann\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("A\x00nn", "U+0000"),
        ("A\tnn", "U+0009"),
        ("Ann\u2028", "U+2028 LINE SEPARATOR"),
        ("Ann\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("Ann\ue000", "U+E000"),  # private use
        ("Ann\U000e0001", "U+E0001 LANGUAGE TAG"),  # a format character
        ("Ann\ud800", "U+D800"),  # a lone surrogate, as JSON "\ud800" gives it
        ("Ann\u0378", "U+0378"),  # unassigned
    ],
)
def test_invisible_and_control_characters_are_refused(name: str, char: str) -> None:
    with pytest.raises(BadName, match="invisible or control character") as info:
        clean(name, "players")
    assert char in str(info.value) and info.value.field == "players"
    with pytest.raises(SetupError) as setup_info:
        check_setup({"players": [name, "Bo"]})
    assert setup_info.value.field == "players"


@pytest.mark.parametrize(
    "one, other",
    [
        ("Ann", "ANN"),
        ("Ann", "Аnn"),  # Cyrillic A
        ("Ola", "Оla"),  # Cyrillic O
        ("Pepe", "Рере"),  # Cyrillic Er and Ie
        ("Tao", "Τaο"),  # Greek Tau and omicron
        ("Fifi", "ﬁﬁ"),  # the ligature (NFKC)
        ("Ann", "Ａｎｎ"),  # full width (NFKC)
        ("Anna Lee", "Anna  Lee"),
        ("Strasse", "Straße"),  # casefold
    ],
)
def test_names_that_look_the_same_are_refused(one: str, other: str) -> None:
    assert first_clash([one, other]) == (one, other)
    with pytest.raises(SetupError) as info:
        check_setup({"players": [one, other]})
    assert info.value.field == "players" and repr(other) in str(info.value)


def test_names_that_differ_are_kept() -> None:
    names = ["Ann", "Anne", "Иван", "Σοφία", "李雷", "أحمد", "🦊 Fox", "Zoë", "Zoe"]
    assert first_clash(names[:8]) is None
    assert skeleton("Zoë") != skeleton("Zoe")
    assert check_setup({"players": names[:8]}).players == tuple(names[:8])


def test_mexican_in_disguise_is_refused() -> None:
    with pytest.raises(SetupError, match="Mexican Train"):
        check_setup({"players": ["Mеxican", "Bo"]})  # Cyrillic e


def test_names_that_mean_something_to_javascript_are_plain_names() -> None:
    names = [
        "__proto__",
        "constructor",
        "toString",
        "<img src=x onerror=f()>",
        '"quoted"',
        "x" * 24,
    ]
    assert check_setup({"players": names}).players == tuple(names)


# --- JSON bodies ------------------------------------------------------------------------


def test_depth_counts_brackets_outside_strings() -> None:
    assert depth(b'{"a": [1, {"b": "[[[{{{"}]}') == 3
    assert depth(b'{"a": "\\"[["}') == 1


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (b"[" * 100000, f"nested more than {MAX_DEPTH}"),
        (b'{"a":' * 33 + b"1" + b"}" * 33, f"nested more than {MAX_DEPTH}"),
        (b'{"players": [], "players": []}', "'players' appears twice"),
        (b'{"hold_ms": NaN}', "NaN is not a number"),
        (b'{"hold_ms": -Infinity}', "-Infinity is not a number"),
        (b'{"hold_ms": 1e400}', "too large"),
        (b'{"hold_ms": ' + b"9" * 5000 + b"}", "too large"),
        (b'{"hold_ms": 9007199254740993}', "too large"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1]", "expected a JSON object"),
        (b"{", "not valid JSON"),
    ],
)
def test_bad_bodies_are_refused(raw: bytes, fragment: str) -> None:
    with pytest.raises(BadInput, match="^body: ") as info:
        parse_body(raw)
    assert fragment in str(info.value)


def test_good_bodies_pass() -> None:
    nested = b'{"a":' * 31 + b"1" + b"}" * 31
    assert depth(nested) == 31 and parse_body(nested)
    assert parse_body(b"  ") == {}
    assert parse_body(b'{"n": 9007199254740992, "f": 0.5}') == {"n": 2**53, "f": 0.5}


@pytest.mark.parametrize(
    "raw", ["", "x", "1.5", "-1", "0", "2001", "١٢", "１２", "²", "1_0", "9" * 5000]
)
def test_query_numbers_are_ascii_digits_in_range(raw: str) -> None:
    with pytest.raises(BadInput) as info:
        query_whole(raw, "limit", 1, 2000)
    assert info.value.field == "limit"
    assert query_whole(" 12 ", "limit", 1, 2000) == 12


# --- over HTTP --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/2147483648",
        "/api/games/99999999999999999999999999",
        "/api/games/-1",
        "/api/games/1/rounds/2147483648/history",
        "/api/games/" + "9" * 5000 + "/export.csv",
    ],
)
def test_ids_beyond_bounds_are_404(client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"


def test_a_huge_slot_is_404(client) -> None:
    for slot in ("99999999999999999999999", "-99999999999999999999999"):
        assert client.post(f"/api/sim/slots/{slot}/press", json={}).status_code == 404


@pytest.mark.parametrize("query", ["limit=" + "9" * 5000, "limit=%C2%B2", "limit=%EF%BC%91"])
def test_log_limit_is_checked(client, query: str) -> None:
    response = client.get(f"/api/log?{query}")
    assert response.status_code == 400 and response.get_json()["field"] == "limit"


@pytest.mark.parametrize("query", ["players=%C2%B2", "players=" + "9" * 5000, "set=%C2%B2"])
def test_deal_query_is_checked(client, query: str) -> None:
    assert client.get(f"/api/deal?{query}").status_code == 400


def test_a_deep_body_is_a_400_naming_the_body(client) -> None:
    response = client.post("/api/games", data=b"[" * 60000, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json() == {
        "error": "too_deep",
        "params": {"most": MAX_DEPTH},
        "message": f"That is nested too deeply (at most {MAX_DEPTH} levels).",
    }


def test_handover_bounds_the_game_id(client) -> None:
    response = client.post("/api/join/handover", json={"game": 2**40, "token": "x"})
    assert response.status_code == 400 and response.get_json()["field"] == "game"


def _start(client, players: list[str]) -> tuple[int, str]:
    r = client.post("/api/games", json={"players": players})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    return body["id"], body["token"]


def test_score_bodies_key_names_as_the_game_does(client) -> None:
    game, token = _start(client, ["Amélie", "Bo"])
    auth = {"Authorization": f"Bearer {token}"}
    decomposed = "Ame\u0301lie"
    r = client.post(
        f"/api/games/{game}/rounds/1/scores",
        headers=auth,
        json={"points": {decomposed: 0, "Bo": 12}, "went_out": decomposed, "mid_round": True},
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["rounds"][0]["points"] == {"Amélie": 0, "Bo": 12}
    twice = json.dumps({"points": {decomposed: 0, "Amélie": 1, "Bo": 3}, "mid_round": True})
    r = client.post(
        f"/api/games/{game}/rounds/1/scores",
        headers=auth,
        data=twice,
        content_type="application/json",
    )
    assert r.status_code == 400 and r.get_json()["field"] == "points.Amélie"
    r = client.post(
        f"/api/games/{game}/rounds/1/scores",
        headers=auth,
        json={"points": {"Bo\u200b": 3, "Amélie": 0}, "mid_round": True},
    )
    assert r.status_code == 400 and r.get_json()["field"] == "points.Bo\u200b"
