"""Pausing where an exception was raised: `breakroom.post_mortem()` for one being handled, and
the hooks `breakroom.install_excepthook()` puts on uncaught exceptions (the main thread's and
other threads', and those asyncio's loops are left with), narrowed by the server's error
breakpoints when they install it."""

import sys
import threading

from ..process import current, switch_interval
from ..protocol.constants import PAUSE_EXCEPTION
from .call import pause_in_frame, wait_in_frame

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

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if tb is not None and not issubclass(exc_type, KeyboardInterrupt) and _wanted(exc, tb):
            _post_mortem_quietly(exc, tb)

    def thread_hook(args):
        previous_thread_hook(args)
        exc, tb = args.exc_value, args.exc_traceback
        if tb is not None and exc is not None and _wanted(exc, tb):
            _post_mortem_quietly(exc, tb)

    sys.excepthook = hook
    threading.excepthook = thread_hook
    hook_event_loops()


def _wanted(exc, tb):
    wants = _uncaught_filter
    try:
        return wants is _ALL or bool(wants(exc, tb))
    except Exception as err:  # a broken filter must not hide the exception's pause
        print(f"breakroom: error breakpoints failed ({err}); pausing anyway", file=sys.stderr)
        return True


_loops_hooked = False


def hook_event_loops():
    """asyncio (issue 51): an exception no one retrieves from a task, or one a loop's callback
    raised, goes to the loop's exception handler, not to `sys.excepthook`. Once the hooks above
    are installed, such an exception pauses post-mortem too, after the handler logged it, but
    beside its loop: the pause waits on a thread of its own while the loop runs every other task
    (the task is over; its frames stay readable through the traceback). asyncio's own loops only
    (uvloop's handler is compiled, out of reach). Called again when asyncio may have been
    imported since (the breakpoint channel's turns)."""
    global _loops_hooked
    base_events = sys.modules.get("asyncio.base_events")
    if _loops_hooked or _uncaught_filter is None or base_events is None:
        return
    _loops_hooked = True
    original = base_events.BaseEventLoop.call_exception_handler

    def call_exception_handler(loop, context):
        original(loop, context)
        exc = context.get("exception") if isinstance(context, dict) else None
        tb = getattr(exc, "__traceback__", None)
        if tb is None or isinstance(exc, (KeyboardInterrupt, SystemExit)) or not _wanted(exc, tb):
            return
        threading.Thread(target=_post_mortem_beside, args=(loop, exc, tb), name="breakroom-post-mortem",
                         daemon=True).start()

    base_events.BaseEventLoop.call_exception_handler = call_exception_handler


def _post_mortem_beside(loop, exc, tb):
    """A post-mortem pause on this thread, the loop running on; the REPL may `await` on it."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    client = current.client()
    if not client.ensure_connected():
        return
    try:
        with switch_interval.Held():  # the loop's thread may be busy: short turns for this one
            wait_in_frame(client, tb.tb_frame, PAUSE_EXCEPTION, {"exception": exc}, exc, None, None,
                          loop=loop if loop.is_running() else None)
    except Exception as err:  # the program goes on: say why the pause failed
        print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)


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
