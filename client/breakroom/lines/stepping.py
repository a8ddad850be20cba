"""Stepping a paused thread on (issue 30): over, into, out, to a line.

A pause answered with `{"action": "step", "step": KIND}` arms a step in the thread that paused
and lets it run; the step calls `on_stop(frame, extra, how)` in that thread where it stops, and
that pauses again (`call.pause_in_frame`), which may arm the next step. Only the stepping thread
is traced, and only while the step runs:

- Python 3.11, bdb's way: the stepping frame gets `f_trace` (and `f_trace_lines`), and the
  thread's tracing is switched on with CPython's C trampoline and no global trace function
  (`running_frames`), so a function called from the line runs without a Python callback per
  call. Step-into also sets a global trace function in this thread, for the `call` event.
- Python 3.12+: `sys.monitoring` events on the code objects involved (`lines.monitoring`),
  filtered by thread.

Where a step stops, as pdb's `next`/`step`/`return` do:
- over: the next line of the same frame; when the frame returns, the caller just after the
  call, with `__return__`; a generator's `yield` or a coroutine's `await` does not end it;
- into: the first line of the next Python function called, else as over;
- out: the caller just after the call, with `__return__`;
- an exception raised in (or propagated into) the stepping frame: there, with `exception`;
  once shown, stepping on follows it to the frame that handles it;
- to_line: a one-shot line breakpoint for this thread (`lines.engine`).
"""

import dis
import os
import sys
import threading

from .. import redaction
from ..process import current, frames, switch_interval
from ..protocol.constants import (
    STEP_INTO,
    STEP_OUT,
    STEP_OVER,
    STEP_TO_LINE,
    STEPPED_EXCEPTION,
    STEPPED_LINE,
    STEPPED_RETURN,
)
from . import monitoring, running_frames

KINDS = (STEP_OVER, STEP_INTO, STEP_OUT, STEP_TO_LINE)
_SUSPENDING = (dis.opmap.get("YIELD_VALUE"),)
_GENERATOR_LIKE = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


class StepOrder:
    """What the server asked: a kind, and for to_line a file and line."""

    def __init__(self, kind, file=None, line=None):
        if kind not in KINDS:
            raise ValueError(f"unknown step {kind!r}")
        self.kind = kind
        self.file = file
        self.line = line

    @classmethod
    def from_action(cls, action):
        return cls(action.get("step"), action.get("file"), action.get("line"))


def arm(order, frame, on_stop, shown_exception=None, only_file=None):
    """Starts `order` in this thread from `frame` (the frame paused in; None before a wrapped
    call runs: only into makes sense, and it stops in the first function called). Returns the
    step, or None when nothing could be armed (the program then simply runs on)."""
    if order.kind == STEP_TO_LINE:
        return _arm_to_line(order, on_stop)
    step_class = _MonitorStep if monitoring.available else _TraceStep
    step = step_class(order.kind, frame, on_stop, shown_exception)
    step.only_file = only_file
    step.arm()
    return step


def _arm_to_line(order, on_stop):
    engine = current.line_engine()
    return engine.run_to(order.file, order.line, threading.get_ident(), lambda frame: on_stop(frame, {}, STEPPED_LINE))


def _is_generator_like(frame):
    return bool(frame.f_code.co_flags & _GENERATOR_LIKE)


class _Step:
    """What both ways of stepping share: which frame is watched, and deciding where to stop."""

    def __init__(self, kind, frame, on_stop, shown_exception):
        self.kind = kind
        self.frame = frame  # the frame stepped in (over, out), or None
        self.entered = None  # into: the frame just called
        self.on_stop = on_stop
        self.thread = threading.get_ident()
        # The exception the pause showed: stepping on from it goes where it propagates.
        self.shown = shown_exception
        self.done = False
        self.only_file = None  # into: the first function called in this file (a program's entry)
        self._holding = False  # the GIL's turns kept short until the step ends (switch_interval)

    def take_hold(self):
        """Takes over the pause's hold on the switch interval, let go when the step ends.
        False when it has ended already (the caller lets go)."""
        if self.done:
            return False
        self._holding = True
        return True

    def _let_go(self):
        if self._holding:
            self._holding = False
            switch_interval.release()

    def _enters(self, frame):
        filename = frame.f_code.co_filename
        if self.only_file is not None:
            return os.path.realpath(filename) == self.only_file
        if frames.is_hidden(filename):
            return False
        # Code that is not debugged (`--no-debug`) is stepped over, not into: with all it calls.
        if redaction.rules().no_debug:
            caller = frame
            while caller is not None and caller is not self.frame:
                if redaction.frame_blocked(caller) is not None:
                    return False
                caller = caller.f_back
        return True

    def _stop(self, frame, extra, how):
        if self.done:
            return
        self.done = True
        self.disarm()
        self.on_stop(frame, extra, how)

    def _returned(self, frame, value, by_exception):
        """The watched frame returned: stop in its caller, or go on there (its exception)."""
        caller = frames.caller(frame)
        if caller is None:  # the top frame: the program runs to its end
            self.done = True
            self.disarm()
            return
        if by_exception:
            self.kind = STEP_OVER if self.kind == STEP_INTO else self.kind
            self._retarget(caller)
            return
        self._stop(caller, {"__return__": value}, STEPPED_RETURN)

    def _raised(self, frame, exc):
        if exc is self.shown:
            return  # shown already: stepping on follows it
        self.shown = exc
        self._stop(frame, {"exception": exc}, STEPPED_EXCEPTION)


