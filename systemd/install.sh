#!/bin/bash
# Install the Mexican Train hub as a service on Raspberry Pi OS Lite, Bookworm (Debian 12)
# or Trixie (Debian 13), from a bare Pi to http://mtrain.local: Debian packages, the user
# `mtrain` (groups gpio, audio, dialout), the venv under /opt/mtrain-hub, /etc/mtrain-hub.toml
# (only when absent), the unit (enabled and started), the mDNS announcement (and the host
# name, unless Imager set one). Run it again to upgrade in place: the games are kept and
# the database migrated. See docs/deploy.md.
#
#   sudo systemd/install.sh [--i2s-amp] [--hostname NAME] [--pip-args ARGS] [--no-start]
#   sudo systemd/install.sh --uninstall [--purge]
#   systemd/install.sh --root DIR ...    # into a folder (tests): no apt, no useradd,
#                                        # no systemctl on this machine; says what it skips
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
ROOT=""
ACTION=install
PURGE=0
I2S_AMP=0
START=1
HOST_NAME=mtrain
HOST_NAME_GIVEN=0
# Raspberry Pi OS's own host name: a Pi still called that gets ours; any other is the
# one set in Imager (or by hand) and is kept unless --hostname asks.
STOCK_HOST_NAME=raspberrypi
PIP_ARGS=""

PREFIX=/opt/mtrain-hub
VENV=$PREFIX/venv
STAMP=$PREFIX/installed-source.sha256
CONFIG=/etc/mtrain-hub.toml
STATE=/var/lib/mtrain-hub
UNIT=/etc/systemd/system/mtrain-hub.service
AVAHI=/etc/avahi/services/mtrain-hub.service
UDEV=/etc/udev/rules.d/60-mtrain-hub-gpio.rules
# The hub's own Wi-Fi (docs/deploy.md): NetworkManager's hotspot profile (made from the
# template with the name and passphrase in $STATE/hotspot.toml, made once), the captive
# portal's DNS for NetworkManager's shared dnsmasq, and the dispatcher script that turns
# the portal on and off with the hotspot.
NM_TEMPLATES=systemd/networkmanager
NM_PROFILE=/etc/NetworkManager/system-connections/mtrain-hub-hotspot.nmconnection
NM_DNSMASQ=/etc/NetworkManager/dnsmasq-shared.d/mtrain-hub-portal.conf
NM_DISPATCHER=/etc/NetworkManager/dispatcher.d/90-mtrain-hub-portal
SERVICE=mtrain-hub.service
USER_NAME=mtrain
GROUP_NAMES=(gpio audio dialout)
# python3-dev, gcc and libasound2-dev build pyalsaaudio; espeak-ng is the voice;
# avahi-daemon and libnss-mdns announce and resolve mtrain.local; sqlite3 is for
# backups (docs/deploy.md); fonts-dejavu-core draws the evening's summary picture
# (web/evening_png.py); network-manager and dnsmasq-base are the hub's own Wi-Fi (Raspberry
# Pi OS has both).
PACKAGES=(python3 python3-venv python3-dev gcc libasound2-dev alsa-utils espeak-ng
          avahi-daemon libnss-mdns sqlite3 fonts-dejavu-core network-manager dnsmasq-base)
# The gpio backend's library: Raspberry Pi OS's package (Bookworm and Trixie: PyPI has no
# lgpio wheel for Trixie's Python 3.13), seen by the venv through the system's packages.
# Where apt has none (plain Debian, the rehearsal) pip installs lgpio's wheel instead.
GPIO_PACKAGE=python3-lgpio
SUPPORTED_RELEASES="bookworm trixie"
# The amplifier's overlay without its SD_MODE pin: the stock overlay holds BCM 4 (slot 1's
# button) as an output driven high while sound plays (hub/io/pinmap.py, OVERLAY_CLAIMS).
AMP_OVERLAY=dtoverlay=max98357a,no-sdmode
AMP_MARK="# mtrain-hub: the I2S amplifier (MAX98357A), added by systemd/install.sh"
AMP_DEVICE="default:CARD=MAX98357A"
TEMPLATE_DEVICE='device = "default"'

