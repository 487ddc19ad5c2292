#!/bin/bash
# `make rehearse`: boot a real Debian with systemd as PID 1 in a container and run
# systemd/install.sh in it for real, then check what a maker would see: the service is
# active and answers on its port, its pin factory loads lgpio from the unit's own working
# directory inside the unit's sandbox (with no /dev/gpiochip0 the error names the chip),
# the watchdog restarts a frozen hub (after a dump of its threads' stacks), a reboot brings
# it back, avahi announces it, lines of C libraries carry a priority, a second install
# changes nothing and uninstall leaves nothing. docs/deploy.md, "Rehearsal", says what
# this proves and what only a real Pi can.
#
#   tools/rehearse.sh [--arch amd64|arm64] [--release bookworm|trixie] [--prepared]
#                     [--cache DIR] [--keep]
#   tools/rehearse.sh --image-only ...    # build (or reuse) the cached image, stop
#   tools/rehearse.sh --can-run ...       # exit 0 when this machine can boot it, else say
#                                         # why and exit 77
#
# Needs root, systemd-nspawn (systemd-container), debootstrap and, for arm64,
# qemu-user-static. The base image is built once from this machine's own Debian mirror
# (its apt sources) and cached outside the checkout (REHEARSE_CACHE, default
# /var/cache/mtrain-hub-rehearse); each run boots a fresh copy of it. --prepared boots
# an image that has the installer's Debian packages already (built once from the base):
# the installer's apt step then finds them all present (`make test` runs it so). The
# container has a network of its own with only a loopback (the hub, avahi and the
# checks live there); apt and pip, run by the installer, reach the package registries
# through this machine's network and trust its certificate authorities.
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCH=amd64
RELEASE=bookworm
CACHE=${REHEARSE_CACHE:-/var/cache/mtrain-hub-rehearse}
KEEP=0
MODE=rehearse
PREPARED=0
SOURCES=/etc/apt
SKIP=77
IMAGE_VERSION=1   # bump when the recipe below changes: cached images are rebuilt
# What a fresh Raspberry Pi OS Lite has that debootstrap's minimal base has not.
BASE_PACKAGES=systemd,systemd-sysv,dbus,ca-certificates,python3,iproute2,procps
CHECKOUT=/root/mtrain-hub        # where the container sees this checkout (read-only)
PORT=80
# The watchdog check freezes the hub loop's thread from outside: ptrace stops that one
# thread (found by its kernel name, hub-loop) while the process and its other threads,
# the watchdog feeder's included, go on. The hub has no hook for it.
FREEZER='
import ctypes, os, sys
PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 0x4206, 0x4207, 0x40000000
pid = sys.argv[1]
tasks = f"/proc/{pid}/task"
tids = [t for t in os.listdir(tasks) if open(f"{tasks}/{t}/comm").read().strip() == "hub-loop"]
if len(tids) != 1:
    sys.exit(f"no one hub-loop thread in process {pid}: {tids}")
tid = int(tids[0])
libc = ctypes.CDLL(None, use_errno=True)
for request in (PTRACE_SEIZE, PTRACE_INTERRUPT):
    if libc.ptrace(request, tid, None, None) != 0:
        sys.exit(f"ptrace {request:#x} on {tid}: {os.strerror(ctypes.get_errno())}")
print(f"froze thread {tid} (hub-loop) of process {pid}", flush=True)
while True:  # held stopped until it is gone: the watchdog kill ends the process
    try:
        _, status = os.waitpid(tid, WALL)
    except ChildProcessError:
        break
    if os.WIFEXITED(status) or os.WIFSIGNALED(status):
        break
'

say() { printf '%s\n' "$*"; }
die() { printf 'rehearse: %s\n' "$*" >&2; exit 1; }
cannot() { printf 'rehearse: cannot run here: %s\n' "$*" >&2; exit "$SKIP"; }

