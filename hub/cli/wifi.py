"""``mtrain-hub wifi status|hotspot|home|passphrase|portal|profile``: the hub's own Wi-Fi,
driven through NetworkManager's ``nmcli`` (docs/deploy.md, "The hub's own Wi-Fi").

``hotspot`` brings up the profile ``systemd/install.sh`` laid and turns the captive
portal on (``[network] portal = true`` in the config; the hub is restarted to take it);
``home`` takes the hotspot down (NetworkManager then joins the best known network) and
turns the portal off. ``portal on|off`` is NetworkManager's dispatcher's, as the hotspot
comes up by itself at boot or goes down. A state that cannot be served (no
NetworkManager, no profile, no Wi-Fi device, a config that cannot be written) is a clear
line and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hub.cli import EXIT_CONFIG, EXIT_OK
from hub.runtime.config import ConfigError, load
from hub.wire.wifi import (
    DEFAULT_SSID,
    PROFILE,
    Hotspot,
    check_passphrase,
    make_passphrase,
    read_hotspot,
    render_profile,
    write_hotspot,
)

SERVICE = "mtrain-hub.service"
DEFAULT_CONFIG = "/etc/mtrain-hub.toml"
ACTIONS = ("status", "hotspot", "home", "passphrase", "portal", "profile")
NMCLI_NOT_RUNNING = 8  # nmcli's exit status: NetworkManager is not running


class WifiError(Exception):
    """The Wi-Fi could not be put in the state asked for; the message says why and what
    to do."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``wifi`` subcommand's arguments."""
    parser.add_argument(
        "action", nargs="?", default="status", choices=ACTIONS, help="what to do (default: status)"
    )
    parser.add_argument(
        "value",
        nargs="?",
        help="home: the network to join; passphrase: the new one (default: made); "
        "portal: on or off",
    )
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="the hub's config file")
    parser.add_argument("--state-dir", help="the hub's state folder (default: the config's)")
    parser.add_argument(
        "--no-restart", action="store_true", help="do not restart the hub after the portal changes"
    )


def command(args: argparse.Namespace) -> int:
    """Run ``mtrain-hub wifi``: print what happened, or the error and exit 2."""
    try:
        for line in ACTION_RUNNERS[args.action](args):
            print(line)
    except (WifiError, ConfigError) as exc:
        print(f"mtrain-hub wifi {args.action}: {exc}")
        return EXIT_CONFIG
    return EXIT_OK


# --- nmcli ---------------------------------------------------------------------------


def nmcli(*words: str) -> str:
    """Run ``nmcli -t words…`` and return its output; a failure raises WifiError with
    nmcli's own words."""
    if shutil.which("nmcli") is None:
        raise WifiError(
            "nmcli is not here: the hub's own Wi-Fi needs NetworkManager (Raspberry Pi "
            "OS Bookworm and later have it; apt install network-manager)"
        )
    done = subprocess.run(
        ["nmcli", "-t", *words], capture_output=True, text=True, timeout=90, check=False
    )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        if done.returncode == NMCLI_NOT_RUNNING or "NMClient" in "".join(said):
            raise WifiError("NetworkManager is not running (sudo systemctl start NetworkManager)")
        raise WifiError(said[-1] if said else f"nmcli {' '.join(words)} failed")
    return done.stdout


def fields(line: str) -> list[str]:
    """One line of ``nmcli -t``: its fields, ``\\:`` and ``\\\\`` read back."""
    out: list[str] = []
    field, escaped = "", False
    for c in line:
        if escaped:
            field, escaped = field + c, False
        elif c == "\\":
            escaped = True
        elif c == ":":
            out, field = [*out, field], ""
        else:
            field += c
    return [*out, field]


def active() -> dict[str, tuple[str, str]]:
    """The active connections: name → (type, device)."""
    out = nmcli("-f", "NAME,TYPE,DEVICE", "connection", "show", "--active")
    rows = [fields(line) for line in out.splitlines() if line]
    return {row[0]: (row[1], row[2]) for row in rows if len(row) == 3}


def has_profile() -> bool:
    """Whether NetworkManager knows the hotspot's profile."""
    return PROFILE in nmcli("-f", "NAME", "connection", "show").splitlines()


def need_profile() -> None:
    if not has_profile():
        raise WifiError(
            f"NetworkManager has no profile {PROFILE}: run `sudo systemd/install.sh` "
            "again (it lays it), or see docs/deploy.md"
        )


# --- the config's [network] portal ---------------------------------------------------


