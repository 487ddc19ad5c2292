"""The paho adapter against brokers that are not mosquitto 2: one that speaks only MQTT
3.1.1 (the link falls back), written here as a few lines of socket code."""

from __future__ import annotations

import signal
import socket
import threading

import pytest

from hub.io.mqtt import Broker, LinkHandlers, PahoLink

V5_REFUSED = bytes([0x20, 0x03, 0x00, 0x84, 0x00])  # MQTT 5: Unsupported Protocol Version
V3_REFUSED = bytes([0x20, 0x02, 0x00, 0x01])  # MQTT 3.1.1: unacceptable protocol version
ACCEPTED = bytes([0x20, 0x02, 0x00, 0x00])


class OldBroker:
    """Accepts MQTT 3.1.1 connections only; refuses version 5 as ``refusal`` says."""

    def __init__(self, refusal: bytes) -> None:
        self.refusal = refusal
        self.levels: list[int] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.accepted = threading.Event()
        self.kept: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            packet = conn.recv(1024)
            level = packet[2 + 2 + 4]  # header, length (< 128), "\0\4MQTT", level
            self.levels.append(level)
            if level == 5:
                conn.sendall(self.refusal)
                conn.close()
            else:
                conn.sendall(ACCEPTED)
                self.kept.append(conn)
                self.accepted.set()

    def close(self) -> None:
        self.server.close()
        for conn in self.kept:
            conn.close()


@pytest.mark.parametrize("refusal", [V5_REFUSED, V3_REFUSED], ids=["v5-refusal", "v3-refusal"])
def test_a_broker_without_mqtt_5_gets_3_1_1(refusal):
    broker = OldBroker(refusal)
    connected = threading.Event()
    link = PahoLink(
        Broker("127.0.0.1", broker.port),
        "old",
        LinkHandlers(connected=connected.set),
        backoff=1,
        max_backoff=1,
    )
    link.start()
    try:
        assert connected.wait(10)
        assert link.protocol == "3.1.1" and broker.levels[0] == 5 and broker.levels[-1] == 4
    finally:
        link.stop(timeout=2)
        broker.close()


def test_each_message_goes_out_at_once_nagle_off(mosquitto):
    """A QoS 0 message gets no PUBACK, so the broker's TCP acknowledgement of it waits
    (delayed ACK): with Nagle on, the next message would wait behind it."""
    up = threading.Event()
    link = PahoLink(Broker("127.0.0.1", mosquitto.port), "nodelay", LinkHandlers(connected=up.set))
    link.start()
    try:
        assert up.wait(10)
        assert link._client is not None
        sock = link._client.socket()
        assert sock is not None
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        link.stop()


def test_what_was_in_flight_when_the_broker_died_is_not_replayed(mosquitto):
    """The broker is frozen (no PUBACK comes), a retained message goes out and stays in
    flight, the broker dies and a new one starts. On the new connection the owner
    publishes the fresh value; the old message must not follow it (paho replays what a
    client had in flight, after its on_connect), or the retained value goes stale."""
    from tests.helpers import until
    from tests.mqtt_helpers import Listener

    connects: list[int] = []
    link = PahoLink(
        Broker("127.0.0.1", mosquitto.port, keepalive=5),
        "replay",
        LinkHandlers(),
        backoff=1,
        max_backoff=1,
    )

    def connected() -> None:  # the owner republishes at once, as the hub's publisher does
        connects.append(1)
        link.publish("t/state", f"fresh {len(connects)}", retain=True, qos=1)

    link.handlers.connected = connected
    link.start()
    try:
        until(lambda: link.connected, "the first connection")
        assert mosquitto.proc is not None
        mosquitto.proc.send_signal(signal.SIGSTOP)
        assert link.publish("t/state", "stale", retain=True, qos=1)  # no PUBACK: in flight
        assert link._client is not None
        client = link._client
        until(lambda: len(client._out_messages) > 0, "the message in flight")
        mosquitto.proc.send_signal(signal.SIGCONT)
        mosquitto.kill()
        mosquitto.start()
        until(lambda: len(connects) >= 2 and link.connected, "the new connection")
        listener = Listener(mosquitto.port, ("t/#",))
        try:
            listener.wait_for(lambda: listener.latest.get("t/state") is not None)
            # Anything replayed would land after the fresh one: give it its chance.
            link.publish("t/mark", "after", qos=1)
            listener.wait_for(lambda: listener.latest.get("t/mark") == b"after")
            assert listener.latest["t/state"] == f"fresh {len(connects)}".encode()
            assert b"stale" not in listener.on("t/state")
        finally:
            listener.close()
    finally:
        link.stop(timeout=2)


def test_messages_from_other_threads_go_out_in_order_each_once(mosquitto):
    """:meth:`PahoLink.publish` only queues for the link's thread (which runs paho's
    network loop): bursts from two threads arrive whole, in order within a QoS."""
    from tests.helpers import until
    from tests.mqtt_helpers import Listener

    listener = Listener(mosquitto.port, ("burst/#",))
    listener.wait_connected()
    up = threading.Event()
    link = PahoLink(Broker("127.0.0.1", mosquitto.port), "burst", LinkHandlers(connected=up.set))
    try:
        assert not link.publish("burst/early", "x")  # not connected yet: nothing queued
        link.start()
        assert up.wait(10)

        def burst(name: str, qos: int) -> None:
            for i in range(200):
                assert link.publish(f"burst/{name}", str(i), qos=qos)

        threads = [threading.Thread(target=burst, args=args) for args in (("a", 1), ("b", 0))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        listener.wait_for(lambda: len(listener.on("burst/a")) + len(listener.on("burst/b")) == 400)
        for name in ("a", "b"):
            assert listener.on(f"burst/{name}") == [str(i).encode() for i in range(200)]
        until(lambda: not link._outgoing, "the queue emptied")
    finally:
        link.stop()
        listener.close()
    assert not link.publish("burst/late", "x")  # stopped: nothing queued