CHANGED=0      # did this run change the unit or the installed hub? (restart then)
UPGRADED=0

say() { printf '%s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }
on_system() { [ -z "$ROOT" ]; }
skip() { say "skipped under --root: $*"; }

usage() {
    sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit "${1:-0}"
}

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            --root) [ $# -ge 2 ] || die "--root needs a folder"; ROOT=${2%/}; shift ;;
            --root=*) ROOT=${1#--root=}; ROOT=${ROOT%/} ;;
            --uninstall) ACTION=uninstall ;;
            --purge) PURGE=1 ;;
            --i2s-amp) I2S_AMP=1 ;;
            --no-start) START=0 ;;
            --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; HOST_NAME=$2; HOST_NAME_GIVEN=1; shift ;;
            --pip-args) [ $# -ge 2 ] || die "--pip-args needs arguments"; PIP_ARGS=$2; shift ;;
            -h|--help) usage 0 ;;
            *) say "unknown option: $1" >&2; usage 2 ;;
        esac
        shift
    done
    if [ "$PURGE" = 1 ] && [ "$ACTION" != uninstall ]; then die "--purge goes with --uninstall"; fi
    [[ $HOST_NAME =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] || die "--hostname $HOST_NAME: not a host name"
    if on_system && [ "$(id -u)" != 0 ]; then die "run me as root (sudo), or with --root DIR"; fi
    if [ -n "$ROOT" ]; then mkdir -p "$ROOT"; ROOT=$(cd "$ROOT" && pwd); fi
}

# --- laying files ------------------------------------------------------------------

# owner PATH USER:GROUP [quiet] - set the owner on the system; under --root, say it
# instead (unless quiet: the caller says it).
owner() {
    if on_system; then chown "$2" "$1"; elif [ -z "${3:-}" ]; then say "  owner $2 (not set under --root)"; fi
}

# lay SOURCE DEST MODE OWNER - install a file when its content or mode differs;
# LAID says whether it did. (Never call it in an if/||/&&: errexit would be off inside.)
# The file is written under a temporary name beside DEST, given its mode and owner, then
# renamed over DEST: a daemon watching the folder (avahi) never sees it half made or
# with the wrong mode, and the temporary name ends in no suffix such a daemon reads.
LAID=0
lay() {
    local source=$1 dest=$ROOT$2 mode=$3 draft
    LAID=0
    [ -f "$source" ] || die "missing $source (is the checkout complete?)"
    if [ -f "$dest" ] && cmp -s "$source" "$dest" && [ "$(stat -c %a "$dest")" = "$mode" ]; then
        say "unchanged $2"
        return 0
    fi
    mkdir -p "$(dirname "$dest")"
    draft=$(mktemp "$(dirname "$dest")/.$(basename "$dest").XXXXXX")
    cat "$source" > "$draft"
    chmod "$mode" "$draft"
    owner "$draft" "$4" quiet
    mv -f "$draft" "$dest"
    say "laid $2 (mode $mode)"
    if ! on_system; then say "  owner $4 (not set under --root)"; fi
    LAID=1
}

# lay_dir DIR MODE OWNER
lay_dir() {
    local dest=$ROOT$1
    if [ -d "$dest" ] && [ "$(stat -c %a "$dest")" = "$2" ]; then return 0; fi
    install -d -m "$2" "$dest"
    say "made $1/ (mode $2)"
    owner "$dest" "$3"
}

remove() {
    local path
    for path in "$@"; do
        if [ -e "$ROOT$path" ] || [ -L "$ROOT$path" ]; then rm -rf -- "$ROOT$path"; say "removed $path"; fi
    done
}

# --- the system: packages, user, services ------------------------------------------

# The release (VERSION_CODENAME of /etc/os-release): Bookworm and Trixie are supported.
check_release() {
    local name
    name=$(sed -n 's/^VERSION_CODENAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$ROOT/etc/os-release" 2>/dev/null || true)
    case " $SUPPORTED_RELEASES " in
        *" ${name:-unknown} "*) say "release: $name" ;;
        *) warn "release ${name:-unknown}: this installer supports $SUPPORTED_RELEASES; going on" ;;
    esac
}

