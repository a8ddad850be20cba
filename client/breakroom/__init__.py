"""Breakroom debug client.

    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    compute(6, 7)        # pauses; open the REPL in the browser, then Continue

`BREAKROOM_URL` picks the server (default http://127.0.0.1:5174); several, comma-separated,
fail over from one to the next. `breakroom.set_trace()`
(or `PYTHONBREAKPOINT=breakroom.set_trace` and a plain `breakpoint()`) pauses in the caller's
own frame, and `await breakroom.set_trace_async()` in a coroutine pauses its task alone; `breakroom.post_mortem()` and `breakroom.install_excepthook()` pause in the frame
that raised.
"""

import functools
import inspect
import sys

from . import breakpoint_channel as _channel
from . import redaction as _redaction
from .breakpoints.kinds import BreakpointError, BreakpointSpec
from .lines.engine import LineBreakpoints as _LineBreakpoints
from .pause.call import Breakpoint, WrappedCall, pause_in_frame
from .pause.call import pause_at_breakpoint as _pause_at_breakpoint
from .pause.client import DebugClient, DebugProtocolError
from .pause.post_mortem import install_excepthook, post_mortem
from .pause.tasks import set_trace_async
from .pause.tasks import suspend_task as _suspend_task
from .process import current as _current
from .process import labels as _labels
from .protocol.constants import PAUSE_ALWAYS as _PAUSE_ALWAYS
from .snapshots import take as _snapshots
from .snapshots.offthread import is_worker as _is_worker
from .time_travel import checkpoints as _checkpoints

# The process's one client and line engine are kept in `process.current`, which the layers
# below reach without importing this module.
_current.provide(DebugClient, lambda: _LineBreakpoints(_pause_at_breakpoint, suspend=_suspend_task), _channel)

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
    "set_trace_async",
    "with_debug",
]


def configure(url=None, *, labels=None, snapshot_budget=None, redact_names=None, redact_values=None):
    """Points the client at a server (instead of BREAKROOM_URL) and forgets the old one. Several
    addresses (a list, or one comma-separated string) fail over from one to the next; an entry
    that is not an http:// or https:// URL is a ValueError naming it. `labels={"service": "api"}` replaces BREAKROOM_LABELS (snapshot breakpoints aimed with
    `where`); `snapshot_budget=0.05` the share of time snapshots and logpoints may take
    (BREAKROOM_SNAPSHOT_BUDGET, 0.01 by default). `redact_names` and `redact_values` (a regex or
    a list; BREAKROOM_REDACT_NAMES / BREAKROOM_REDACT_VALUES) add redaction rules to the
    server's and the defaults (issue 50). Given only those, the client is kept."""
    if redact_names is not None or redact_values is not None:
        _redaction.configure(redact_names, redact_values)
    if labels is not None:
        _labels.configure(labels)
    if snapshot_budget is not None:
        _snapshots.configure_budget(snapshot_budget)
    only_options = labels is not None or snapshot_budget is not None
    only_options = only_options or redact_names is not None or redact_values is not None
    if url is not None or not only_options:
        return _current.replace_client(url)
    return _current.client()


def _get_client():
    return _current.client()


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
            import asyncio  # lazy: heavy, and only async functions need it

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

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        # The server out of reach: one clock read, no call object. A snapshot's repr calling
        # this: it must not pause (the program's thread waits for it).
        if client.away() or _is_worker():
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
    """Time travel (issue 20): with checkpoints on, each Continue forks a checkpoint of the
    process, so the server can step back to that pause later (`cap` checkpoints per process, 16
    by default; the oldest unnamed goes first). `threads="allow"` checkpoints a process running
    other threads too (fork keeps only the calling thread). Also `BREAKROOM_CHECKPOINTS=1` and
    `BREAKROOM_CHECKPOINT_CAP=N`. Only memory is rewound: not files, sockets or child processes."""
    return _checkpoints.configure(enabled, cap, threads)


def breakpoint(func=None, *, name=None):
    """Decorator form of with_debug: `@breakroom.breakpoint` or `@breakroom.breakpoint(name=...)`."""
    if func is None:
        return lambda f: with_debug(f, name)
    return with_debug(func, name)


def set_trace(*, frame=None):
    """Pauses here: the REPL runs in the caller's frame, with its real locals and globals."""
    frame = frame or sys._getframe(1)
    pause_in_frame(_current.client(), frame, _PAUSE_ALWAYS)


def line_breakpoints():
    """The process's line breakpoints (issue 18), created on first use: `add({"kind": "line",
    "file": ..., "line": ...})`, `update`, `remove`, `clear`, `list`. A line reached pauses
    here, in its own frame, as set_trace does."""
    return _current.line_engine()
