"""The ``mtrain-hub`` command: one module per subcommand (``main`` reads the command line
and hands it to the subcommand's module), and the exit statuses they share."""

# Exit statuses of ``mtrain-hub run`` (the unit's ``RestartPreventExitStatus=2 3``:
# restarting cannot mend a bad config or a damaged store, so systemd does not try).
EXIT_OK = 0
EXIT_CONFIG = 2  # the config is not valid; the message names the key
EXIT_STORAGE = 3  # the game store is damaged or unusable; its files are kept
