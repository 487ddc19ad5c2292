"""The paho adapter against brokers that are not mosquitto 2: one that speaks only MQTT
3.1.1 (the link falls back), written here as a few lines of socket code."""

from __future__ import annotations

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


def test_messages_from_other_threads_go_out_in_order_each_once(mosquitto):
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

        bursts = (("a", 1), ("b", 0))  # in order within a QoS (paho's queue, as before)
        threads = [threading.Thread(target=burst, args=args) for args in bursts]
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


def test_a_new_connection_does_not_send_again_what_the_last_had_in_flight(mosquitto):
    from tests.mqtt_helpers import Listener

    up = threading.Event()
    link = PahoLink(
        Broker("127.0.0.1", mosquitto.port), "fresh", LinkHandlers(connected=up.set), backoff=1
    )
    link.start()
    try:
        assert up.wait(10)
        mosquitto.kill()
        for i in range(5):  # some may be queued before the link sees the broker gone
            link.publish("fresh/old", str(i), retain=True)
        up.clear()
        mosquitto.start()  # an empty broker
        assert up.wait(15)
        listener = Listener(mosquitto.port, ("fresh/#",))
        try:
            listener.wait_connected()
            assert link.publish("fresh/new", "now", retain=True)
            listener.wait_for(lambda: listener.on("fresh/new"))
            assert listener.on("fresh/old") == []  # not replayed to the new broker
        finally:
            listener.close()
    finally:
        link.stop()