class _TraceStep(_Step):
    """Python 3.11: f_trace on the watched frames of this thread."""

    def arm(self):
        self._saved = {}  # frame -> its f_trace before the step
        self._handled = False
        self._own_tracing = running_frames.thread_tracing(True)
        self._global = None
        if self.kind == STEP_INTO:
            self._global = self._call
            sys.settrace(self._global)
        if self.frame is not None:
            self._watch(self.frame)

    def disarm(self):
        self._let_go()
        for frame, before in self._saved.items():
            frame.f_trace = before
            if before is None:
                frame.f_trace_lines = True
        self._saved = {}
        if self._global is not None:
            sys.settrace(None)
            self._global = None
            if not self._own_tracing:
                running_frames.thread_tracing(True)  # someone else's frames still need it
        elif self._own_tracing:
            running_frames.thread_tracing(False)

    def _watch(self, frame):
        self._saved.setdefault(frame, frame.f_trace)
        frame.f_trace_lines = True
        frame.f_trace = self._local

    def _retarget(self, frame):
        self.frame = frame
        self._handled = False
        self._watch(frame)

    def _call(self, frame, event, arg):
        # Step-into: the first function this thread calls that is the program's.
        if event == "call" and not self.done and self._enters(frame):
            self.entered = frame
            # No more call events, but line events go on (sys.settrace(None) would end them).
            sys.settrace(None)
            self._global = None
            running_frames.thread_tracing(True)
            self._watch(frame)
            return self._local
        return None

    def _local(self, frame, event, arg):
        if not self.done:
            if event == "line":
                if frame is self.frame:
                    self._handled = True  # a line ran after the exception shown: it was caught
                if frame is self.entered or (frame is self.frame and self.kind != STEP_OUT):
                    self._stop(frame, {}, STEPPED_LINE)
            elif event == "exception":
                if frame is self.frame or frame is self.entered:
                    exc = arg[1]
                    generator_stop = _is_generator_like(frame) and arg[0] is StopIteration and arg[2] is None
                    if not generator_stop:
                        self._raised(frame, exc)
            elif event == "return" and frame is self.frame:
                suspended = _is_generator_like(frame) and frame.f_code.co_code[frame.f_lasti] in _SUSPENDING
                if not suspended:
                    # A frame left by an exception returns None, with no line run since.
                    propagating = self.shown is not None and not self._handled
                    self._returned(frame, arg, propagating)
        # Whatever is armed now: a stop may have armed the next step on this frame.
        return frame.f_trace


class _MonitorStep(_Step):
    """Python 3.12+: sys.monitoring events on the watched code objects, in this thread only."""

    def arm(self):
        self._monitor = monitoring.shared()
        self._codes = []
        self._into = self.kind == STEP_INTO
        self._monitor.step_started(self.thread, self, self._into)
        if self.frame is not None:
            self._watch_code(self.frame.f_code)

    def disarm(self):
        self._let_go()
        monitor = self._monitor
        for code in self._codes:
            monitor.unwatch(code)
        self._codes = []
        monitor.step_ended(self.thread, self, self._into)
        self._into = False

    def _watch_code(self, code):
        if code not in self._codes:
            self._codes.append(code)
            self._monitor.watch(code)

    def _retarget(self, frame):
        self.frame = frame
        self._watch_code(frame.f_code)

    def on_line(self, frame, line):
        if self.done:
            return False
        if frame is self.entered or (frame is self.frame and self.kind != STEP_OUT):
            self._stop(frame, {}, STEPPED_LINE)
            return True
        return False

    def on_start(self, frame):
        if self.done or self.entered is not None or not self._enters(frame):
            return
        self.entered = frame
        self._into = False
        self._monitor.into_done()
        self._watch_code(frame.f_code)

    def on_return(self, frame, value):
        if not self.done and frame is self.frame:
            self._returned(frame, value, by_exception=False)

    def on_yield(self, frame, value):
        # A generator's yield or a coroutine's await: the step stays with this frame. Out of a
        # plain generator ends at the yield, as a return to the consumer.
        if not self.done and frame is self.frame and self.kind == STEP_OUT and not frame.f_code.co_flags & 0x80:
            self._returned(frame, value, by_exception=False)

    def on_raise(self, frame, exc):
        if not self.done and (frame is self.frame or frame is self.entered):
            self._raised(frame, exc)

    def on_unwind(self, frame, exc):
        if self.done or frame is not self.frame:
            return
        if exc is not self.shown:  # raised in a function it called: show it where it arrives
            self._raised(frame, exc)
            return
        self._returned(frame, None, by_exception=True)