has_package() { dpkg -s "$1" >/dev/null 2>&1; }
apt_offers() { apt-cache policy "$1" 2>/dev/null | grep -q '^ *Candidate: [^(]'; }
# lgpio in the venv (find_spec: importing lgpio would make its notify pipe here).
venv_has_lgpio() {
    "$ROOT$VENV/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("lgpio") is None)' \
        2>/dev/null
}

install_packages() {
    local missing=() package updated=0
    if ! on_system; then skip "apt-get install ${PACKAGES[*]} (and $GPIO_PACKAGE where apt has it)"; return; fi
    for package in "${PACKAGES[@]}"; do
        has_package "$package" || missing+=("$package")
    done
    # The GPIO library: looked up only while neither apt nor pip has put it here.
    if ! has_package "$GPIO_PACKAGE" && ! venv_has_lgpio; then
        if ! apt_offers "$GPIO_PACKAGE"; then apt-get update -qq; updated=1; fi
        if apt_offers "$GPIO_PACKAGE"; then
            missing+=("$GPIO_PACKAGE")
        else
            say "apt has no $GPIO_PACKAGE here (it is Raspberry Pi OS's): pip installs lgpio"
        fi
    fi
    if [ ${#missing[@]} -eq 0 ]; then say "Debian packages: all present"; return; fi
    say "installing Debian packages: ${missing[*]}"
    if [ "$updated" = 0 ]; then apt-get update -qq; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

make_user() {
    local group
    if ! on_system; then
        skip "groupadd --system for any of ${GROUP_NAMES[*]} missing"
        skip "useradd --system --user-group --home-dir $STATE --shell /usr/sbin/nologin $USER_NAME"
        skip "usermod -a -G $(IFS=,; echo "${GROUP_NAMES[*]}") $USER_NAME"
        return
    fi
    for group in "${GROUP_NAMES[@]}"; do
        getent group "$group" >/dev/null || { groupadd --system "$group"; say "made group $group"; }
    done
    if ! getent passwd "$USER_NAME" >/dev/null; then
        useradd --system --user-group --home-dir "$STATE" --no-create-home \
            --shell /usr/sbin/nologin --comment "Mexican Train hub" "$USER_NAME"
        say "made user $USER_NAME"
    fi
    usermod -a -G "$(IFS=,; echo "${GROUP_NAMES[*]}")" "$USER_NAME"
}

# udev applies the GPIO rule now; where none runs (a container), when it starts.
reload_udev() {
    if ! on_system; then skip "udevadm control --reload; udevadm trigger --subsystem-match=gpio"; return; fi
    if ! command -v udevadm >/dev/null || [ ! -S /run/udev/control ]; then
        say "no udev runs here (a container?): the GPIO rule applies when it starts"
        return
    fi
    udevadm control --reload || warn "udevadm could not reload its rules (see above)"
    udevadm trigger --subsystem-match=gpio || warn "udevadm could not re-apply the GPIO rule"
}

systemctl_do() {
    if on_system; then systemctl "$@"; else skip "systemctl $*"; fi
}

service_active() { on_system && systemctl is-active --quiet "$SERVICE"; }

# --- the hub: venv, config, state ---------------------------------------------------

# The files pip installs from, copied apart (no build/ in the checkout), and their hash.
stage_source() {
    local stage=$1
    (cd "$SOURCE" && tar --exclude=__pycache__ --exclude='*.pyc' -cf - pyproject.toml README.md \
        hub scorer web firmware_bridge tablesim) | tar -xf - -C "$stage"
    (cd "$stage" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum \
        | cut -d' ' -f1)
}

# The venv sees the system's packages: python3-lgpio comes from apt on Raspberry Pi OS.
make_venv() {
    local cfg=$ROOT$VENV/pyvenv.cfg
    if [ ! -x "$ROOT$VENV/bin/python" ]; then
        "$PYTHON" -m venv --system-site-packages "$ROOT$VENV"
        say "made the venv $VENV (it sees the system's packages)"
    elif ! grep -qx 'include-system-site-packages = true' "$cfg"; then
        sed -i 's/^include-system-site-packages = .*/include-system-site-packages = true/' "$cfg"
        say "the venv $VENV sees the system's packages now ($GPIO_PACKAGE)"
        CHANGED=1
    fi
}

# pip_install ARGS... - pip into the venv, its output shown and kept in PIP_LOG.
PIP_LOG=""
pip_install() {
    # The venv's python, not bin/pip: pip's script names the python it was made with in
    # its first line, so a venv copied elsewhere (the tests copy one install) would be
    # changed where it was made.
    # shellcheck disable=SC2086  # PIP_ARGS are words for pip, e.g. --no-index --find-links D
    "$ROOT$VENV/bin/python" -m pip install -q $PIP_ARGS "$@" 2>&1 | tee "$PIP_LOG"
}

# The line of pip's output that names the failure: its first ERROR line (a build
# step's, indented, included), else its first error line, else its first line.
pip_failure() {
    { grep -m1 -E '^[[:space:]]*ERROR:' "$PIP_LOG" || grep -m1 -E '^[[:space:]]*error:' "$PIP_LOG" \
        || grep -m1 -v '^[[:space:]]*$' "$PIP_LOG" || echo "no output"; } | sed 's/^[[:space:]]*//'
}

# What a failed pip run's ERROR lines name: the sound extra (pyalsaaudio, audioop-lts),
# lgpio, or the hub.
pip_trouble() {
    local errors
    errors=$(grep -E '^[[:space:]]*(ERROR|error):' "$PIP_LOG" || true)
    if grep -qE 'pyalsaaudio|audioop' <<< "$errors"; then echo sound
    elif grep -q lgpio <<< "$errors"; then echo lgpio
    else echo hub
    fi
}

install_venv() {
    local stage hash
    stage=$(mktemp -d)
    hash=$(stage_source "$stage")
    make_venv
    if [ -f "$ROOT$STAMP" ] && [ "$(cat "$ROOT$STAMP")" = "$hash" ]; then
        say "unchanged $VENV (this source is installed)"
        rm -rf "$stage"
        return
    fi
    [ -f "$ROOT$STAMP" ] && UPGRADED=1
    if service_active; then systemctl stop "$SERVICE"; say "stopped $SERVICE to upgrade"; fi
    PIP_LOG=$(mktemp)
    if ! pip_install --upgrade "${stage}[sound]"; then
        case $(pip_trouble) in
            sound)
                warn "the sound library did not install ($(pip_failure)); installing without sound"
                pip_install --upgrade "$stage" || die "pip could not install the hub: $(pip_failure)" ;;
            lgpio)
                die "pip could not install lgpio ($(pip_failure)): install $GPIO_PACKAGE (Raspberry Pi OS has it) and run me again" ;;
            *)
                die "pip could not install the hub: $(pip_failure) (pip's output is above; nothing was changed)" ;;
        esac
    fi
    rm -rf "$stage"
    printf '%s\n' "$hash" > "$ROOT$STAMP"
    chmod 0644 "$ROOT$STAMP"
    CHANGED=1
    say "installed the hub into $VENV"
    rm -f "$PIP_LOG"
}