usage() {
    sed -n '2,21s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit "${1:-0}"
}

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            --arch) ARCH=${2:?--arch needs amd64 or arm64}; shift ;;
            --release) RELEASE=${2:?--release needs a name}; shift ;;
            --cache) CACHE=${2:?--cache needs a folder}; shift ;;
            --keep) KEEP=1 ;;
            --prepared) PREPARED=1 ;;
            --image-only) MODE=image ;;
            --can-run) MODE=can-run ;;
            -h|--help) usage 0 ;;
            *) say "unknown option: $1" >&2; usage 2 ;;
        esac
        shift
    done
    case $ARCH in amd64|arm64) ;; *) die "--arch $ARCH: amd64 or arm64" ;; esac
    case $RELEASE in bookworm|trixie) ;; *) die "--release $RELEASE: bookworm or trixie" ;; esac
}

# --- can this machine boot it? --------------------------------------------------------

host_arch() { dpkg --print-architecture 2>/dev/null || uname -m; }

check_can_run() {
    local tool
    [ "$(id -u)" = 0 ] || cannot "not root (a container boot needs root)"
    for tool in systemd-nspawn debootstrap nsenter unshare; do
        command -v "$tool" >/dev/null || cannot "$tool is missing (apt-get install systemd-container debootstrap)"
    done
    [ -d /sys/fs/cgroup ] || cannot "no /sys/fs/cgroup"
    unshare --mount --pid --fork true 2>/dev/null || cannot "no mount and PID namespaces for root here"
    if [ "$ARCH" != "$(host_arch)" ]; then
        command -v qemu-aarch64-static >/dev/null || cannot "qemu-aarch64-static is missing (apt-get install qemu-user-static)"
        binfmt || cannot "the kernel runs no $ARCH binaries (binfmt_misc)"
    fi
}

# Foreign binaries run through qemu-user-static: its handler registered with binfmt_misc
# (the F flag: the kernel opens the interpreter once, so it works inside the container).
binfmt() {
    local dir=/proc/sys/fs/binfmt_misc
    [ -e "$dir/register" ] || mount -t binfmt_misc binfmt_misc "$dir" 2>/dev/null || return 1
    [ -e "$dir/qemu-aarch64" ] && return 0
    if command -v update-binfmts >/dev/null; then update-binfmts --enable qemu-aarch64 2>/dev/null || true; fi
    [ -e "$dir/qemu-aarch64" ] && return 0
    printf '%s' ':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
        > "$dir/register" 2>/dev/null
    [ -e "$dir/qemu-aarch64" ]
}

# --- the base image ---------------------------------------------------------------------

