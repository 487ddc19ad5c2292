# The Mexican Train hub. `make run` starts it, `make test` runs the whole suite.
# Both work on a fresh machine: they create .venv and install what they need
# (and, when run as root on Debian, the system packages the hub and tests use).

PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
LINTED := hub scorer web firmware_bridge tablesim tests bench tools
# What the hub itself uses (ALSA headers to build pyalsaaudio, aplay for `null`, espeak-ng
# for the voice, DejaVu for the evening's picture) ...
RUNTIME_PACKAGES := alsa-utils libasound2-dev espeak-ng fonts-dejavu-core
# ... what the rehearsal boots a Debian with: debootstrap, systemd-nspawn and, for the
# arm64 one, qemu-user-static ...
REHEARSE_PACKAGES := debootstrap systemd-container qemu-user-static
# ... dnsmasq, busybox's udhcpc, NetworkManager's nmcli and zbarimg: the hub's own Wi-Fi in
# network namespaces, its profile read by NetworkManager's own reader, its card's QR read ...
WIFI_TEST_PACKAGES := dnsmasq busybox network-manager zbar-tools
# ... and what the tests talk to: Chromium (scorepad), mosquitto (MQTT), OpenSCAD (enclosure),
# shellcheck, systemd-analyze and strace (the installer, the unit and its system call filter).
TEST_PACKAGES := $(RUNTIME_PACKAGES) $(WIFI_TEST_PACKAGES) chromium mosquitto openscad shellcheck systemd strace \
	$(REHEARSE_PACKAGES)
REHEARSE := tools/rehearse.sh

.PHONY: run test check lint typecheck bench soak clean runtime-packages test-packages install axe eslint npm-packages \
	hardware stl rehearse rehearse-arm64 rehearse-image rehearse-test rehearse-packages torture

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Installs the hub; the ALSA player is optional at run time (without it the hub
# runs silent and says why), so a failed build of the sound extra (pyalsaaudio, and
# audioop-lts from Python 3.13) only warns here.
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q -e '.[sound]' || \
	  echo "warning: the sound extra did not build (apt install libasound2-dev); sound is off"
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $@ $(RUN_STAMP)

# axe-core and ESLint, the pinned versions in tests/package-lock.json, for the tests only
# (tests/browser/test_axe.py puts axe-core into the page from this file, never from a
# CDN; ESLint is below). Without npm the test skips and says so; under CI it fails instead.
# npm comes from Debian (nodejs, npm) when root and no npm is there: a machine whose
# Node.js has its own npm keeps it (Debian's npm would conflict with it).
AXE := tests/node_modules/axe-core/axe.min.js
$(AXE): tests/package.json tests/package-lock.json
	@if ! command -v npm >/dev/null; then $(MAKE) --no-print-directory npm-packages; fi
	@if command -v npm >/dev/null; then \
	  cd tests && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/axe-core/axe.min.js; \
	elif [ -n "$$CI" ]; then echo "make test: npm is missing and CI needs axe-core"; exit 1; \
	else echo "not installing axe-core: npm is missing (apt install npm)"; fi

axe: $(AXE)

# ESLint over the page's code (web/static/, hub/board/static/), its config in
# tests/eslint.config.mjs; installed with axe-core above. Without npm it says so and
# skips; under CI it fails instead.
ESLINT := tests/node_modules/.bin/eslint
eslint: axe
	@if [ -x $(ESLINT) ]; then \
	  $(ESLINT) -c tests/eslint.config.mjs --max-warnings 0 web/static hub/board/static; \
	elif [ -n "$$CI" ]; then echo "make eslint: ESLint is missing (npm) and CI needs it"; exit 1; \
	else echo "make eslint: SKIPPED: ESLint is not installed (npm is missing: apt install npm)"; fi

# Debian packages, installed only when root and missing (CI and the Pi image run as root).
define apt_install
	@if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  fi; \
	else echo "not root: not installing Debian packages ($(1))"; fi
endef

runtime-packages:
	$(call apt_install,$(RUNTIME_PACKAGES))

test-packages:
	$(call apt_install,$(TEST_PACKAGES))

rehearse-packages:
	$(call apt_install,$(REHEARSE_PACKAGES))

npm-packages:
	$(call apt_install,nodejs npm)

# The hub as a service on a Raspberry Pi (as root): docs/deploy.md. INSTALL_ARGS, e.g.
# `sudo make install INSTALL_ARGS=--i2s-amp`, go to systemd/install.sh.
install:
	systemd/install.sh $(INSTALL_ARGS)

run: runtime-packages
	$(MAKE) $(RUN_STAMP)
	$(BIN)/mtrain-hub run

# The tests run in TEST_JOBS processes (pytest-xdist), handed out one by one in the
# order tests/conftest.py sorts them (the long ones first: `--dist load --maxschedchunk 1`
# starts them at once, spread over the processes, and a process that finishes a test
# takes the next; without the chunk limit load hands each process a quarter of its share
# at once, and one process got every slow and browser test); what is costly
# to make and only read (the installer's install, the sound script's output, the guide's
# STL) is made once for all of them (made_once in tests/helpers.py). The long runs'
# counts follow MTRAIN_TEST_SCALE (tests/helpers.py): unset here, so each takes every
# path a few times; `make torture` runs them long.
TEST_JOBS ?= 3
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_JOBS) --dist load --maxschedchunk 1
# Python keeps its bytecode (and pytest its rewritten test modules) in __pycache__, even
# where the environment says not to (PYTHONDONTWRITEBYTECODE): without it every test
# process compiles every test module again (~9 s of CPU each), every run.
unexport PYTHONDONTWRITEBYTECODE