# Where apt had no python3-lgpio: lgpio's wheel from pip (the gpio backend needs it).
install_lgpio() {
    if ! on_system; then skip "pip install lgpio (where apt has no $GPIO_PACKAGE)"; return; fi
    if has_package "$GPIO_PACKAGE" || venv_has_lgpio; then return; fi
    PIP_LOG=$(mktemp)
    if pip_install lgpio; then
        say "installed lgpio into $VENV (pip)"
    else
        warn "lgpio did not install ($(pip_failure)): the gpio backend cannot start; sim and serial work"
    fi
    rm -f "$PIP_LOG"
}

# The store migrates on open; do it now, with the service stopped, and show the outcome.
migrate_store() {
    local hub=$ROOT$VENV/bin/mtrain-hub
    if on_system; then
        # From /: the checkout (often under a 0700 home) may be closed to mtrain.
        (cd / && runuser -u "$USER_NAME" -- "$hub" migrate --config "$CONFIG" --state-dir "$STATE") \
            || die "the game store did not migrate (see above); the hub is not restarted"
    else
        "$hub" migrate --config "$ROOT$CONFIG" --state-dir "$ROOT$STATE" \
            || die "the game store did not migrate (see above)"
    fi
}

write_config() {
    local draft
    if [ -e "$ROOT$CONFIG" ]; then
        if [ "$I2S_AMP" = 1 ] && grep -qxF "$TEMPLATE_DEVICE" "$ROOT$CONFIG"; then
            point_at_amp
        else
            say "kept $CONFIG (yours; never rewritten)"
        fi
        return
    fi
    draft=$(mktemp)
    if [ "$I2S_AMP" = 1 ]; then
        sed "s/^device = \"default\"/device = \"$AMP_DEVICE\"/" "$SOURCE/systemd/mtrain-hub.toml" > "$draft"
    else
        cp "$SOURCE/systemd/mtrain-hub.toml" "$draft"
    fi
    lay "$draft" "$CONFIG" 640 "root:$USER_NAME"
    rm -f "$draft"
}

