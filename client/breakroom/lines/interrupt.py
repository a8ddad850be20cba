"""Pausing a running thread at the next line it reaches (DAP's `pause`, issue 31).

The server's breakpoint channel carries interrupt orders (`interrupts` of a breakpoint-changes
answer); the channel's thread arms one here for the thread it names, and that thread pauses
itself at its next line of program code (Breakroom's own files, the standard library and
installed packages are gone past, as an editor's "just my code" does), with `stop.kind = "interrupt"`. A thread blocked in a system call
(`time.sleep`, a socket read) pauses when the call returns.

How the other thread is made to stop, without touching threads that were not asked:
- Python 3.12+: `sys.monitoring` LINE events on the code objects of the frames the thread is
  running, and PY_START while the order waits (a function it calls stops at its first line);
  the shared tool's callbacks act only in the interrupted thread (`lines.monitoring`).
- Python 3.11: `f_trace` on the frames the thread is running, and that thread's C trace
  trampoline with a call hook (`_PyEval_SetTrace` on its thread state, as `running_frames`
  does for breakpoints armed into running code). Everything is put back at the stop.
"""

import ctypes
import sys
import threading
import time

from ..process import frames

from . import monitoring

from . import running_frames

_armed = {}  # thread ident -> the interrupt waiting in it
# How long an interrupt waits for a thread to leave Breakroom's own code (a pause it is
# finishing); a thread paused that long is interrupted where it is, stopping once resumed.
OUT_WAIT = 2.0
_armed_lock = threading.Lock()


def request(thread_ident, on_stop):
    """Arms an interrupt of thread `thread_ident` (None: the main thread); `on_stop(frame)` runs
    in that thread where it stops. Returns a text saying why not when it cannot be armed."""
    ident = thread_ident if thread_ident is not None else threading.main_thread().ident
    top = sys._current_frames().get(ident)
    if top is None:
        return f"no running thread {ident} in this program"
    if ident == threading.get_ident():
        return "a thread cannot interrupt itself"
    if frames.is_hidden(top.f_code.co_filename):
        # The thread runs Breakroom's own code (it is finishing a pause, or reporting a call):
        # what that code arms and disarms on the way out would undo the interrupt. Armed once
        # the thread is back in the program's code.
        threading.Thread(target=_arm_when_out, args=(ident, on_stop), name="breakroom-interrupt", daemon=True).start()
        return None
    return _arm(ident, top, on_stop)


def _arm(ident, top, on_stop):
    with _armed_lock:
        if ident in _armed:
            return None  # one is waiting already: the same stop answers both
        interrupt = (_MonitorInterrupt if monitoring.available else _TraceInterrupt)(ident, top, on_stop)
        why_not = interrupt.arm()
        if why_not is None:
            _armed[ident] = interrupt
    return why_not


def _arm_when_out(ident, on_stop, wait=OUT_WAIT):
    deadline = time.monotonic() + wait
    while True:
        top = sys._current_frames().get(ident)
        if top is None:
            return  # the thread ended
        if not frames.is_hidden(top.f_code.co_filename) or time.monotonic() > deadline:
            break
        time.sleep(0.005)
    why_not = _arm(ident, top, on_stop)
    if why_not is not None:
        print(f"breakroom: cannot pause here: {why_not}", file=sys.stderr)


def _program_frames(top):
    found, frame = [], top
    while frame is not None and len(found) < 256:
        if not frames.is_library(frame.f_code.co_filename):
            found.append(frame)
        frame = frame.f_back
    return found


class _Interrupt:
    def __init__(self, ident, top, on_stop):
        self.thread = ident
        self.top = top  # any frame the thread runs: it finds the thread's state (3.11)
        self.frames = _program_frames(top)
        self.on_stop = on_stop
        self.done = False

    def _stop(self, frame):
        if self.done:
            return
        self.done = True
        with _armed_lock:
            _armed.pop(self.thread, None)
        self.disarm()
        self.on_stop(frame)


