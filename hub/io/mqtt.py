"""The one module that imports paho-mqtt: a connection to an MQTT broker.

:class:`PahoLink` keeps one client connected on its own thread: it speaks MQTT 5 and
falls back to 3.1.1 when the broker does not; it reconnects with exponential backoff
(``backoff`` seconds, doubling up to ``max_backoff``), each connection a new paho client
(what the lost one still had in flight or queued is dropped, not replayed after the
owner's fresh state); it sets the last will before every connect. Its callbacks only
hand news to whoever owns the link (the hub's publisher, the tournament board): they
never touch the table. Its fake, for tests of everything above it without a broker, is
``tests/doubles.py``'s ``RecordingLink``.

The link's thread runs paho's network loop itself (paho's "external event loop":
``loop_read``, ``loop_write``, ``loop_misc`` around one ``select``), and every message
is handed to paho on that thread: :meth:`PahoLink.publish` only queues it and wakes
the thread (once per burst). Paho's own ``loop_forever`` with ``publish`` called from
another thread had cost ~2x the CPU per QoS 1 message here (a wake of paho's thread
per publish, and its locks contended by the PUBACKs: docs/performance.md).
"""

from __future__ import annotations

import logging
import select
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

_monotonic = time.monotonic

log = logging.getLogger("hub.mqtt")

# The MQTT 5 properties of every JSON message, made once (paho only reads them).
_JSON_PROPERTIES = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
_JSON_PROPERTIES.ContentType = "application/json"

_TICK_S = 1.0  # the longest the thread sleeps: paho's keepalive is checked this often


def _no_delay(_client: paho.Client, _userdata: Any, sock: Any) -> None:
    """Each message goes out at once (TCP_NODELAY; paho leaves Nagle on): a message at
    QoS 0 gets no PUBACK, so the broker's TCP acknowledgement of it is delayed (up to
    40 ms) and Nagle would hold the next message behind it."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # not a TCP socket (a test's stand-in)
        pass


# CONNACK codes that mean "this broker does not speak that protocol version": 1 in
# MQTT 3.1.1, 0x84 (Unsupported Protocol Version) in MQTT 5.
_BAD_PROTOCOL = (1, 0x84)


@dataclass(frozen=True)
class Broker:
    """Where and how to connect: host, port, keepalive, credentials, TLS."""

    host: str
    port: int = 1883
    keepalive: int = 60
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""


@dataclass(frozen=True)
class Will:
    """The message the broker publishes for us if we vanish without a goodbye."""

    topic: str
    payload: str
    retain: bool = True


@dataclass
class LinkHandlers:
    """What the link tells its owner, each called on the link's own thread."""

    connected: Callable[[], None] = lambda: None
    disconnected: Callable[[], None] = lambda: None
    message: Callable[[str, bytes], None] = lambda topic, payload: None
    # A message the broker kept (retained) and hands over at (re)subscribing, not one
    # published now; None: such messages go to ``message`` like any other.
    retained: Callable[[str, bytes], None] | None = None