# --i2s-amp on a later run: the template's sound device becomes the amplifier (only that
# line changes; a device you chose yourself stays).
point_at_amp() {
    local draft
    draft=$(mktemp)
    sed "s/^$TEMPLATE_DEVICE\$/device = \"$AMP_DEVICE\"/" "$ROOT$CONFIG" > "$draft"
    lay "$draft" "$CONFIG" 640 "root:$USER_NAME"
    rm -f "$draft"
    say "  [sound] device is now \"$AMP_DEVICE\" (it was the template's \"default\")"
    CHANGED=1
}

# --- the hub's own Wi-Fi ------------------------------------------------------------

# The profile is made by the hub itself (`mtrain-hub wifi profile`: the name and a new
# passphrase in $STATE/hotspot.toml when absent), as the hub's user, the template on stdin.
lay_hotspot() {
    local hub=$ROOT$VENV/bin/mtrain-hub template=$SOURCE/$NM_TEMPLATES/mtrain-hub-hotspot.nmconnection
    local draft laid=0
    draft=$(mktemp)
    if on_system; then
        (cd / && runuser -u "$USER_NAME" -- "$hub" wifi profile --state-dir "$STATE") \
            < "$template" > "$draft" || die "the hotspot's profile could not be made (see above)"
    else
        "$hub" wifi profile --state-dir "$ROOT$STATE" < "$template" > "$draft" \
            || die "the hotspot's profile could not be made (see above)"
    fi
    lay "$draft" "$NM_PROFILE" 600 root:root
    laid=$LAID
    rm -f "$draft"
    lay "$SOURCE/$NM_TEMPLATES/mtrain-hub-portal.conf" "$NM_DNSMASQ" 644 root:root
    if [ "$LAID" = 1 ]; then laid=1; fi
    lay "$SOURCE/$NM_TEMPLATES/90-mtrain-hub-portal" "$NM_DISPATCHER" 755 root:root
    if [ "$laid" = 1 ]; then reload_networkmanager; fi
}

reload_networkmanager() {
    if ! on_system; then skip "nmcli connection reload"; return; fi
    if ! systemctl is-active --quiet NetworkManager.service; then
        say "NetworkManager is not running: it reads the hotspot's profile when it starts"
        return
    fi
    nmcli connection reload || warn "NetworkManager did not reload its profiles (see above)"
    say "NetworkManager knows the hotspot (sudo mtrain-hub wifi hotspot brings it up)"
}

# --- the Pi: host name, mDNS, the amplifier -----------------------------------------

