"""The ``gpio`` backend's pin factory: lgpio or a message naming the real cause, never a
silent fall back to another of gpiozero's factories (issue 22, HIGH 1).

The real lgpio is used where the test venv has it (``.[test]`` on x86_64): importing it
makes its notify pipe (``.lgd-nfy*``) in the current directory. The hub imports it from a
private folder of its own (issue 36, item 3); every test here runs in a folder of its
own all the same, so that a failure leaves no pipe in the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hub.io import pins
from hub.io.pins import NOT_TRIED, NoPins, make_factory, open_lgpio


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def real_lgpio() -> None:
    try:
        import lgpio  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("lgpio is not installed (pip install -e '.[test]' brings it)")
        pytest.skip("lgpio is not installed")


def test_sim_is_the_mock_factory():
    from gpiozero.pins.mock import MockFactory

    assert isinstance(make_factory("sim"), MockFactory)


def test_without_lgpio_it_says_so_and_names_the_package(workdir, monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)  # import fails
    with pytest.raises(NoPins) as caught:
        open_lgpio(workdir)
    message = str(caught.value)
    assert "lgpio module is not installed" in message and "python3-lgpio" in message


def test_without_a_chip_the_error_names_the_missing_chip(workdir):
    real_lgpio()
    dev = workdir / "dev"
    dev.mkdir()
    with pytest.raises(NoPins) as caught:
        open_lgpio(dev)
    message = str(caught.value)
    assert f"{dev}/gpiochip0 does not exist" in message
    assert "lgpio itself loaded" in message
    # lgpio makes its pipe when a process first imports it, and another test in this
    # process may have done so first: a fresh interpreter, here, with a TMPDIR to look in.
    hub = (
        "from pathlib import Path\nfrom hub.io.pins import NoPins, open_lgpio\n"
        "try:\n    open_lgpio(Path('dev'))\nexcept NoPins as exc:\n    print(exc)\n"
    )
    tmp, fresh = workdir / "tmp", workdir / "fresh"
    tmp.mkdir()
    fresh.mkdir()
    said = subprocess.run(
        [sys.executable, "-c", hub],
        cwd=fresh,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    assert f"lgpio itself loaded, its notify pipe in {tmp}/lgpio-" in said.stdout, (
        said.stdout + said.stderr
    )
    assert "a private folder removed once the pipe was open" in said.stdout
    assert not list(fresh.glob(".lgd-nfy*")), "lgpio made its pipe in the working directory"
    assert list(tmp.iterdir()) == [], "the private folder is removed"


def test_a_chip_this_user_may_not_open_is_named_with_the_reason(workdir, monkeypatch):
    real_lgpio()
    dev = workdir / "dev"
    dev.mkdir()
    (dev / "gpiochip0").write_text("")  # not a GPIO chip: lgpio cannot open it

    def refused(path, flags):
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(pins.os, "open", refused)
    with pytest.raises(NoPins) as caught:
        open_lgpio(dev)
    message = str(caught.value)
    assert f"cannot open {dev}/gpiochip0: Operation not permitted" in message
    assert "DeviceAllow=char-gpiochip" in message


def test_the_gpio_backend_never_falls_back_off_a_pi(workdir, monkeypatch):
    monkeypatch.setattr(pins, "is_raspberry_pi", lambda: False)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)
    with pytest.raises(NoPins) as caught:
        make_factory("gpio")
    assert "use --backend sim off a Raspberry Pi" in str(caught.value)
    # On a Pi the same failure gives no advice to leave the Pi.
    monkeypatch.setattr(pins, "is_raspberry_pi", lambda: True)
    with pytest.raises(NoPins) as caught:
        make_factory("gpio")
    assert "--backend sim" not in str(caught.value)


def test_the_chosen_factory_is_logged_with_why_not_the_others(workdir, monkeypatch, caplog):
    class FakeFactory:
        chip = 0

    fake = type(sys)("gpiozero.pins.lgpio")
    fake.LGPIOFactory = FakeFactory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", fake)
    dev = workdir / "dev"
    dev.mkdir()
    (dev / "gpiochip0").write_text("")
    with caplog.at_level("INFO", logger="hub.io.pins"):
        assert isinstance(open_lgpio(dev), FakeFactory)
    assert f"pins: lgpio on {dev}/gpiochip0 (its notify pipe " in caplog.text
    assert NOT_TRIED in caplog.text and "/dev/gpiomem" in NOT_TRIED


def test_lgpio_loads_from_a_read_only_working_directory(workdir, tmp_path):
    """The service's case before issue 22, and ``selftest --check`` run from the maker's
    checkout before issue 36: the working directory is read-only (a read-only mount
    here), and lgpio, which makes its notify pipe in the current directory when it
    loads, loads all the same: from a private folder of its own. (Checking that lgpio is
    there imports it here: in ``workdir``, so its pipe is not left in the checkout.)"""
    real_lgpio()
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("needs root and unshare (util-linux) for a read-only mount")
        pytest.skip("needs root and unshare for a read-only mount")
    readonly = tmp_path / "ro"
    readonly.mkdir()
    probe = textwrap.dedent(
        """
        import os, sys
        from hub.io.pins import NoPins, open_lgpio
        try:
            open_lgpio()
        except NoPins as exc:
            print(exc)
        print("back in", os.getcwd())
        """
    )
    script = (
        f"mount --bind {readonly} {readonly} && mount -o remount,bind,ro {readonly} && "
        f"cd {readonly} && exec {sys.executable} -c '{probe}'"
    )
    result = subprocess.run(
        [unshare, "--mount", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    said = result.stdout + result.stderr
    assert result.returncode == 0, said
    assert "cannot make its notify pipe" not in said and "read-only" not in said, said
    assert "lgpio itself loaded, its notify pipe in " in said  # off a Pi: no chip here
    assert f"back in {readonly}" in said


def test_a_private_folder_that_cannot_be_made_is_named(workdir, monkeypatch):
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)  # as in a fresh hub
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setattr(pins.tempfile, "tempdir", str(workdir / "missing"))  # as $TMPDIR
    with pytest.raises(NoPins) as caught:
        open_lgpio(workdir)
    message = str(caught.value)
    assert "cannot make a private folder for lgpio's notify pipe" in message
    assert str(workdir / "missing") in message and "TMPDIR" in message


def test_the_private_folder_is_the_units_runtime_directory_and_goes(workdir, monkeypatch):
    runtime = workdir / "run"
    runtime.mkdir()
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(runtime))
    with pins.private_folder() as where:
        assert Path(where).parent == runtime and os.getcwd() == where
        assert os.stat(where).st_mode & 0o777 == 0o700
        Path(".lgd-nfy0").write_text("")  # what lgpio leaves
    assert os.getcwd() == str(workdir)
    assert list(runtime.iterdir()) == []
