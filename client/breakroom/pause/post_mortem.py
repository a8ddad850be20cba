"""Pausing where an exception was raised: `breakroom.post_mortem()` for one being handled, and
the hooks `breakroom.install_excepthook()` puts on uncaught exceptions (the main thread's and
other threads'), narrowed by the server's error breakpoints when they install it."""

import sys
import threading

from ..process import current
from ..protocol.constants import PAUSE_EXCEPTION
from .call import pause_in_frame

_uncaught_filter = None  # installed hooks: None, or (exc, tb) -> whether it pauses
_ALL = object()


def post_mortem(tb=None):
    """Pauses in the frame that raised: the innermost frame of `tb`, or of the exception being
    handled (or the last uncaught one). The REPL sees that frame's locals plus `exception`."""
    exc = None
    if tb is None:
        exc = sys.exc_info()[1] or getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
        if exc is None:
            raise ValueError("post_mortem() needs a traceback, or an exception being handled")
        tb = exc.__traceback__
    if tb is None:
        raise ValueError("post_mortem() got an exception without a traceback")
    pause_where_raised(exc, tb)


def install_excepthook(pauses=None):
    """Makes every uncaught exception (main thread and other threads) pause post-mortem in
    the frame that raised it, after the usual traceback is printed. With `pauses(exc, tb)`,
    only those it says yes to (error breakpoints of some types); once every exception pauses,
    a filter installed later does not narrow it."""
    global _uncaught_filter
    installed = _uncaught_filter is not None
    if _uncaught_filter is not _ALL:
        _uncaught_filter = pauses or _ALL
    if installed:
        return
    previous = sys.excepthook
    previous_thread_hook = threading.excepthook

    def wanted(exc, tb):
        wants = _uncaught_filter
        try:
            return wants is _ALL or bool(wants(exc, tb))
        except Exception as err:  # a broken filter must not hide the exception's pause
            print(f"breakroom: error breakpoints failed ({err}); pausing anyway", file=sys.stderr)
            return True

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if tb is not None and not issubclass(exc_type, KeyboardInterrupt) and wanted(exc, tb):
            _post_mortem_quietly(exc, tb)

    def thread_hook(args):
        previous_thread_hook(args)
        exc, tb = args.exc_value, args.exc_traceback
        if tb is not None and exc is not None and wanted(exc, tb):
            _post_mortem_quietly(exc, tb)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def _post_mortem_quietly(exc, tb):
    try:
        pause_where_raised(exc, tb)
    except Exception as err:  # the program is already dying: say why the pause failed, once
        print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)


def pause_where_raised(exc, tb):
    """Pauses in the innermost frame of `tb`, with `exception` in the REPL."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    extra = {"exception": exc} if exc is not None else None
    pause_in_frame(current.client(), tb.tb_frame, PAUSE_EXCEPTION, extra=extra, exc=exc)