# The whole check: ruff, ESLint, strict types over all product code, every test, and beside
# the tests the rehearsal on amd64 (below) when this machine can boot a container: it
# mostly waits on its container (~2 minutes, a fraction of it CPU), so it runs while
# pytest does (tools/beside.sh: its output in build/rehearse-test.log, shown after the
# tests'; either failing fails the run).
test: test-packages
	$(MAKE) $(TEST_STAMP) axe
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(MAKE) --no-print-directory eslint
	$(BIN)/mypy
	$(MAKE) rehearse-image
	tools/beside.sh build/rehearse-test.log "$(MAKE) --no-print-directory rehearse-test" $(PYTEST)

# The rehearsal (docs/deploy.md, "Rehearsal"): a real Debian with systemd as PID 1 in a
# container, systemd/install.sh run in it for real and checked as a maker would. Root
# only. Its images are built once from this machine's Debian mirror and cached in
# /var/cache/mtrain-hub-rehearse (REHEARSE_CACHE): about 5 minutes for the base, 1-3 for
# the one with the installer's packages, once per machine.
rehearse: rehearse-packages
	$(REHEARSE)

# Under qemu-user-static: about 10 minutes. In `make torture`, not `make test`.
rehearse-arm64: rehearse-packages
	$(REHEARSE) --arch arm64

# make test builds the images before the tests run (nothing to do once cached) ...
rehearse-image:
	@if $(REHEARSE) --can-run; then $(REHEARSE) --image-only --prepared; fi

# ... and after them boots the prepared one (the installer's Debian packages already
# there: its apt step finds them). Where no container can boot it says so and skips;
# under CI as root that fails instead.
rehearse-test:
	@status=0; $(REHEARSE) --can-run || status=$$?; \
	if [ "$$status" = 0 ]; then $(REHEARSE) --prepared; \
	elif [ -n "$$CI" ] && [ "$$(id -u)" = 0 ]; then \
	  echo "make test: the rehearsal cannot run here (above), and CI needs it"; exit 1; \
	else echo "make test: SKIPPED the rehearsal: this machine cannot boot a container (above)"; fi


check: test

lint: $(TEST_STAMP) eslint
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

typecheck: $(TEST_STAMP)
	$(BIN)/mypy

# The Pi budget bench needs root and cgroup v1 (it says so and skips without them).
bench: $(TEST_STAMP)
	$(BIN)/python bench/press_to_effect.py
	$(BIN)/python bench/footprint.py
	$(BIN)/python bench/pi_budget.py

# The full soak (docs/soak.md): 1,000 whole games per profile and option run, 2 to 8
# players, through the real hub on virtual time; fails if any run finds a mismatch.
SOAK_GAMES ?= 1000
SOAK_SEED ?= 1
SOAK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SOAK_RUNS := aces mexicantrainfun consensus triples "mexicantrainfun --chickenfoot" \
	"consensus --chickenfoot" "consensus --partnerships" "consensus --blanks" \
	"consensus --variant fast_game" \
	"consensus --variant cover_optional" "consensus --variant any_train_cover" \
	"consensus --variant continuous_draw" "consensus --variant doubled_doubles"

soak: $(TEST_STAMP)
	@status=0; for run in $(SOAK_RUNS); do \
	  $(BIN)/mtrain-hub soak --rules $$run --games $(SOAK_GAMES) --players 2..8 \
	    --seed $(SOAK_SEED) --jobs $(SOAK_JOBS) || status=1; \
	done; exit $$status

# The long counts of the tests marked `torture` (docs/soak.md): the API fuzz at 400
# requests per endpoint, 200 kills of the hub in bot games, 50 power cuts during score
# entry, the in-suite soak at 60 games per run. TORTURE_SCALE=2 doubles them.
TORTURE_SCALE ?= 1
torture: test-packages
	$(MAKE) $(TEST_STAMP) axe
	MTRAIN_TEST_SCALE=$(TORTURE_SCALE) $(PYTEST) -m torture
	$(MAKE) rehearse rehearse-arm64

# Every generated file in hardware/: the wiring diagrams and the hub board's layout (from
# the config's pin map) and the BOM tables in the build guide (from hardware/parts.toml).
# Standard library only.
hardware:
	$(PY) tools/make_wiring.py
	$(PY) tools/make_board.py
	$(PY) tools/make_bom.py

# The enclosure's printable parts (hardware/README.md, step 2), into build/stl/.
DOMINO_SET ?= 12
stl:
	mkdir -p build/stl
	for part in top base retainer marker; do \
	  echo "== build/stl/hub-$$part.stl (domino set $(DOMINO_SET)): rendering, a minute or more" >&2; \
	  openscad -D "part=\"$$part\"" -D domino_set=$(DOMINO_SET) \
	    -o build/stl/hub-$$part.stl hardware/enclosure/hub.scad || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info tests/node_modules