# This machine's Debian mirror: the first URIs of its deb822 sources (or sources.list)
# that is not the security archive.
mirror() {
    local uri
    uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' "$SOURCES"/sources.list.d/*.sources 2>/dev/null || true)
    if [ -z "$uri" ]; then
        uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' \
            "$SOURCES/sources.list" 2>/dev/null || true)
    fi
    printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

image_dir() { printf '%s/%s-%s\n' "$CACHE" "$RELEASE" "$ARCH"; }
prepared_dir() { printf '%s-prepared\n' "$(image_dir)"; }

# The Debian packages systemd/install.sh installs (its PACKAGES), and the checks' own.
installer_packages() {
    sed -n '/^PACKAGES=(/,/)/p' "$SOURCE/systemd/install.sh" | sed 's/^PACKAGES=(//; s/)//' | tr -s ' \n' ' '
    printf 'avahi-utils\n'
}

recipe() {
    printf '%s\n' "$IMAGE_VERSION" "$RELEASE" "$ARCH" "$(mirror)" "$BASE_PACKAGES"
    cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null || true
}

build_image() {
    local image new started wanted
    image=$(image_dir)
    wanted=$(recipe | sha256sum | cut -d' ' -f1)
    if [ -f "$image/.rehearse-image" ] && [ "$(cat "$image/.rehearse-image")" = "$wanted" ]; then
        say "base image: $image (cached)"
        return
    fi
    started=$(date +%s)
    new=$image.new
    rm -rf "$new"
    mkdir -p "$CACHE"
    say "base image: debootstrap $RELEASE ($ARCH) from $(mirror) into $new (a few minutes, once)"
    debootstrap --arch="$ARCH" --variant=minbase --include="$BASE_PACKAGES" "$RELEASE" "$new" "$(mirror)" \
        > "$CACHE/debootstrap-$RELEASE-$ARCH.log" 2>&1 \
        || { tail -20 "$CACHE/debootstrap-$RELEASE-$ARCH.log" >&2; die "debootstrap failed (log above)"; }
    dress_image "$new"
    printf '%s\n' "$wanted" > "$new/.rehearse-image"
    rm -rf "$image"
    mv "$new" "$image"
    say "base image: built in $(( $(date +%s) - started )) s"
}

# The base image with the installer's Debian packages installed (apt-get in the image,
# not booted: no service starts), for the rehearsal `make test` runs.
build_prepared() {
    local image new wanted started
    image=$(prepared_dir)
    wanted=$({ recipe; installer_packages; } | sha256sum | cut -d' ' -f1)
    if [ -f "$image/.rehearse-image" ] && [ "$(cat "$image/.rehearse-image")" = "$wanted" ]; then
        say "prepared image: $image (cached)"
        return
    fi
    started=$(date +%s)
    new=$image.new
    rm -rf "$new"
    cp -a "$(image_dir)" "$new"
    mkdir -p "$CACHE/apt-$RELEASE-$ARCH"
    say "prepared image: apt-get install $(installer_packages)"
    # shellcheck disable=SC2046  # the package names are words
    systemd-nspawn --quiet --directory="$new" --keep-unit --register=no --machine="mtrain-prepare-$$" \
        --bind="$CACHE/apt-$RELEASE-$ARCH:/var/cache/apt/archives" \
        --setenv=DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq $(installer_packages)" \
        > "$CACHE/prepare-$RELEASE-$ARCH.log" 2>&1 < /dev/null \
        || { tail -20 "$CACHE/prepare-$RELEASE-$ARCH.log" >&2; die "apt-get in the image failed (log above)"; }
    printf '%s\n' "$wanted" > "$new/.rehearse-image"
    rm -rf "$image"
    mv "$new" "$image"
    say "prepared image: built in $(( $(date +%s) - started )) s"
}

# The image as a Pi comes from Imager: its host name, the apt sources in deb822 form,
# the certificate authorities this machine's own package clients trust.
dress_image() {
    local root=$1
    printf 'raspberrypi\n' > "$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n' > "$root/etc/hosts"
    rm -f "$root/etc/apt/sources.list"
    cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $(mirror)
Suites: $RELEASE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    mkdir -p "$root/usr/local/share/ca-certificates/rehearse"
    cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/rehearse/host-bundle.crt"
    # pip (the hub's venv) reads /etc/pip.conf; apt over https reads the same bundle.
    printf '[global]\ncert = /usr/local/share/ca-certificates/rehearse/host-bundle.crt\n' > "$root/etc/pip.conf"
    printf 'Acquire::https::CaInfo "/usr/local/share/ca-certificates/rehearse/host-bundle.crt";\n' \
        > "$root/etc/apt/apt.conf.d/90rehearse-ca"
    # The console getty would wait on the container's console for nobody.
    ln -sf /dev/null "$root/etc/systemd/system/console-getty.service"
}

# --- the container ---------------------------------------------------------------------

WORK=""
NSPAWN=""
LEADER=""

boot() {
    local waited=0 child
    : > "$WORK/console.log"
    systemd-nspawn --quiet --directory="$WORK/root" --boot --keep-unit --register=no \
        --private-network --machine="mtrain-rehearse-$$" \
        --bind="$CACHE/pip-$RELEASE-$ARCH:/root/.cache/pip" \
        --bind="$CACHE/apt-$RELEASE-$ARCH:/var/cache/apt/archives" \
        --bind-ro="$SOURCE:$CHECKOUT" \
        >> "$WORK/console.log" 2>&1 < /dev/null &
    NSPAWN=$!
    LEADER=""
    while [ -z "$LEADER" ]; do
        kill -0 "$NSPAWN" 2>/dev/null || { tail -20 "$WORK/console.log" >&2; die "the container did not boot"; }
        for child in $(pgrep -P "$NSPAWN" || true); do
            [ "$(cat "/proc/$child/comm" 2>/dev/null)" = systemd ] && LEADER=$child
        done
        [ -n "$LEADER" ] || { sleep 0.2; waited=$((waited + 1)); }
        [ "$waited" -lt 300 ] || die "no systemd in the container after 60 s"
    done
    until_true 120 booted || die "the container's systemd did not finish booting in 120 s"
}

# systemd in the container has started every unit of the boot (some may have failed).
booted() {
    case $(box systemctl is-system-running 2>/dev/null) in running|degraded) return 0 ;; esac
    return 1
}

