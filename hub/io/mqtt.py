"""The one module that imports paho-mqtt: a connection to an MQTT broker.

:class:`PahoLink` keeps one client connected on its own thread: it speaks MQTT 5 and
falls back to 3.1.1 when the broker does not; it reconnects with exponential backoff
(``backoff`` seconds, doubling up to ``max_backoff``), each connection a new paho client
(what the lost one still had in flight is dropped, not replayed after the owner's fresh
state); it sets the last will before every connect. Its callbacks only hand news to
whoever owns the link (the hub's publisher, the tournament board): they never touch
the table. Its fake, for tests of everything above it without a broker, is
``tests/doubles.py``'s ``RecordingLink``.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

log = logging.getLogger("hub.mqtt")

# The MQTT 5 properties of every JSON message, made once (paho only reads them).
_JSON_PROPERTIES = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
_JSON_PROPERTIES.ContentType = "application/json"


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
    while disconnected.
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
        self._served = False  # the current client got connected (a refusal backs off more)
        self._stopping = False
        self._stopped = threading.Event()
        self._client: paho.Client | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Connect in the background (an absent broker is retried with backoff)."""
        self._thread = threading.Thread(target=self._run, name="mqtt", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stopping:
            client = self._new_client()
            self._served = False
            with self._lock:
                if self._stopping:  # stop() came between two clients
                    return
                self._client = client
            client.connect_async(self.broker.host, self.broker.port, self.broker.keepalive)
            try:
                client.loop_forever(retry_first_connection=True)
            except Exception:  # a bug in a handler or in paho: log, rebuild, go on
                log.exception("mqtt: the network loop failed; reconnecting")
                self.connected = False
                self._stopped.wait(self.backoff[0])
                continue
            if self._stopping:
                return  # disconnect() was called: we are stopping
            if not self._fallback:
                # The connection was lost: the next one is a new client, so what this
                # one still had in flight (a state older than the table's) is not
                # replayed after the owner has republished the table as it is now.
                delay = self.backoff[0] if self._served else min(delay * 2, self.backoff[1])
                self._stopped.wait(delay)
                continue
            self._fallback = False
            self.protocol = "3.1.1"
            log.warning(
                "mqtt: %s:%s does not speak MQTT 5; using MQTT 3.1.1",
                self.broker.host,
                self.broker.port,
            )

    def _new_client(self) -> paho.Client:
        version = (
            MQTTProtocolVersion.MQTTv5 if self.protocol == "5" else MQTTProtocolVersion.MQTTv311
        )
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=version,
            reconnect_on_failure=False,  # a lost connection ends the loop: see _run
        )
        client.reconnect_delay_set(*self.backoff)
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
        self.connected = self._served = True
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
        """Send one message; False if it could not be queued (not connected, queue full)."""
        client = self._client
        if client is None or not self.connected:
            return False
        properties = _JSON_PROPERTIES if json and self.protocol == "5" else None
        info = client.publish(topic, payload, qos=qos, retain=retain, properties=properties)
        return info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS

    def stop(self, farewell: Will | None = None, timeout: float = 3.0) -> None:
        """Say ``farewell`` (e.g. ``offline``) if connected, disconnect, end the thread."""
        with self._lock:
            self._stopping = True
            client = self._client
        self._stopped.set()
        if client is not None:
            if farewell is not None and self.connected:
                info = client.publish(
                    farewell.topic, farewell.payload, qos=1, retain=farewell.retain
                )
                try:
                    info.wait_for_publish(timeout)
                except (RuntimeError, ValueError):
                    pass  # not connected after all: the will says it for us
            client.disconnect()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.connected = False
