"""``mtrain-hub board --mqtt URL [--port N]``: serve the tournament board of every hub
publishing to one broker (docs/mqtt.md). Loaded only when asked for."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any

from hub.board.model import TournamentBoard
from hub.io.mqtt import Broker, LinkHandlers, PahoLink
from hub.mqtt.settings import parse_url
from hub.runtime.logs import VERBOSE

log = logging.getLogger("hub.board")
SPARE_THREADS = 4  # web threads no live page may take: page loads and /api/board


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The board's options."""
    parser.add_argument(
        "--mqtt",
        metavar="URL",
        required=True,
        help="the tournament's broker, e.g. mqtt://10.0.0.2:1883",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to serve on")
    parser.add_argument("--port", type=int, default=8090, help="port to serve on (8090)")
    parser.add_argument(
        "--hosts",
        default="",
        metavar="NAMES",
        help="more names the board answers to, comma-separated (besides any IP address, "
        "localhost, its machine name and <name>.local); other Host headers get 421",
    )
    parser.add_argument(
        "--base-topic", default="mtrain", help="the hubs' base topic (their [mqtt] base_topic)"
    )
    parser.add_argument("--username", default="", help="broker user name")
    parser.add_argument("--password-file", default="", help="file holding the password")
    parser.add_argument("--ca-file", default="", help="CA certificate for mqtts://")
    parser.add_argument(
        "--threads",
        type=int,
        default=64,
        help="web threads (64); each live board page holds one, and "
        f"{SPARE_THREADS} stay for page loads: pages beyond that "
        "update every few seconds instead of live",
    )
    parser.add_argument(*VERBOSE, action="store_true")


def hosts(args: argparse.Namespace) -> list[str]:
    """The names ``--hosts`` gives the board, besides its own."""
    return [name.strip() for name in args.hosts.split(",") if name.strip()]


def _broker(args: argparse.Namespace) -> Broker:
    host, port, tls = parse_url(args.mqtt)
    password = ""
    if args.password_file:
        try:
            with open(args.password_file) as f:
                password = f.read().strip()
        except OSError as exc:
            raise ValueError(f"--password-file: {args.password_file}: {exc.strerror}") from None
    return Broker(
        host=host,
        port=port,
        username=args.username,
        password=password,
        tls=tls or bool(args.ca_file),
        ca_file=args.ca_file,
    )


def _checked(args: argparse.Namespace) -> Broker:
    """The broker the options name, once ``--port`` and ``--threads`` are in range; a
    ``ValueError`` says which option is wrong."""
    broker = _broker(args)
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port: {args.port} is not 1 to 65535")
    if not SPARE_THREADS < args.threads <= 1000:
        raise ValueError(f"--threads: {args.threads} is not {SPARE_THREADS + 1} to 1000")
    return broker


def connect(board: TournamentBoard, broker: Broker, client_id: str = "") -> PahoLink:
    """A started link that feeds ``board`` everything the hubs publish."""
    import os

    handlers = LinkHandlers(
        connected=lambda: board.post_connected(True),
        disconnected=lambda: board.post_connected(False),
        message=board.post,
    )  # paho's thread only posts
    # QoS 1, not 0: at QoS 0 the board never writes to the broker, so the kernel holds
    # back its TCP acknowledgements (up to 40 ms on Linux) and the broker's Nagle
    # (mosquitto's set_tcp_nodelay is false by default) holds every next message behind
    # them: 40 ms stalls once messages come faster than one per round trip. Each PUBACK
    # carries the acknowledgement at once. Retained topics come again on a reconnect.
    link = PahoLink(
        broker,
        client_id or f"mtrain-board-{os.getpid()}",
        handlers,
        subscriptions=board.subscriptions(),
        subscribe_qos=1,
    )
    link.start()
    return link


def board_server(app: Any, host: str, port: int, threads: int, **options: Any) -> Any:
    """The hub's own web server (:func:`hub.http.server.make_server`) for the board: idle
    connections closed after 30 s, the least active closed to make room when every one is
    taken, a request cut when it trickles in, so idle sockets never lock the board out.
    Each live page holds a worker (the board streams from its handler), so all
    ``threads`` start at once."""
    from hub.http.server import make_server

    return make_server(app, host, port, threads, streams=0, **options)


def command(args: argparse.Namespace) -> int:
    """Serve the board until SIGINT/SIGTERM."""
    from hub.board.app import create_board_app

    try:
        broker = _checked(args)
    except ValueError as exc:
        print(f"mtrain-hub board: {exc}", file=sys.stderr)
        return 2
    # The broker's thread and the live streams take turns often: hand the GIL over every
    # 0.5 ms, not 5 ms (as the hub does), or a busy broker holds every phone back.
    sys.setswitchinterval(0.0005)
    board = TournamentBoard(args.base_topic)
    stopping = threading.Event()
    board.start(stopping)  # the one writer of the board's state
    link = connect(board, broker)
    app = create_board_app(
        board, stopping, most_streams=args.threads - SPARE_THREADS, hosts=hosts(args)
    )
    server = board_server(app, args.host, args.port, args.threads)

    def stop(*_: object) -> None:
        stopping.set()  # live streams end within a second
        if not server.stop_soon():  # serving: the loop ends between its callbacks
            sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "tournament board at http://%s:%s/ (broker %s)",
        "localhost" if args.host == "0.0.0.0" else args.host,
        server.effective_port,
        args.mqtt,
    )
    try:
        server.run()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        stopping.set()
        server.close()
        link.stop()
    return 0