# box CMD... - run a command in the container (its own network: only the loopback).
box() {
    nsenter --target="$LEADER" --mount --uts --ipc --pid --cgroup --net --root --wd \
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 TERM=dumb "$@"
}

# box_online CMD... - the same, on this machine's network (apt and pip reach their registries).
box_online() {
    nsenter --target="$LEADER" --mount --uts --ipc --pid --cgroup --root --wd \
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

# power_off [reboot] - stop the container (systemctl: SIGRTMIN+4 misfires under qemu);
# nspawn's exit status in NSPAWN_STATUS (133: the container asked for a reboot).
NSPAWN_STATUS=""
power_off() {
    local verb=${1:-poweroff}
    NSPAWN_STATUS=0
    box systemctl "$verb" --no-block >/dev/null 2>&1 || true
    wait "$NSPAWN" || NSPAWN_STATUS=$?
    NSPAWN=""
}

cleanup() {
    if [ -n "$NSPAWN" ] && kill -0 "$NSPAWN" 2>/dev/null; then
        box systemctl poweroff --no-block >/dev/null 2>&1 || kill "$NSPAWN" 2>/dev/null || true
        wait "$NSPAWN" 2>/dev/null || true
    fi
    if [ -n "$WORK" ] && [ "$KEEP" = 0 ]; then rm -rf "$WORK"; fi
    if [ -n "$WORK" ] && [ "$KEEP" = 1 ]; then say "kept $WORK (the container's root and console.log)"; fi
}

# --- checks ----------------------------------------------------------------------------

FAILED=0
PASSED=0
STEP_START=0
LOG=""

step() { STEP_START=$(date +%s); say "== $*"; }
ok() { say "ok ($(( $(date +%s) - STEP_START )) s): $*"; PASSED=$((PASSED + 1)); }
fail() { say "FAIL: $*"; FAILED=$((FAILED + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

# until_true SECONDS CMD... - poll a condition once a second.
until_true() {
    local limit=$1 i=0
    shift
    until "$@"; do
        i=$((i + 1))
        [ "$i" -lt "$limit" ] || return 1
        sleep 1
    done
}

unit() { box systemctl show -P "$1" mtrain-hub.service; }
active() { [ "$(box systemctl is-active mtrain-hub.service)" = active ]; }
failed_with() { [ "$(unit ActiveState)" = failed ] && [ "$(unit ExecMainStatus)" = "$1" ]; }
journal() { box journalctl --no-pager -o cat -u mtrain-hub.service "$@"; }

# The scorepad's state over HTTP inside the container; prints its backend.
answers() {
    box python3 -c '
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as reply:
    print(json.load(reply)["backend"])' "http://127.0.0.1:$PORT/api/state" 2>/dev/null
}
answers_sim() { [ "$(answers)" = sim ]; }

install_hub() {
    box_online bash "$CHECKOUT/systemd/install.sh" "$@" > "$LOG" 2>&1
    local status=$?
    sed 's/^/    | /' "$LOG"
    return "$status"
}

no_command_missing() { ! grep -q 'command not found' "$LOG"; }

# The installer's files: path, mode, owner, size and content hash.
manifest() {
    box sh -c 'find /opt/mtrain-hub /etc/mtrain-hub.toml /etc/systemd/system/mtrain-hub.service \
        /etc/avahi/services/mtrain-hub.service /etc/udev/rules.d/60-mtrain-hub-gpio.rules \
        /var/lib/mtrain-hub -path "*/__pycache__" -prune -o -printf "%p %m %u %s %T@\n" | sort'
}

# Under qemu-user-static only, PrivateIPC= cannot be set up (the issue's trial run): a
# drop-in turns it off for the emulated rehearsal, and goes before uninstall's check.
DROPIN=/etc/systemd/system/mtrain-hub.service.d/rehearse-emulation.conf

emulation_dropin() {
    [ "$ARCH" != "$(host_arch)" ] || return 0
    box sh -c "mkdir -p ${DROPIN%/*} && printf '%s\n' '# tools/rehearse.sh: qemu-user cannot set up PrivateIPC=' '[Service]' 'PrivateIPC=no' > $DROPIN"
    say "    | emulated $ARCH: $DROPIN sets PrivateIPC=no"
}

check_install() {
    step "install: systemd/install.sh, as on a Pi"
    emulation_dropin
    if install_hub; then
        ok "the installer finished"
    else
        fail "the installer failed (its output above; the hub's journal below)"
        journal -n 40 | sed 's/^/    | /'
        return 1
    fi
    check "no 'command not found' in its output" no_command_missing
    check "mtrain-hub.service is active" until_true 30 active
    check "it answers on port $PORT (backend sim: no GPIO here)" until_true 30 answers_sim
}

lgpio_failed_on_the_chip() {
    local text
    text=$(journal -p err --since "@$1")
    say "    | ${text//$'\n'/$'\n'    | }"
    grep -q "no GPIO chip: /dev/gpiochip0 does not exist" <<< "$text" \
        && grep -q "its notify pipe in /run/mtrain-hub" <<< "$text" \
        && ! grep -qiE "read-only|lgd-nfy|xCreatePipe" <<< "$text"
}

check_gpio() {
    local since restarts
    step "the gpio backend in the unit's sandbox: lgpio from its working directory"
    check "lgpio is in the hub's venv (pip's wheel: Debian has no python3-lgpio)" \
        box /opt/mtrain-hub/venv/bin/python -c 'import importlib.util as u, sys; sys.exit(u.find_spec("lgpio") is None)'
    since=$(box date +%s)
    restarts=$(unit NRestarts)
    box sed -i 's/^backend = "auto"/backend = "gpio"/' /etc/mtrain-hub.toml
    box systemctl restart mtrain-hub.service || true
    check "with backend gpio the hub stops with exit status 2" until_true 20 failed_with 2
    check "the error names the missing chip (lgpio loaded in /run/mtrain-hub), no FIFO or read-only path" \
        lgpio_failed_on_the_chip "$since"
    check "not restarted (RestartPreventExitStatus=2)" test "$(unit NRestarts)" = "$restarts"
    box sed -i 's/^backend = "gpio"/backend = "auto"/' /etc/mtrain-hub.toml
    box systemctl restart mtrain-hub.service
    check "back to backend auto: active and answering" until_true 30 answers_sim
}

# Lines without a priority prefix (C libraries: ALSA, lgpio) land at warning or above.
unprefixed_lines_are_warnings() {
    box python3 -c '
import json, subprocess, sys
out = subprocess.run(["journalctl", "-u", "mtrain-hub.service", "-o", "json", "--no-pager"],
                     capture_output=True, text=True, check=True).stdout
ours = ("hub", "web", "tornado", "asyncio", "scorer", "firmware_bridge", "py.warnings")
seen = bad = 0
for line in out.splitlines():
    entry = json.loads(line)
    if entry.get("_TRANSPORT") != "stdout" or not isinstance(entry.get("MESSAGE"), str):
        continue
    message = entry["MESSAGE"]
    if message.split(":", 1)[0].split(".", 1)[0] in ours:
        continue
    seen += 1
    if int(entry["PRIORITY"]) > 4:
        bad += 1
        print("    | priority", entry["PRIORITY"], message)
print(f"    | {seen} line(s) from outside the hub logger, {bad} below warning")
sys.exit(1 if bad or not seen else 0)'
}

watchdog_restarted() { [ "$(unit NRestarts)" -gt "$1" ] && [ "$(unit MainPID)" != "$2" ] && active; }

# The journal since $1 has the feeder's warning naming the threads, systemd's watchdog
# timeout, and the frozen hub-loop thread's stack in the hub's loop (both dumps: the
# feeder's before the kill, faulthandler's at the kill's SIGABRT).
dumped_stacks() {
    box journalctl --no-pager -o cat --since "@$1" | box python3 -c "$DUMPED"
}

DUMPED='
import re, sys
text = sys.stdin.read()
warned = "the hub loop has not answered" in text
killed = "Watchdog timeout" in text
loop = re.search(r"hub-loop (0x[0-9a-f]+)", text)
ident = loop[1] if loop else None
stacks = re.findall(r"^Thread (0x[0-9a-f]+) [(]most recent call first[)]:\n((?:  File .*\n)+)", text, re.M)
frozen = [frames for thread, frames in stacks if thread == ident]
in_loop = bool(frozen) and all("hub/runtime/loop.py" in frames for frames in frozen)
print(f"    | warned: {warned}; watchdog timeout: {killed}; hub-loop: {ident}; "
      f"its stack dumped {len(frozen)} times, in hub/runtime/loop.py: {in_loop}")
sys.exit(0 if warned and killed and len(frozen) >= 2 and in_loop else 1)
'

# host_pid PID - this machine's number for the container's process PID (its NSpid).
host_pid() {
    local ns status
    ns=$(readlink "/proc/$LEADER/ns/pid")
    for status in /proc/[0-9]*/status; do
        [ "$(readlink "${status%/status}/ns/pid" 2>/dev/null)" = "$ns" ] || continue
        if awk -v want="$1" '$1 == "NSpid:" { found = ($NF == want) } END { exit !found }' \
            "$status" 2>/dev/null; then
            status=${status%/status}
            printf '%s\n' "${status#/proc/}"
            return 0
        fi
    done
    return 1
}

# freeze PID - run the freezer on the hub's process: in the container, or under
# emulation from this machine (qemu-user implements no ptrace for the programs it runs;
# the hub's threads are this machine's threads, named as the hub named them).
freeze() {
    if [ "$ARCH" = "$(host_arch)" ]; then
        box timeout 120 python3 -c "$FREEZER" "$1"
    else
        timeout 120 python3 -c "$FREEZER" "$(host_pid "$1")"
    fi
}

check_watchdog() {
    local pid restarts since freezer
    step "the watchdog: a frozen loop is killed (stacks dumped) and restarted"
    pid=$(unit MainPID)
    restarts=$(unit NRestarts)
    since=$(box date +%s)
    freeze "$pid" > "$WORK/freezer.log" 2>&1 &
    freezer=$!
    check "restarted by systemd with a new process, answering again" \
        until_true 90 watchdog_restarted "$restarts" "$pid"
    wait "$freezer" || true
    sed 's/^/    | /' "$WORK/freezer.log"
    check "the loop's thread alone was frozen (ptrace), the process lived on" grep -q "^froze thread" "$WORK/freezer.log"
    until_true 30 answers_sim || true
    check "the journal has the warning, systemd's watchdog timeout and the frozen loop's stack" \
        dumped_stacks "$since"
}

nothing_laid() { ! grep -q "^laid " "$LOG" && grep -q "unchanged /opt/mtrain-hub/venv" "$LOG"; }

check_again() {
    local before pid
    step "a second install changes nothing"
    before=$(manifest)
    pid=$(unit MainPID)
    if install_hub; then ok "the installer finished"; else fail "the second install failed"; return; fi
    check "no file laid, the venv unchanged" nothing_laid
    check "the installer's files are as they were" test "$before" = "$(manifest)"
    check "the hub was not restarted" test "$pid" = "$(unit MainPID)"
}

# avahi-browse's parsable lines escape a space as \032.
announced() {
    box avahi-browse --terminate --resolve --parsable --no-db-lookup _http._tcp 2>/dev/null \
        | grep -qF ';Mexican\032Train\032hub\032on\032mtrain;_http._tcp;local;mtrain.local;127.0.0.1;'"$PORT;"
}

resolves() { box getent hosts mtrain.local > /dev/null; }
avahi_read_it() { ! box journalctl --no-pager -o cat -u avahi-daemon.service | grep -q "Permission denied"; }

# Under qemu-user avahi cannot join IPv4 multicast (IP_ADD_MEMBERSHIP: "No such
# device", the emulator's translation of the option), so nothing it announces reaches
# avahi-browse: there its own journal is read instead, and the native rehearsal browses.
avahi_says() { box journalctl --no-pager -o cat -u avahi-daemon.service | grep -qF "$1"; }

check_avahi() {
    step "avahi announces the scorepad"
    if [ "$ARCH" != "$(host_arch)" ]; then
        say "    | emulated $ARCH: avahi joins no IPv4 multicast group under qemu-user; its journal says what it announces"
        check "avahi established 'Mexican Train hub on mtrain'" \
            until_true 20 avahi_says 'Service "Mexican Train hub on mtrain" (/services/mtrain-hub.service) successfully established'
        check "avahi's host name is mtrain.local" avahi_says "Host name is mtrain.local"
        check "avahi read the file (no 'Permission denied')" avahi_read_it
        return
    fi
    box_online apt-get install -y -qq avahi-utils > /dev/null 2>&1 || { fail "apt-get install avahi-utils"; return; }
    check "_http._tcp 'Mexican Train hub on mtrain', port $PORT" until_true 20 announced
    check "mtrain.local resolves (nss-mdns through avahi)" resolves
    check "avahi read the file (no 'Permission denied')" avahi_read_it
}

# The hub's own Wi-Fi in a real NetworkManager: the container has no Wi-Fi device, so the
# hotspot cannot come up; everything short of that is checked.
HOTSPOT=mtrain-hub-hotspot
nm_active() { [ "$(box systemctl is-active NetworkManager.service)" = active ]; }
nm_knows() { box nmcli -t -f NAME,TYPE connection show | grep -qx "$HOTSPOT:802-11-wireless"; }
nm_says() { [ "$(box nmcli -s -g "$1" connection show "$HOTSPOT")" = "$2" ]; }
state_passphrase() { box sed -n 's/^passphrase = "\(.*\)"$/\1/p' /var/lib/mtrain-hub/hotspot.toml; }
nm_no_warning() {
    ! box journalctl --no-pager -o cat -u NetworkManager.service | grep -E '<(warn|error)>' \
        | grep -iE 'keyfile|mtrain|dnsmasq'
}
dnsmasq_reads_it() {
    box /usr/sbin/dnsmasq --test --conf-file=/dev/null --conf-dir=/etc/NetworkManager/dnsmasq-shared.d \
        2>&1 | grep -q 'syntax check OK'
}
# wifi_says STATUS WORDS ARGS... - `mtrain-hub wifi ARGS` exits STATUS and says WORDS,
# with no traceback.
wifi_says() {
    local status=$1 words=$2 said code=0
    shift 2
    said=$(box /opt/mtrain-hub/venv/bin/mtrain-hub wifi "$@" 2>&1) || code=$?
    say "    | mtrain-hub wifi $*: ${said//$'\n'/$'\n'    |   }"
    [ "$code" = "$status" ] && grep -qF -- "$words" <<< "$said" && ! grep -q Traceback <<< "$said"
}
portal_unset() { ! box grep -q '^portal' /etc/mtrain-hub.toml; }
passphrase_changed() {
    local before=$1 now
    now=$(state_passphrase)
    [ -n "$now" ] && [ "$now" != "$before" ] && nm_says 802-11-wireless-security.psk "$now" \
        && [ "$(box stat -c %U /var/lib/mtrain-hub/hotspot.toml)" = mtrain ]
}

check_wifi() {
    local before
    step "the hub's own Wi-Fi in NetworkManager (no Wi-Fi device here)"
    check "NetworkManager is running" until_true 30 nm_active
    check "it loaded the hotspot's profile ($HOTSPOT, 802-11-wireless)" until_true 20 nm_knows
    check "an access point, IPv4 shared, below the user's networks" \
        nm_says 802-11-wireless.mode,ipv4.method,connection.autoconnect-priority $'ap\nshared\n-100'
    check "its passphrase is the state folder's" nm_says 802-11-wireless-security.psk "$(state_passphrase)"
    check "NetworkManager's journal has no warning about a keyfile or dnsmasq" nm_no_warning
    check "dnsmasq reads the portal's file (syntax check OK)" dnsmasq_reads_it
    check "mtrain-hub wifi status: the hotspot is down and ready" wifi_says 0 "hotspot: down, ready" status
    check "mtrain-hub wifi hotspot: exit 2, no Wi-Fi device named" \
        wifi_says 2 "the hotspot did not come up" hotspot
    check "the portal stays off (the config unchanged)" portal_unset
    before=$(state_passphrase)
    check "mtrain-hub wifi passphrase: a new one" wifi_says 0 "is now:" passphrase
    check "in NetworkManager and the state folder (still the hub's user's)" passphrase_changed "$before"
    check "mtrain-hub wifi home: exit 0, the portal off" wifi_says 0 "the hotspot was not up" home
}

check_reboot() {
    step "a reboot brings the hub back"
    power_off reboot
    check "the container asked for a reboot (nspawn's exit status 133)" test "$NSPAWN_STATUS" = 133
    boot
    check "mtrain-hub.service is active after boot" until_true 60 active
    check "it answers on port $PORT" until_true 30 answers_sim
}

leaves_nothing() {
    local left
    left=$(box sh -c "find / -xdev \\( -path $CHECKOUT -o -path /proc -o -path /sys \\) -prune \
        -o -name '*mtrain*' -print; getent passwd mtrain; getent group mtrain; \
        systemctl list-unit-files --no-legend 'mtrain*'; ls -d /run/mtrain-hub 2>/dev/null" || true)
    if [ -n "$left" ]; then say "    | left: ${left//$'\n'/$'\n'    | left: }"; return 1; fi
}

check_uninstall() {
    step "uninstall --purge leaves nothing of the hub"
    box rm -rf "${DROPIN%/*}"
    if install_hub --uninstall --purge; then ok "the uninstaller finished"; else fail "uninstall failed"; return; fi
    check "no mtrain file, user, group, unit or runtime folder is left" leaves_nothing
}

# --- main ------------------------------------------------------------------------------

rehearse() {
    local started
    started=$(date +%s)
    build_images
    mkdir -p "$CACHE/pip-$RELEASE-$ARCH" "$CACHE/apt-$RELEASE-$ARCH"
    WORK=$(mktemp -d "$CACHE/run.XXXXXX")
    LOG=$WORK/install.log
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    step "boot $RELEASE ($ARCH) with systemd as PID 1$([ "$PREPARED" = 0 ] || echo ", the installer's packages there")"
    if [ "$PREPARED" = 1 ]; then cp -a "$(prepared_dir)" "$WORK/root"; else cp -a "$(image_dir)" "$WORK/root"; fi
    boot
    ok "booted: $(box systemctl is-system-running || true)"
    if check_install; then
        check_gpio
        check_watchdog
        check "lines without a priority (faulthandler, ALSA, lgpio) are warnings" unprefixed_lines_are_warnings
        check_again
        check_avahi
        check_wifi
        check_reboot
        check_uninstall
    fi
    step "power off"
    power_off
    check "powered off (nspawn's exit status 0)" test "$NSPAWN_STATUS" = 0
    say "rehearsal of $RELEASE ($ARCH$([ "$PREPARED" = 0 ] || echo ", prepared")): $(( $(date +%s) - started )) s"
    say "rehearsal: $PASSED passed, $FAILED failed"
    [ "$FAILED" = 0 ]
}

build_images() {
    build_image
    if [ "$PREPARED" = 1 ]; then build_prepared; fi
}

main() {
    parse_args "$@"
    check_can_run
    case $MODE in
        can-run) say "rehearse: this machine can boot a $RELEASE ($ARCH) container" ;;
        image) build_images ;;
        rehearse) rehearse ;;
    esac
}

# Sourced (tests/deploy/test_rehearse.py calls single functions), it only defines them.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
