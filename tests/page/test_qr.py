"""The join QR code's address uses ``mtrain.local`` when that name leads to this hub."""

from __future__ import annotations

import threading

import pytest

from web import qr

LAN = "192.168.1.20"


@pytest.mark.parametrize(
    "host, url",
    [
        ("192.168.1.20", "http://mtrain.local/"),  # opened by address: the name reads better
        ("192.168.1.20:8080", "http://mtrain.local:8080/"),
        ("localhost", "http://mtrain.local:9000/"),  # the browser on the Pi itself
        ("127.0.0.1:80", "http://mtrain.local/"),
        ("[::1]", "http://mtrain.local:9000/"),
        ("mtrain.local", "http://mtrain.local/"),
        ("hub.example.org:8080", "http://hub.example.org:8080/"),  # a name the phone chose
        (None, "http://mtrain.local:9000/"),
    ],
)
def test_hub_url_prefers_the_mdns_name(host, url):
    assert qr.hub_url(host, 9000, LAN, "mtrain.local") == url


def test_hub_url_without_the_name_is_unchanged():
    assert qr.hub_url("192.168.1.20", 80, LAN, None) == "http://192.168.1.20/"
    assert qr.hub_url("localhost", 80, LAN, None) == "http://192.168.1.20/"


class Resolver:
    """A stand-in for getaddrinfo: answers from a table and counts the questions."""

    def __init__(self, answers: dict[str, set[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, name: str) -> set[str]:
        self.asked.append(name)
        self.gate.wait(5)
        return self.answers.get(name, set())


def test_local_name_is_used_only_when_it_leads_here():
    resolver = Resolver({"mtrain.local": {LAN}})
    now = [0.0]
    name = qr.LocalName(
        hostname=lambda: "mtrain", resolve=resolver, ttl_s=60, wait_s=5, clock=lambda: now[0]
    )
    assert name.get(LAN) == "mtrain.local"
    assert name.get(LAN) == "mtrain.local" and resolver.asked == ["mtrain.local"]  # cached
    assert name.get("10.0.0.9") is None  # it leads to another machine (a second hub)
    assert name.get(None) is None
    now[0] = 120.0
    resolver.answers = {}
    assert name.get(LAN) is None and len(resolver.asked) == 3  # asked again after the TTL


def test_a_slow_lookup_never_holds_the_page():
    resolver = Resolver({"mtrain.local": {LAN}})
    resolver.gate.clear()  # no answer yet
    name = qr.LocalName(hostname=lambda: "mtrain", resolve=resolver, wait_s=0.05)
    assert name.get(LAN) is None  # the page goes on with the address
    resolver.gate.set()
    lookup = name._lookup
    assert lookup is not None
    lookup.join(5)
    assert name.get(LAN) == "mtrain.local"
    assert resolver.asked == ["mtrain.local"]


def test_loopback_host_names_are_never_announced():
    resolver = Resolver({"localhost.local": {LAN}})
    name = qr.LocalName(hostname=lambda: "localhost", resolve=resolver, wait_s=5)
    assert name.get(LAN) is None


@pytest.mark.parametrize(
    ("listen", "host", "url", "local"),
    [
        (None, "192.168.1.20:8080", "http://192.168.1.20:8080/", False),
        ("0.0.0.0", "localhost:9000", "http://192.168.1.20:9000/", False),
        ("::", None, "http://192.168.1.20:9000/", False),
        # bound to loopback: only this machine reaches it, whatever the LAN address
        ("127.0.0.1", "127.0.0.1:9000", "http://127.0.0.1:9000/", True),
        ("127.0.0.1", "localhost:9000", "http://localhost:9000/", True),
        ("127.0.0.1", None, "http://127.0.0.1:9000/", True),
        ("::1", None, "http://[::1]:9000/", True),
        ("localhost", None, "http://localhost:9000/", True),
        # bound to one address: that one, never another of the machine's
        ("10.0.0.5", "localhost:9000", "http://10.0.0.5:9000/", False),
        ("10.0.0.5", "192.168.1.20:9000", "http://10.0.0.5:9000/", False),
        ("10.0.0.5", "hub.example.org:9000", "http://hub.example.org:9000/", False),
    ],
)
def test_the_address_given_is_where_the_hub_listens(listen, host, url, local):
    assert qr.advertised(listen, host, 9000, LAN, None) == (url, local)


def test_the_mdns_name_only_for_the_address_it_leads_to():
    assert qr.advertised(LAN, None, 80, LAN, "mtrain.local") == ("http://mtrain.local/", False)
    assert qr.advertised("10.0.0.5", None, 80, LAN, "mtrain.local") == ("http://10.0.0.5/", False)
