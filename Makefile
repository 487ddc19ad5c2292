# The Mexican Train hub. `make run` starts it, `make test` runs the whole suite.
# Both work on a fresh machine: they create .venv and install what they need
# (and, when run as root on Debian, the system packages the tests talk to).

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SYSTEM_PACKAGES := chromium mosquitto alsa-utils libasound2-dev
SYSSTAMP := $(VENV)/.system-packages

.PHONY: run test check lint typecheck soak bench clean system-packages

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

# Debian packages the tests talk to: Chromium (scorepad browser tests),
# mosquitto (MQTT), alsa-utils (the null ALSA device). Installed only as root.
system-packages:
	@if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	  missing=""; for p in $(SYSTEM_PACKAGES); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  fi; \
	else echo "not root: skipping Debian packages ($(SYSTEM_PACKAGES))"; fi

run: $(STAMP)
	$(BIN)/mtrain-hub run

test: system-packages $(STAMP)
	$(BIN)/python -m pytest -q

check: $(STAMP)
	$(BIN)/ruff check hub scorer web firmware_bridge tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check hub scorer web firmware_bridge tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/press_to_effect.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