class _MonitorInterrupt(_Interrupt):
    """Python 3.12+: registered as the thread's step in the shared monitor."""

    def arm(self):
        self._monitor = monitoring.shared()
        running = self._monitor.steps.get(self.thread)
        if running is not None:  # a step running on: the pause replaces it
            running.done = True
            running.disarm()
        self._codes = []
        self._into = True
        self._monitor.step_started(self.thread, self, True)
        for frame in self.frames:
            if frame.f_code not in self._codes:
                self._codes.append(frame.f_code)
                self._monitor.watch(frame.f_code)
        return None

    def disarm(self):
        for code in self._codes:
            self._monitor.unwatch(code)
        self._codes = []
        self._monitor.step_ended(self.thread, self, self._into)
        self._into = False

    def on_line(self, frame, line):
        if self.done or frames.is_library(frame.f_code.co_filename):
            return False
        self._stop(frame)
        return True

    def on_start(self, frame):
        # The next program function called: watch its code, it stops at its first line.
        if not self.done and not frames.is_library(frame.f_code.co_filename) and frame.f_code not in self._codes:
            self._codes.append(frame.f_code)
            self._monitor.watch(frame.f_code)

    def on_return(self, frame, value):
        pass

    def on_yield(self, frame, value):
        pass

    def on_raise(self, frame, exc):
        pass

    def on_unwind(self, frame, exc):
        pass


class _TraceInterrupt(_Interrupt):
    """Python 3.11: f_trace on the thread's frames and a call hook in its trace trampoline."""

    def arm(self):
        found = running_frames.discovered()
        if found is None:
            return "this Python's thread state is not the one Breakroom knows (CPython 3.11)"
        self._trampoline, slot = found
        tracer = running_frames.RunningFrameTracer(lambda frame: None)
        self._tstate = tracer._state_running(self.top)
        if self._tstate is None:
            return "the thread's state was not found"
        slots = (ctypes.c_void_p * (slot + 3)).from_address(self._tstate)
        current, traceobj = slots[slot], slots[slot + 2]
        if current and current != self._trampoline:
            return "a C tracer (a profiler, coverage) owns that thread"
        # Off: ours until the stop. The trampoline with no call hook (frames traced for line
        # breakpoints): our hook beside them, taken out again at the stop. A Python tracer's
        # hook (sys.settrace): left alone, the running frames still stop.
        self._installed = not current
        self._hooked = not traceobj
        self._saved = {}
        for frame in self.frames:
            self._saved[frame] = frame.f_trace
            frame.f_trace_lines = True
            frame.f_trace = self._local
        if self._hooked:
            self._hook = self._call  # the thread state takes its own reference too
            if _ctypes_set_trace(self._tstate, self._trampoline, self._hook) != 0:
                self._hooked = False
                if self._installed:  # no tracing in that thread: the frames would never stop
                    self.disarm()
                    return "could not switch tracing on in that thread"
        return None

    def disarm(self):
        for frame, before in self._saved.items():
            frame.f_trace = before
        self._saved = {}
        if self._hooked:
            # Runs in the interrupted thread itself (at its stop): its own state.
            tstate = ctypes.pythonapi.PyThreadState_Get()
            _ctypes_set_trace(tstate, None if self._installed else self._trampoline, None)
            self._hooked = False

    def _call(self, frame, event, arg):
        if event == "call" and not self.done and not frames.is_library(frame.f_code.co_filename):
            self._saved.setdefault(frame, None)
            frame.f_trace_lines = True
            return self._local
        return None

    def _local(self, frame, event, arg):
        if event == "line" and not self.done:
            self._stop(frame)
        # Whatever is armed now: the stop may have armed a step on this frame.
        return frame.f_trace


def _ctypes_set_trace(tstate, trampoline, hook):
    api = ctypes.pythonapi
    return api._PyEval_SetTrace(tstate, trampoline, None if hook is None else id(hook))