set_hostname() {
    local hosts=$ROOT/etc/hosts renamed=0 current
    current=$(cat "$ROOT/etc/hostname" 2>/dev/null || true)
    if [ "$HOST_NAME_GIVEN" = 0 ] && [ -n "$current" ] && [ "$current" != "$STOCK_HOST_NAME" ]; then
        HOST_NAME=$current
        say "kept the host name $current (--hostname NAME changes it)"
        return
    fi
    if [ "$current" = "$HOST_NAME" ]; then
        say "unchanged host name $HOST_NAME"
    else
        mkdir -p "$ROOT/etc"
        printf '%s\n' "$HOST_NAME" > "$ROOT/etc/hostname"
        chmod 0644 "$ROOT/etc/hostname"
        if on_system; then hostname "$HOST_NAME"; fi
        say "host name is now $HOST_NAME (http://$HOST_NAME.local)"
        renamed=1
    fi
    if ! grep -q "^127\.0\.1\.1[[:space:]]\+$HOST_NAME\$" "$hosts" 2>/dev/null; then
        if grep -q '^127\.0\.1\.1[[:space:]]' "$hosts" 2>/dev/null; then
            sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$HOST_NAME/" "$hosts"
        else
            printf '127.0.1.1\t%s\n' "$HOST_NAME" >> "$hosts"
            chmod 0644 "$hosts"
        fi
        say "/etc/hosts names 127.0.1.1 $HOST_NAME"
        renamed=1
    fi
    # avahi announces the host name it read at start.
    if [ "$renamed" = 1 ] && on_system; then
        systemctl try-restart avahi-daemon.service || true
    fi
}

boot_config() {
    local path
    for path in /boot/firmware/config.txt /boot/config.txt; do
        if [ -f "$ROOT$path" ]; then printf '%s\n' "$path"; return; fi
    done
}

# Our lines in config.txt: the mark, [all] (the lines above may sit under a filter such
# as [pi4]: ours are for every Pi), the overlay. An older install wrote the mark and
# the stock overlay (which holds BCM 4): it is replaced.
has_amp_block() {
    awk -v mark="$AMP_MARK" -v overlay="$AMP_OVERLAY" '
        $0 == mark { s = 1; next }
        s == 1 && $0 == "[all]" { s = 2; next }
        s == 2 && $0 == overlay { found = 1 }
        { s = 0 }
        END { exit !found }' "$1"
}

strip_amp_block() {
    local file=$1 draft
    draft=$(mktemp)
    awk -v mark="$AMP_MARK" '
        s == 1 && $0 == "[all]" { s = 2; next }
        s >= 1 && $0 ~ /^dtoverlay=max98357a/ { s = 0; next }
        { s = 0 }
        $0 == mark { s = 1; next }
        { print }' "$file" > "$draft"
    cat "$draft" > "$file"
    rm -f "$draft"
}

# An earlier run added the amplifier's lines (ours are marked).
our_amp_overlay() {
    local path
    path=$(boot_config)
    [ -n "$path" ] && grep -qxF "$AMP_MARK" "$ROOT$path"
}

add_amp_overlay() {
    local path file
    path=$(boot_config)
    if [ -z "$path" ]; then warn "--i2s-amp: no /boot/firmware/config.txt; not a Raspberry Pi?"; return; fi
    file=$ROOT$path
    if has_amp_block "$file"; then say "unchanged $path ($AMP_OVERLAY)"; return; fi
    if grep -qxF "$AMP_MARK" "$file"; then strip_amp_block "$file"; say "replaced our older amplifier lines in $path"; fi
    if [ -s "$file" ] && [ -n "$(tail -c1 "$file")" ]; then printf '\n' >> "$file"; fi
    printf '%s\n[all]\n%s\n' "$AMP_MARK" "$AMP_OVERLAY" >> "$file"
    say "added $AMP_OVERLAY to $path (under [all]): reboot once to load it"
    if grep -qE '^dtoverlay=max98357a(,sdmode-pin=[0-9]+)?$' "$file"; then
        warn "$path also has a max98357a overlay of yours with its SD_MODE pin (BCM 4 by default, slot 1's button): remove that line"
    fi
}

