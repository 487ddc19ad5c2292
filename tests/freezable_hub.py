"""``mtrain-hub`` with the watchdog's test hook: ``SIGUSR2`` freezes the hub loop's
thread, a second ``SIGUSR2`` thaws it.

``tests/runtime/test_notify.py`` runs ``python -m tests.freezable_hub run ...`` in place of the
console script, to see the watchdog pings stop while the loop hangs and resume after.
The product holds no such hook: this module wraps :class:`Supervision` in the child
process only.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from hub.cli.main import main
from hub.runtime import supervision
from hub.runtime.notify import LoopBeat, LoopCall, Notifier

log = logging.getLogger("tests.freezer")


class LoopFreezer:
    """``SIGUSR2`` freezes the loop thread, a second one thaws it; :meth:`thaw`
    before stopping the hub."""

    def __init__(self, loop_call: LoopCall) -> None:
        self._loop_call = loop_call
        self._thawed = threading.Event()
        self._frozen = False

    def install(self) -> None:
        """Handle ``SIGUSR2`` (call from the main thread)."""
        signal.signal(signal.SIGUSR2, self._toggle)

    def _toggle(self, _signum: int, _frame: FrameType | None) -> None:
        if self._frozen:
            self.thaw()
            return
        self._frozen = True
        self._thawed.clear()
        log.warning("SIGUSR2: freezing the hub loop (test hook); SIGUSR2 again thaws it")
        # The call waits on the loop; a helper thread keeps the signal handler short.
        threading.Thread(target=self._freeze, name="freeze", daemon=True).start()

    def _freeze(self) -> None:
        try:
            self._loop_call(lambda _table: self._thawed.wait(), None)
        except TimeoutError:
            pass

    def thaw(self) -> None:
        """Let a frozen loop go on."""
        if self._frozen:
            log.warning("thawing the hub loop")
        self._frozen = False
        self._thawed.set()


class FreezableSupervision(supervision.Supervision):
    """The real supervision, plus the freezer armed at start and thawed at stop."""

    def __init__(
        self,
        loop_call: LoopCall,
        loop_beat: LoopBeat,
        describe: Callable[[str, int], str],
        notifier: Notifier | None = None,
    ) -> None:
        super().__init__(loop_call, loop_beat, describe, notifier)
        self.freezer = LoopFreezer(loop_call)

    def start(self) -> None:
        super().start()
        self.freezer.install()

    def stopping(self) -> None:
        super().stopping()
        self.freezer.thaw()  # a frozen loop could not stop


if __name__ == "__main__":
    supervision.Supervision = FreezableSupervision  # type: ignore[misc]
    sys.exit(main(sys.argv[1:]))
