#!/bin/bash
# Install the Mexican Train hub as a service on Raspberry Pi OS Lite (Debian 12), from a
# bare Pi to http://mtrain.local: Debian packages, the user `mtrain` (groups gpio, audio,
# dialout), the venv under /opt/mtrain-hub, /etc/mtrain-hub.toml (only when absent), the
# unit (enabled and started), the host name and its mDNS announcement. Run it again to
# upgrade in place: the games are kept and the database migrated. See docs/deploy.md.
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
PIP_ARGS=""

PREFIX=/opt/mtrain-hub
VENV=$PREFIX/venv
STAMP=$PREFIX/installed-source.sha256
CONFIG=/etc/mtrain-hub.toml
STATE=/var/lib/mtrain-hub
UNIT=/etc/systemd/system/mtrain-hub.service
AVAHI=/etc/avahi/services/mtrain-hub.service
UDEV=/etc/udev/rules.d/60-mtrain-hub-gpio.rules
SERVICE=mtrain-hub.service
USER_NAME=mtrain
GROUP_NAMES=(gpio audio dialout)
# python3-dev, gcc and libasound2-dev build pyalsaaudio; avahi-daemon and libnss-mdns
# announce and resolve mtrain.local; sqlite3 is for backups (docs/deploy.md).
PACKAGES=(python3 python3-venv python3-dev gcc libasound2-dev alsa-utils
          avahi-daemon libnss-mdns sqlite3)
AMP_OVERLAY=dtoverlay=max98357a
AMP_MARK="# mtrain-hub: the I2S amplifier (MAX98357A), added by systemd/install.sh"
AMP_DEVICE="default:CARD=MAX98357A"

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
            --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; HOST_NAME=$2; shift ;;
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

# owner PATH USER:GROUP - set the owner on the system; under --root, say it instead.
owner() {
    if on_system; then chown "$2" "$1"; else say "  owner $2 (not set under --root)"; fi
}

# lay SOURCE DEST MODE OWNER - install a file when its content or mode differs;
# LAID says whether it did. (Never call it in an if/||/&&: errexit would be off inside.)
LAID=0
lay() {
    local source=$1 dest=$ROOT$2 mode=$3
    LAID=0
    [ -f "$source" ] || die "missing $source (is the checkout complete?)"
    if [ -f "$dest" ] && cmp -s "$source" "$dest" && [ "$(stat -c %a "$dest")" = "$mode" ]; then
        say "unchanged $2"
        return 0
    fi
    install -D -m "$mode" "$source" "$dest"
    say "laid $2 (mode $mode)"
    owner "$dest" "$4"
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

install_packages() {
    local missing=() package
    for package in "${PACKAGES[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if ! on_system; then skip "apt-get install ${PACKAGES[*]}"; return; fi
    if [ ${#missing[@]} -eq 0 ]; then say "Debian packages: all present"; return; fi
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq
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

install_venv() {
    local stage hash pip
    stage=$(mktemp -d)
    hash=$(stage_source "$stage")
    if [ ! -x "$ROOT$VENV/bin/python" ]; then
        "$PYTHON" -m venv "$ROOT$VENV"
        say "made the venv $VENV"
    fi
    if [ -f "$ROOT$STAMP" ] && [ "$(cat "$ROOT$STAMP")" = "$hash" ]; then
        say "unchanged $VENV (this source is installed)"
        rm -rf "$stage"
        return
    fi
    [ -f "$ROOT$STAMP" ] && UPGRADED=1
    if service_active; then systemctl stop "$SERVICE"; say "stopped $SERVICE to upgrade"; fi
    pip=$ROOT$VENV/bin/pip
    # shellcheck disable=SC2086  # PIP_ARGS are words for pip, e.g. --no-index --find-links D
    if ! "$pip" install -q --upgrade $PIP_ARGS "${stage}[sound]"; then
        warn "pyalsaaudio did not build (libasound2-dev?): installing without sound"
        # shellcheck disable=SC2086
        "$pip" install -q --upgrade $PIP_ARGS "$stage"
    fi
    rm -rf "$stage"
    printf '%s\n' "$hash" > "$ROOT$STAMP"
    chmod 0644 "$ROOT$STAMP"
    CHANGED=1
    say "installed the hub into $VENV"
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
    if [ -e "$ROOT$CONFIG" ]; then say "kept $CONFIG (yours; never rewritten)"; return; fi
    draft=$(mktemp)
    if [ "$I2S_AMP" = 1 ]; then
        sed "s/^device = \"default\"/device = \"$AMP_DEVICE\"/" "$SOURCE/systemd/mtrain-hub.toml" > "$draft"
    else
        cp "$SOURCE/systemd/mtrain-hub.toml" "$draft"
    fi
    lay "$draft" "$CONFIG" 640 "root:$USER_NAME"
    rm -f "$draft"
}

# --- the Pi: host name, mDNS, the amplifier -----------------------------------------

set_hostname() {
    local hosts=$ROOT/etc/hosts renamed=0
    if [ -f "$ROOT/etc/hostname" ] && [ "$(cat "$ROOT/etc/hostname")" = "$HOST_NAME" ]; then
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

add_amp_overlay() {
    local path
    path=$(boot_config)
    if [ -z "$path" ]; then warn "--i2s-amp: no /boot/firmware/config.txt; not a Raspberry Pi?"; return; fi
    if grep -qx "$AMP_OVERLAY" "$ROOT$path"; then say "unchanged $path ($AMP_OVERLAY)"; return; fi
    printf '%s\n%s\n' "$AMP_MARK" "$AMP_OVERLAY" >> "$ROOT$path"
    say "added $AMP_OVERLAY to $path: reboot once to load it"
}

remove_amp_overlay() {
    local path
    path=$(boot_config)
    [ -n "$path" ] && grep -qxF "$AMP_MARK" "$ROOT$path" || return 0
    sed -i "\\|^$AMP_MARK\$|{N;d}" "$ROOT$path"
    say "removed $AMP_OVERLAY from $path (it was ours)"
}

# --- the actions ---------------------------------------------------------------------

do_install() {
    install_packages
    make_user
    lay "$SOURCE/systemd/60-mtrain-hub-gpio.rules" "$UDEV" 644 root:root
    if [ "$LAID" = 1 ] && on_system; then
        udevadm control --reload || true
        udevadm trigger --subsystem-match=gpio || true
    fi
    lay_dir "$PREFIX" 755 root:root
    install_venv
    lay "$SOURCE/docs/deploy.md" "$PREFIX/docs/deploy.md" 644 root:root
    write_config
    lay_dir "$STATE" 700 "$USER_NAME:$USER_NAME"
    if [ "$CHANGED" = 1 ]; then migrate_store; fi
    lay "$SOURCE/systemd/mtrain-hub.service" "$UNIT" 644 root:root
    if [ "$LAID" = 1 ]; then CHANGED=1; fi
    lay "$SOURCE/systemd/avahi/mtrain-hub.service" "$AVAHI" 644 root:root
    set_hostname
    if [ "$I2S_AMP" = 1 ]; then add_amp_overlay; fi
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
    remove "$UNIT" "$AVAHI" "$UDEV" "$PREFIX"
    remove_amp_overlay
    systemctl_do daemon-reload
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

main "$@"