remove_amp_overlay() {
    local path
    path=$(boot_config)
    [ -n "$path" ] && grep -qxF "$AMP_MARK" "$ROOT$path" || return 0
    strip_amp_block "$ROOT$path"
    say "removed $AMP_OVERLAY from $path (it was ours)"
}

# --- the actions ---------------------------------------------------------------------

do_install() {
    check_release
    install_packages
    make_user
    lay "$SOURCE/systemd/60-mtrain-hub-gpio.rules" "$UDEV" 644 root:root
    if [ "$LAID" = 1 ]; then reload_udev; fi
    lay_dir "$PREFIX" 755 root:root
    install_venv
    install_lgpio
    lay "$SOURCE/docs/deploy.md" "$PREFIX/docs/deploy.md" 644 root:root
    write_config
    # Before the store's migration: the hub refuses pins an overlay in config.txt claims,
    # and an older install's amplifier line held BCM 4 (it is replaced, --i2s-amp or not).
    if [ "$I2S_AMP" = 1 ] || our_amp_overlay; then add_amp_overlay; fi
    lay_dir "$STATE" 700 "$USER_NAME:$USER_NAME"
    if [ "$CHANGED" = 1 ]; then migrate_store; fi
    lay_hotspot
    lay "$SOURCE/systemd/mtrain-hub.service" "$UNIT" 644 root:root
    if [ "$LAID" = 1 ]; then CHANGED=1; fi
    lay "$SOURCE/systemd/avahi/mtrain-hub.service" "$AVAHI" 644 root:root
    set_hostname
    enable_and_start
    if [ "$UPGRADED" = 1 ]; then say "upgraded; the games are kept"; fi
    say "done: open http://$HOST_NAME.local on a phone on this network"
}

enable_and_start() {
    if ! on_system; then
        systemctl --root="$ROOT" --quiet enable "$SERVICE" 2>/dev/null \
            || skip "systemctl enable $SERVICE"
        skip "systemctl daemon-reload; systemctl restart $SERVICE"
        return
    fi
    systemctl daemon-reload
    systemctl --quiet enable "$SERVICE"
    if [ "$START" = 0 ]; then say "not started (--no-start)"; return; fi
    if [ "$CHANGED" = 1 ]; then systemctl restart "$SERVICE"; else systemctl start "$SERVICE"; fi
    say "$SERVICE is $(systemctl is-active "$SERVICE" || true)"
}

do_uninstall() {
    if on_system; then
        systemctl disable --now "$SERVICE" 2>/dev/null || true
    else
        systemctl --root="$ROOT" --quiet disable "$SERVICE" 2>/dev/null \
            || skip "systemctl disable --now $SERVICE"
    fi
    remove "$UNIT" "$AVAHI" "$UDEV" "$PREFIX" "$NM_PROFILE" "$NM_DNSMASQ" "$NM_DISPATCHER"
    remove_amp_overlay
    systemctl_do daemon-reload
    if on_system && systemctl is-active --quiet NetworkManager.service; then
        nmcli connection reload || warn "NetworkManager did not reload its profiles"
    fi
    if [ "$PURGE" = 1 ]; then
        remove "$CONFIG" "$STATE"
        if on_system; then
            if getent passwd "$USER_NAME" >/dev/null; then userdel "$USER_NAME"; say "removed user $USER_NAME"; fi
        else
            skip "userdel $USER_NAME"
        fi
        say "purged: the games, the config and the user are gone"
    else
        say "kept the games ($STATE), the config ($CONFIG) and the user $USER_NAME;"
        say "  --uninstall --purge removes them too"
    fi
    say "the host name stays $(cat "$ROOT/etc/hostname" 2>/dev/null || echo unknown)"
}

main() {
    parse_args "$@"
    if [ -n "$ROOT" ]; then say "installing into $ROOT (--root): the system is not touched"; fi
    umask 022
    case $ACTION in
        install) do_install ;;
        uninstall) do_uninstall ;;
    esac
}

# Sourced (tests/deploy/test_install.py calls single functions), it only defines them.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