def set_portal(path: Path, on: bool) -> bool:
    """Set ``[network] portal`` in the config at ``path`` (only that line changes, or
    is added); return whether the file changed."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        raise WifiError(f"{path}: cannot be read ({exc.strerror}); run me with sudo") from None
    wanted = f"portal = {'true' if on else 'false'}"
    lines = text.splitlines()
    section, at, line_no = "", None, None
    for i, line in enumerate(lines):
        words = line.split("#")[0].strip()
        if words.startswith("[") and words.endswith("]"):
            section = words.strip("[] ")
            at = i if section == "network" else at
        elif section == "network" and words.partition("=")[0].strip() == "portal":
            line_no = i
    if line_no is not None:
        if lines[line_no].split("#")[0].strip() == wanted:
            return False
        lines[line_no] = wanted
    elif not on:  # no line: off already (the default), and the file stays as it is
        return False
    elif at is not None:
        lines.insert(at + 1, wanted)
    else:
        lines += ["", "[network]", wanted]
    _replace(path, "\n".join(lines) + "\n")
    return True


def _replace(path: Path, text: str) -> None:
    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, draft = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(draft, mode)
        if path.exists() and os.geteuid() == 0:
            os.chown(draft, path.stat().st_uid, path.stat().st_gid)
        os.replace(draft, path)
    except OSError as exc:
        raise WifiError(f"{path}: cannot be written ({exc.strerror}); run me with sudo") from None


def portal_lines(args: argparse.Namespace, on: bool) -> list[str]:
    """Turn the portal on or off in the config and restart the hub to take it."""
    path = Path(args.config)
    state = "on" if on else "off"
    if not set_portal(path, on):
        return [f"the captive portal was already {state} ({path})"]
    load(path)  # the file is still a valid config (a ConfigError names the key)
    lines = [f"the captive portal is {state} ({path}: [network] portal)"]
    if args.no_restart:
        return [*lines, "not restarted (--no-restart): restart the hub to take it"]
    if shutil.which("systemctl") is None:
        return [*lines, "restart the hub to take it (no systemctl here)"]
    done = subprocess.run(
        ["systemctl", "try-restart", SERVICE], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return [*lines, f"restart the hub to take it: {done.stderr.strip() or 'systemctl failed'}"]
    return [*lines, f"restarted {SERVICE} (the game goes on where it was)"]


# --- the actions ---------------------------------------------------------------------


def state_dir(args: argparse.Namespace) -> Path:
    """The state folder: ``--state-dir``, else the config's."""
    if args.state_dir:
        return Path(args.state_dir)
    return Path(load(args.config if Path(args.config).exists() else None)["hub"]["state_dir"])


def hotspot_of(args: argparse.Namespace) -> Hotspot:
    """The installed hotspot (its name and passphrase), or WifiError."""
    try:
        found = read_hotspot(state_dir(args))
    except ValueError as exc:
        raise WifiError(str(exc)) from None
    if found is None:
        raise WifiError(
            f"no hotspot in {state_dir(args)} (hotspot.toml): run `sudo systemd/install.sh` "
            "again, which makes it, or name the state folder with --state-dir"
        )
    return found


def status(args: argparse.Namespace) -> list[str]:
    """Which network carries the hub, and whether the portal is on."""
    up = active()
    portal = load(args.config if Path(args.config).exists() else None)["network"]["portal"]
    portal_line = f"captive portal: {'on' if portal else 'off'} ({args.config})"
    if PROFILE in up:
        hotspot = hotspot_of(args)
        return [f"hotspot: up on {up[PROFILE][1]}, network {hotspot.ssid!r}", portal_line]
    others = [f"{name} ({device})" for name, (kind, device) in up.items() if kind != "loopback"]
    profile = "ready" if has_profile() else f"not installed (no profile {PROFILE})"
    joined = ", ".join(others) or "none"
    return [f"hotspot: down, {profile}", f"joined: {joined}", portal_line]


def hotspot(args: argparse.Namespace) -> list[str]:
    """Bring the hotspot up, then the portal on."""
    need_profile()
    found = hotspot_of(args)
    try:
        nmcli("connection", "up", PROFILE)
    except WifiError as exc:
        raise WifiError(
            f"the hotspot did not come up: {exc} (it needs a Wi-Fi device that can be an "
            "access point; `nmcli device` lists them)"
        ) from None
    lines = [f"hotspot up: network {found.ssid!r}; phones join it with the Wi-Fi code"]
    return lines + portal_lines(args, True)


def home(args: argparse.Namespace) -> list[str]:
    """Take the hotspot down (or join the network named), then the portal off."""
    need_profile()
    lines: list[str] = []
    if PROFILE in active():
        nmcli("connection", "down", PROFILE)
        lines.append("hotspot down: NetworkManager joins the best known network")
    else:
        lines.append("the hotspot was not up")
    if args.value:
        try:
            nmcli("connection", "up", args.value)
        except WifiError as exc:
            raise WifiError(f"could not join {args.value!r}: {exc}") from None
        lines.append(f"joined {args.value!r}")
    return lines + portal_lines(args, False)


def passphrase(args: argparse.Namespace) -> list[str]:
    """Set the hotspot's passphrase (given, or a new one made) in the state file and the
    profile; a hotspot that is up comes back up with it."""
    need_profile()
    old = hotspot_of(args)
    new = args.value or make_passphrase()
    try:
        check_passphrase(new)
    except ValueError as exc:
        raise WifiError(str(exc)) from None
    was_up = PROFILE in active()
    nmcli("connection", "modify", PROFILE, "wifi-sec.psk", new)
    write_hotspot(state_dir(args), Hotspot(old.ssid, new))
    lines = [f"the passphrase of {old.ssid!r} is now: {new}"]
    if was_up:
        nmcli("connection", "up", PROFILE)
        lines.append("the hotspot came back up with it: phones join again (print a new card)")
    return lines


def portal(args: argparse.Namespace) -> list[str]:
    """Turn the captive portal on or off (NetworkManager's dispatcher does, as the
    hotspot comes up or goes down: systemd/networkmanager/90-mtrain-hub-portal)."""
    if args.value not in ("on", "off"):
        raise WifiError(f"portal: expected on or off, got {args.value!r}")
    return portal_lines(args, args.value == "on")


def profile(args: argparse.Namespace) -> list[str]:
    """The installer's step: make the hotspot's name and passphrase in the state folder
    when absent, and print NetworkManager's profile for it from the template on stdin."""
    try:
        found = read_hotspot(state_dir(args))
    except ValueError as exc:
        raise WifiError(str(exc)) from None
    if found is None:
        found = Hotspot(DEFAULT_SSID, make_passphrase())
        write_hotspot(state_dir(args), found)
    return [render_profile(sys.stdin.read(), found).rstrip("\n")]


ACTION_RUNNERS = {
    "status": status,
    "hotspot": hotspot,
    "home": home,
    "passphrase": passphrase,
    "portal": portal,
    "profile": profile,
}
