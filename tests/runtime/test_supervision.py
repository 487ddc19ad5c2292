"""``mtrain-hub run`` as a service: exit statuses, the start line, journal-level logs."""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from hub.cli import EXIT_CONFIG, EXIT_STORAGE
from hub.cli.main import main
from hub.runtime import logs
from hub.runtime.notify import Notifier
from hub.runtime.supervision import Supervision, start_line


def test_exit_statuses_are_the_units(tmp_path, capsys):
    assert (EXIT_CONFIG, EXIT_STORAGE) == (2, 3)  # RestartPreventExitStatus=2 3
    bad = tmp_path / "bad.toml"
    bad.write_text("[web]\nport = 0\n")
    assert main(["run", "--config", str(bad), "--state-dir", str(tmp_path)]) == EXIT_CONFIG
    assert "config error: web.port" in capsys.readouterr().err


def test_start_line_names_version_backend_devices_broker_address(make_hub):
    hub = make_hub()

    def start_line_of(host, port):
        leds = type(hub.leds).__name__
        return start_line(hub.config, hub.backend, hub.sound.status(), leds, host, port, "1.0")

    line = start_line_of("0.0.0.0", 80)
    assert line.startswith("mtrain-hub 1.0: ")
    for part in (
        "backend sim",
        "sound",
        "serial none",
        "leds",
        "mqtt off",
        "scorepad on http://0.0.0.0:80/",
    ):
        assert part in line, line
    hub.config["mqtt"]["host"] = "broker.lan"
    assert "mqtt broker.lan:1883" in start_line_of("127.0.0.1", 8080)
    hub.config["mqtt"]["url"] = "mqtts://hub:s3cret@broker.lan:8883"
    line = start_line_of("127.0.0.1", 8080)
    assert "mqtt mqtts://broker.lan:8883" in line and "s3cret" not in line


def test_supervision_installs_no_signal_hook(make_hub):
    hub = make_hub(threaded=True)
    before = signal.getsignal(signal.SIGUSR2)
    supervision = Supervision(hub.loop.call, hub.loop.beat, lambda host, port: "x: y", Notifier({}))
    supervision.start()
    supervision.listening("127.0.0.1", 8080)
    supervision.stopping()
    supervision.stop()
    assert signal.getsignal(signal.SIGUSR2) is before  # the freeze hook is the tests' own
    assert "leds NoRing" in start_line(
        hub.config, "sim", {"available": True}, "NoRing", "", 80, "1.0"
    )


def test_journal_lines_carry_the_priority_on_every_line():
    formatter = logs.JournalFormatter()
    record = logging.LogRecord("hub", logging.WARNING, __file__, 1, "a\nb", None, None)
    assert formatter.format(record) == "<4>hub: a\n<4>b"
    assert [logs.priority(level) for level in (5, 10, 20, 25, 30, 40, 50)] == [7, 7, 6, 6, 4, 3, 2]


def test_journal_stream_must_name_stderr(tmp_path):
    with (tmp_path / "stream").open("w") as stream:
        info = os.fstat(stream.fileno())
        assert logs.under_journal(stream, {"JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}"})
        assert not logs.under_journal(stream, {"JOURNAL_STREAM": f"{info.st_dev}:1"})
        assert not logs.under_journal(stream, {"JOURNAL_STREAM": "nonsense"})
        assert not logs.under_journal(stream, {})
        logs.print_error("no\nway", stream, {"JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}"})
    assert (tmp_path / "stream").read_text() == "<3>no\n<3>way\n"
    terminal = io.StringIO()
    logs.print_error("plain", terminal, {})
    assert terminal.getvalue() == "plain\n"


def test_python_warnings_reach_the_journal_with_a_priority(tmp_path):
    """A library's warning under systemd: through logging, ``<4>``, not a bare line."""
    probe = (
        "import sys, warnings\n"
        "from hub.runtime import logs\n"
        "assert logs.configure()\n"
        "warnings.warn('gpiozero fell back', RuntimeWarning)\n"
    )
    journal = tmp_path / "journal"
    with journal.open("w") as stream:
        info = os.fstat(stream.fileno())
        result = subprocess.run(
            [sys.executable, "-c", probe],
            stderr=stream,
            env={
                **os.environ,
                "JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}",
                "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            },
            timeout=60,
        )
    lines = journal.read_text().splitlines()
    assert result.returncode == 0, lines
    assert lines and all(line.startswith("<4>") for line in lines), lines
    assert lines[0].startswith("<4>py.warnings: ") and "gpiozero fell back" in lines[0]
