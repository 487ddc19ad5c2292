"""The hub's own Wi-Fi as the hub, the page and the card show it: its name and
passphrase (``hotspot.toml`` in the state folder, made by ``systemd/install.sh``,
changed by ``mtrain-hub wifi passphrase``) and the Wi-Fi QR code's text that joins it.

The passphrase is a secret: only the scorekeeper and the table's proof see it
(docs/security.md, "The hub's own Wi-Fi"). Stdlib only.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "hotspot.toml"
PROFILE = "mtrain-hub-hotspot"  # NetworkManager's connection (its id and file name)
DEFAULT_SSID = "Mexican Train hub"
# WPA2's passphrase: 8 to 63 printable ASCII characters.
PASSPHRASE_MIN, PASSPHRASE_MAX = 8, 63
# A made passphrase: four groups of four from letters and digits that cannot be misread
# (no i, l, o, 0, 1), about 79 bits; easy to type on a phone that cannot scan.
PASSPHRASE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"
# The profile's UUID: the same on every install of a hub, so laying it again changes nothing.
PROFILE_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "https://mtrain.local/" + PROFILE)
# The characters the Wi-Fi QR code's format (ZXing's "WIFI:" URI) escapes with "\".
QR_SPECIAL = '\\;,:"'


@dataclass(frozen=True)
class Hotspot:
    """The hub's own network: its name (SSID) and WPA2 passphrase."""

    ssid: str
    passphrase: str


def check_passphrase(passphrase: str) -> str:
    """``passphrase`` if WPA2 takes it, else a ValueError saying what it must be."""
    if not PASSPHRASE_MIN <= len(passphrase) <= PASSPHRASE_MAX:
        raise ValueError(
            f"the passphrase must be {PASSPHRASE_MIN} to {PASSPHRASE_MAX} characters "
            f"(WPA2); it has {len(passphrase)}"
        )
    if not all(" " <= c <= "~" for c in passphrase):
        raise ValueError("the passphrase must be plain printable ASCII (WPA2): no accents")
    return passphrase


def make_passphrase() -> str:
    """A new passphrase, such as ``k7pm-x2qd-h9ta-4ncw``."""
    groups = ("".join(secrets.choice(PASSPHRASE_LETTERS) for _ in range(4)) for _ in range(4))
    return "-".join(groups)


def keyfile_value(text: str) -> str:
    """``text`` as a value of a keyfile (GLib's key file: NetworkManager's profiles)."""
    text = text.replace("\\", "\\\\")
    return "\\s" + text[1:] if text.startswith(" ") else text


def render_profile(template: str, hotspot: Hotspot) -> str:
    """NetworkManager's profile for ``hotspot`` from ``template``
    (``systemd/networkmanager/mtrain-hub-hotspot.nmconnection``)."""
    return (
        template.replace("@UUID@", str(PROFILE_UUID))
        .replace("@SSID@", keyfile_value(hotspot.ssid))
        .replace("@PASSPHRASE@", keyfile_value(hotspot.passphrase))
    )


def wifi_code(hotspot: Hotspot) -> str:
    """The Wi-Fi QR code's text (``WIFI:T:WPA;S:<ssid>;P:<pass>;;``) that a phone's
    camera offers to join, with ``\\ ; , : "`` escaped."""

    def escape(text: str) -> str:
        return "".join("\\" + c if c in QR_SPECIAL else c for c in text)

    return f"WIFI:T:WPA;S:{escape(hotspot.ssid)};P:{escape(hotspot.passphrase)};;"


def read_hotspot(state_dir: str | Path) -> Hotspot | None:
    """The hotspot in ``state_dir``, or None where none was installed (or it cannot be
    read: the page then shows no Wi-Fi code). A file that is there but not a hotspot
    raises ValueError naming it."""
    path = Path(state_dir) / FILE_NAME
    try:
        with open(path, "rb") as f:
            values = tomllib.load(f)
    except (FileNotFoundError, PermissionError):
        return None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    ssid, passphrase = values.get("ssid"), values.get("passphrase")
    if not isinstance(ssid, str) or not ssid or not isinstance(passphrase, str):
        raise ValueError(f"{path}: expected ssid and passphrase (strings)")
    return Hotspot(ssid, check_passphrase(passphrase))


def write_hotspot(state_dir: str | Path, hotspot: Hotspot) -> Path:
    """Write ``hotspot`` to ``state_dir`` (mode 0600, the old file's owner kept),
    atomically; return its path."""
    path = Path(state_dir) / FILE_NAME
    text = (
        "# The hub's own Wi-Fi (docs/deploy.md): change the passphrase with\n"
        "# `sudo mtrain-hub wifi passphrase`, which changes NetworkManager's profile too.\n"
        f"ssid = {json.dumps(hotspot.ssid)}\npassphrase = {json.dumps(hotspot.passphrase)}\n"
    )
    owner = path.stat() if path.exists() else Path(state_dir).stat()
    fd, draft = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(draft, 0o600)
        if os.geteuid() == 0:  # root (sudo) writes it for the hub's own user
            os.chown(draft, owner.st_uid, owner.st_gid)
        os.replace(draft, path)
    except BaseException:
        Path(draft).unlink(missing_ok=True)
        raise
    return path
