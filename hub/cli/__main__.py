"""``python -m hub.cli``: the same as the ``mtrain-hub`` console script."""

import sys

from hub.cli.main import main

sys.exit(main())
