"""Breakroom debug client.

    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    compute(6, 7)        # pauses; open the REPL in the browser, then Continue

`BREAKROOM_URL` picks the server (default http://127.0.0.1:5174); several, comma-separated,
fail over from one to the next. `breakroom.set_trace()`
(or `PYTHONBREAKPOINT=breakroom.set_trace` and a plain `breakpoint()`) pauses in the caller's
own frame; `breakroom.post_mortem()` and `breakroom.install_excepthook()` pause in the frame
that raised.
"""

import functools
import inspect
import sys
import threading

from ._breakpoint_kinds import BreakpointError, BreakpointSpec
from ._call import Breakpoint, WrappedCall, pause_in_frame
from ._client import DebugClient, DebugProtocolError

__all__ = [
    "breakpoint",
    "BreakpointError",
    "checkpoints",
    "BreakpointSpec",
    "configure",
    "DebugProtocolError",
    "install_excepthook",
    "line_breakpoints",
    "post_mortem",
    "set_trace",
    "with_debug",
]

_client = None
_client_lock = threading.Lock()


def configure(url=None, *, labels=None, snapshot_budget=None):
    """Points the client at a server (instead of BREAKROOM_URL) and forgets the old one. Several
    addresses (a list, or one comma-separated string) fail over from one to the next; an entry
    that is not an http:// URL is a ValueError naming it. `labels={"service": "api"}` replaces BREAKROOM_LABELS (snapshot breakpoints aimed with
    `where`); `snapshot_budget=0.05` the share of time snapshots and logpoints may take
    (BREAKROOM_SNAPSHOT_BUDGET, 0.01 by default). Given only those, the client is kept."""
    global _client
    if labels is not None:
        from . import _labels

        _labels.configure(labels)
    if snapshot_budget is not None:
        from . import _snapshots

        _snapshots.configure_budget(snapshot_budget)
    with _client_lock:
        if url is not None or (labels is None and snapshot_budget is None) or _client is None:
            _client = DebugClient(url)
        return _client


def _get_client():
    global _client
    with _client_lock:
        if _client is None:
            _client = DebugClient()
        return _client


def with_debug(func, name=None):
    """Wraps a callable so that each call can pause at the server. Registers a breakpoint on
    its name (or `name`), so by default every call pauses once, before it runs."""
    if not callable(func):
        raise TypeError(f"with_debug needs a callable, not {type(func).__name__}")
    bp = Breakpoint(_get_client(), func, name)
    bp.register()

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args, **kwargs):
            import asyncio

            if bp.client.away():
                return await func(*args, **kwargs)
            call = WrappedCall(bp, args, kwargs, sys._getframe(1))
            call.read_stack()
            # The pauses block a worker thread, so the program's other tasks keep running.
            if not await asyncio.to_thread(call.before):
                return await func(*args, **kwargs)
            try:
                result = call.run()
                if inspect.isawaitable(result):
                    result = await result
            except BaseException as exc:
                await asyncio.to_thread(call.after_raise, exc)
                call.finish_step(raised=True)
                raise
            result = await asyncio.to_thread(call.after_return, result)
            # On the event loop: a step goes on in the caller, which runs here.
            call.finish_step(result)
            return result

        async_wrapper.__breakroom_name__ = bp.name
        return async_wrapper

    client = bp.client
    from ._offthread import is_worker

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        # The server out of reach: one clock read, no call object. A snapshot's repr calling
        # this: it must not pause (the program's thread waits for it).
        if client.away() or is_worker():
            return func(*args, **kwargs)
        call = WrappedCall(bp, args, kwargs, sys._getframe(1))
        if not call.before():
            return func(*args, **kwargs)
        try:
            result = call.run()
        except BaseException as exc:
            call.after_raise(exc)
            call.finish_step(raised=True)
            raise
        result = call.after_return(result)
        call.finish_step(result)
        return result

    wrapper.__breakroom_name__ = bp.name
    return wrapper


def checkpoints(enabled=True, cap=None, threads="refuse"):
    """Time travel (issue 20): with checkpoints on, each Continue forks a snapshot of the
    process, so the server can step back to that pause later (`cap` snapshots per process, 16
    by default; the oldest unnamed goes first). `threads="allow"` snapshots a process running
    other threads too (fork keeps only the calling thread). Also `BREAKROOM_CHECKPOINTS=1` and
    `BREAKROOM_CHECKPOINT_CAP=N`. Only memory is rewound: not files, sockets or child processes."""
    from . import _checkpoints

    return _checkpoints.configure(enabled, cap, threads)


def breakpoint(func=None, *, name=None):
    """Decorator form of with_debug: `@breakroom.breakpoint` or `@breakroom.breakpoint(name=...)`."""
    if func is None:
        return lambda f: with_debug(f, name)
    return with_debug(func, name)


def set_trace(*, frame=None):
    """Pauses here: the REPL runs in the caller's frame, with its real locals and globals."""
    frame = frame or sys._getframe(1)
    pause_in_frame(_get_client(), frame, "always")


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
    _pause_where_raised(exc, tb)


_uncaught_filter = None  # installed hooks: None, or (exc, tb) -> whether it pauses
_ALL = object()


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
        _pause_where_raised(exc, tb)
    except Exception as err:  # the program is already dying: say why the pause failed, once
        print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)



def _pause_where_raised(exc, tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    extra = {"exception": exc} if exc is not None else None
    pause_in_frame(_get_client(), tb.tb_frame, "exception", extra=extra, exc=exc)


_line_engine = None


def line_breakpoints():
    """The process's line breakpoints (issue 18), created on first use: `add({"kind": "line",
    "file": ..., "line": ...})`, `update`, `remove`, `clear`, `list`. A line reached pauses
    here, in its own frame, as set_trace does."""
    global _line_engine
    with _client_lock:
        if _line_engine is None:
            from ._line_breakpoints import LineBreakpoints

            _line_engine = LineBreakpoints(_get_client)
        return _line_engine
