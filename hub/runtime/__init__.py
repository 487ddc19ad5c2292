"""The hub's plumbing: loop, dispatch, fan-out, timers, config, settings, logs, systemd."""