class PahoLink:
    """One MQTT connection on its own thread (paho-mqtt 2), reconnecting forever.

    ``subscriptions`` are (re)subscribed on every connect, at ``subscribe_qos``: 1 for
    the board too, whose acknowledgements carry the TCP ACKs a QoS 0 reader would leave
    delayed behind mosquitto's Nagle (docs/mqtt.md).
    :meth:`publish` may be called from any thread; it returns False (and sends nothing)
    while disconnected; a message queued or in flight as the connection drops is lost
    (the owner republishes what it keeps at the next connect).
    """

    def __init__(
        self,
        broker: Broker,
        client_id: str,
        handlers: LinkHandlers,
        *,
        will: Will | None = None,
        subscriptions: tuple[str, ...] = (),
        backoff: int = 1,
        max_backoff: int = 30,
        max_queued: int = 1000,
        subscribe_qos: int = 1,
    ) -> None:
        self.broker = broker
        self.client_id = client_id
        self.handlers = handlers
        self.will = will
        self.subscriptions = subscriptions
        self.backoff = (backoff, max_backoff)
        self.max_queued = max_queued
        self.subscribe_qos = subscribe_qos
        self.protocol = "5"
        self.connected = False
        self._fallback = False
        self._stopping = False
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: paho.Client | None = None  # the connection's client (its thread's)
        # Messages for the thread to hand to paho: (topic, payload, qos, retain, json).
        self._outgoing: deque[tuple[str, str | bytes, int, bool, bool]] = deque()
        self._woken = False  # a wake is on its way (see publish)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._farewell: Will | None = None
        self._farewell_timeout = 3.0

    def start(self) -> None:
        """Connect in the background (an absent broker is retried with backoff)."""
        self._thread = threading.Thread(target=self._run, name="mqtt", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        delay = self.backoff[0]
        try:
            while not self._stopping:
                client = self._client = self._new_client()
                try:
                    served = self._serve(client)
                except Exception:  # a bug in a handler or in paho: log, rebuild, go on
                    log.exception("mqtt: the network loop failed; reconnecting")
                    self.connected = False
                    self._close(client)
                    self._stopped.wait(self.backoff[0])
                    continue
                if served:  # it was connected: the next connection starts afresh
                    delay = self.backoff[0]
                if not self._fallback:
                    self._stopped.wait(delay)  # lost, or could not connect: back off
                    delay = min(delay * 2, self.backoff[1])
                    continue
                self._fallback = False
                self.protocol = "3.1.1"
                log.warning(
                    "mqtt: %s:%s does not speak MQTT 5; using MQTT 3.1.1",
                    self.broker.host,
                    self.broker.port,
                )
        finally:
            self._close_wake()

    def _close_wake(self) -> None:
        self._wake_r.close()
        self._wake_w.close()

    def _serve(self, client: paho.Client) -> bool:
        """Connect ``client`` and run its network loop until the link stops (its
        farewell said), the connection ends or the broker wants MQTT 3.1.1; whether
        it was connected. Each connection is a new client: what the last one had in
        flight is not sent again after the table as it is now (the publisher
        re-publishes every retained topic at each connect)."""
        # What was queued for the last connection (lost, or its loop failed) is not
        # sent on this one: the owner republishes the table as it is now, and an older
        # state sent after it would stay retained (docs/mqtt.md). Nothing is queued
        # while disconnected.
        self._outgoing.clear()
        try:
            client.connect(self.broker.host, self.broker.port, self.broker.keepalive)
        except OSError as exc:
            log.debug("mqtt: cannot connect to %s:%s: %s", *self._where(), exc)
            return False
        served = False
        while not self._stopping and client.socket() is not None:
            self._turn(client, _TICK_S)
            served = served or self.connected
        if self._stopping:
            self._say_farewell(client)
        else:
            self.connected = False
            self._close(client)
        return served

    def _turn(self, client: paho.Client, timeout: float) -> None:
        """One turn of the network loop: wait for the broker, a message to send or
        ``timeout``; then read, hand over what is queued, write, keep alive."""
        sock = client.socket()
        if sock is None:
            return
        pending = getattr(sock, "pending", None)  # TLS: bytes already decrypted
        if pending is not None and pending() > 0:
            timeout = 0.0
        writing = [sock] if client.want_write() else []
        readable, writable, _ = select.select([sock, self._wake_r], writing, [], timeout)
        if sock in readable or (pending is not None and pending() > 0):
            client.loop_read()
        if self._wake_r in readable:
            self._take_outgoing(client)
        if client.socket() is not None and (writable or client.want_write()):
            client.loop_write()
        if client.socket() is not None:
            client.loop_misc()

    def _take_outgoing(self, client: paho.Client) -> None:
        """Hand every queued message to paho (it writes it at once when it can)."""
        try:
            while self._wake_r.recv(4096):
                pass
        except BlockingIOError:
            pass
        self._woken = False  # before the queue is read: see publish
        while self._outgoing:
            topic, payload, qos, retain, is_json = self._outgoing.popleft()
            properties = _JSON_PROPERTIES if is_json and self.protocol == "5" else None
            client.publish(topic, payload, qos=qos, retain=retain, properties=properties)

    def _say_farewell(self, client: paho.Client) -> None:
        """Stopping: send what is queued and the farewell (waiting a little for the
        broker to have it), then disconnect."""
        farewell, timeout = self._farewell, self._farewell_timeout
        if client.socket() is not None and self.connected:
            self._take_outgoing(client)
            if farewell is not None:
                info = client.publish(
                    farewell.topic, farewell.payload, qos=1, retain=farewell.retain
                )
                deadline = _monotonic() + timeout
                while not info.is_published() and client.socket() is not None:
                    left = deadline - _monotonic()
                    if left <= 0:
                        break
                    self._turn(client, min(left, _TICK_S))
            client.disconnect()
            while client.socket() is not None and client.want_write():
                if client.loop_write() != MQTTErrorCode.MQTT_ERR_SUCCESS:
                    break
        self._close(client)

    @staticmethod
    def _close(client: paho.Client) -> None:
        sock = client.socket()
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _where(self) -> tuple[str, int]:
        return self.broker.host, self.broker.port

    def _new_client(self) -> paho.Client:
        version = (
            MQTTProtocolVersion.MQTTv5 if self.protocol == "5" else MQTTProtocolVersion.MQTTv311
        )
        client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=version
        )
        client.max_queued_messages_set(self.max_queued)
        if self.broker.username:
            client.username_pw_set(self.broker.username, self.broker.password or None)
        if self.broker.tls:
            client.tls_set(
                ca_certs=self.broker.ca_file or None, tls_version=ssl.PROTOCOL_TLS_CLIENT
            )
        if self.will is not None:
            client.will_set(self.will.topic, self.will.payload, qos=1, retain=self.will.retain)
        client.on_connect = self._on_connect
        client.on_socket_open = _no_delay
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _on_connect(
        self, client: paho.Client, _userdata: Any, _flags: Any, reason: Any, _properties: Any = None
    ) -> None:
        if reason.is_failure:
            if self.protocol == "5" and reason.value in _BAD_PROTOCOL:
                self._fallback = True
                client.disconnect()
                return
            log.warning(
                "mqtt: %s:%s refused the connection: %s", self.broker.host, self.broker.port, reason
            )
            return
        log.info(
            "mqtt: connected to %s:%s (MQTT %s)", self.broker.host, self.broker.port, self.protocol
        )
        for topic in self.subscriptions:
            client.subscribe(topic, qos=self.subscribe_qos)
        self.connected = True
        self.handlers.connected()

    def _on_disconnect(
        self,
        _client: paho.Client,
        _userdata: Any,
        _flags: Any,
        reason: Any,
        _properties: Any = None,
    ) -> None:
        was = self.connected
        self.connected = False
        if was and not self._stopping:
            log.warning(
                "mqtt: lost the broker %s:%s (%s); reconnecting",
                self.broker.host,
                self.broker.port,
                reason,
            )
            self.handlers.disconnected()

    def _on_message(self, _client: paho.Client, _userdata: Any, message: paho.MQTTMessage) -> None:
        if message.retain and self.handlers.retained is not None:
            self.handlers.retained(message.topic, bytes(message.payload))
        else:
            self.handlers.message(message.topic, bytes(message.payload))

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        *,
        retain: bool = False,
        qos: int = 1,
        json: bool = False,
    ) -> bool:
        """Queue one message for the link's thread; False (nothing queued) while
        disconnected or past ``max_queued`` messages waiting."""
        if not self.connected or len(self._outgoing) >= self.max_queued:
            return False
        # One wake per burst: the thread clears the flag before it empties the queue,
        # so a message appended while the flag was set is taken in that pass.
        self._outgoing.append((topic, payload, qos, retain, json))
        if not self._woken:
            self._woken = True
            try:
                self._wake_w.send(b"\0")
            except OSError:  # already woken (buffer full), or stopping
                pass
        return True

    def stop(self, farewell: Will | None = None, timeout: float = 3.0) -> None:
        """Say ``farewell`` (e.g. ``offline``) if connected, disconnect, end the thread."""
        self._farewell, self._farewell_timeout = farewell, timeout
        self._stopping = True
        self._stopped.set()
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass
        if self._thread is not None:
            self._thread.join(timeout + 1.0)
            self._thread = None
        else:
            self._close_wake()  # never started: nothing else closes them
        self.connected = False
