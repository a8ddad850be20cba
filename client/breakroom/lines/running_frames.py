"""Line events for frames that are already running a function's old code (Python 3.11).

Swapping a function's `__code__` changes its next calls, not a call in progress: a loop that
is running when a breakpoint is armed keeps its old code until it returns. For those frames
only, this module sets `frame.f_trace` and turns on line tracing in the thread that runs them,
with CPython's own C trace trampoline (what `sys.settrace` installs) and no Python-level global
trace function: a new call in that thread costs a C check and returns, and only the traced
frames call into Python, once per line. The thread's tracing is turned off again when its last
traced frame returns (or the breakpoint is disarmed).

A generator's or coroutine's frame that is suspended when the breakpoint is armed (an
`async def` worker's `while True:` waiting at an `await`) runs no thread's stack. It is traced
too, with tracing on in the threads where it may go on (those running an asyncio event loop,
for a coroutine; else every thread) until it resumes in one of them, then in that one only. A
yield or an await (a "return" event at a YIELD_VALUE) keeps the frame traced: it will go on,
on the same thread as a rule (an event loop's).

What it costs while such a frame runs: the thread runs the interpreter's tracing path (every
instruction of every frame checks for a line change, in C) — roughly pdb's speed for that
thread, for as long as the old frames run. Threads without such frames pay nothing.

Setting another thread's tracing needs `_PyEval_SetTrace(tstate, …)`, which CPython 3.11
exports (3.12 made the same loop public as `threading.settrace_all_threads`); the trampoline's
address is read from this thread's state after a `sys.settrace`, and the slot is verified by
toggling settrace and setprofile. Anything unexpected: `available` is False, and armed
breakpoints only take effect at the functions' next calls.
"""

import ctypes
import dis
import sys
import threading

_api = ctypes.pythonapi

# CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR: code whose frames suspend and go on.
SUSPENDING = 0x20 | 0x80 | 0x200
_ASYNC = 0x80 | 0x200  # an event loop's to run on
_YIELD_VALUE = dis.opmap["YIELD_VALUE"]
_GONE = object()  # a frame no longer traced


def suspends(frame):
    """At a "return" event: whether the frame only yields (a yield, an await) and will go on."""
    code = frame.f_code
    if not code.co_flags & SUSPENDING:
        return False
    raw, at = code.co_code, frame.f_lasti
    return 0 <= at < len(raw) and raw[at] == _YIELD_VALUE


def _discover():
    """(the C trace trampoline's address, the c_tracefunc slot index), or None."""
    if sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython":
        return None
    try:
        _api.PyThreadState_Get.restype = ctypes.c_void_p
        _api.PyInterpreterState_Get.restype = ctypes.c_void_p
        _api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
        _api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
        _api.PyThreadState_Next.restype = ctypes.c_void_p
        _api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
        _api.PyThreadState_GetFrame.restype = ctypes.py_object
        _api.PyThreadState_GetFrame.argtypes = [ctypes.c_void_p]
        _api.PyThreadState_GetID.restype = ctypes.c_uint64
        _api.PyThreadState_GetID.argtypes = [ctypes.c_void_p]
        _api._PyEval_SetTrace.restype = ctypes.c_int
        _api._PyEval_SetTrace.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    except AttributeError:
        return None
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return None  # another tracer owns this thread: do not disturb it to look

    def trace_marker(*_):
        return None

    def profile_marker(*_):
        return None

    slots = (ctypes.c_void_p * 48).from_address(_api.PyThreadState_Get())
    before = list(slots)
    sys.settrace(trace_marker)
    sys.setprofile(profile_marker)
    try:
        during = list(slots)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    after = list(slots)
    # Layout (3.11): c_profilefunc, c_tracefunc, c_profileobj, c_traceobj.
    obj_slots = [i for i, v in enumerate(during) if v == id(trace_marker)]
    if len(obj_slots) != 1 or obj_slots[0] < 3:
        return None
    traceobj = obj_slots[0]
    tracefunc = traceobj - 2
    if during[traceobj - 1] != id(profile_marker) or not during[tracefunc]:
        return None
    if before[tracefunc] or after[tracefunc] or after[traceobj]:
        return None
    return during[tracefunc], tracefunc


_found = []


def discovered():
    """`_discover()`, once per process."""
    if not _found:
        _found.append(_discover())
    return _found[0]


def _no_global_trace(frame, event, arg):
    return None


def thread_tracing(enabled):
    """Switches this thread's tracing on (line events for the frames that have `f_trace`, and
    no Python call per function call) or off. Switching on returns whether it was off (then the
    caller switches it off again when done); switching off returns True."""
    found = discovered()
    if found is None:  # not 3.11's layout: a global trace function that declines every call
        if not enabled:
            sys.settrace(None)
            return True
        if sys.gettrace() is None:
            sys.settrace(_no_global_trace)
            return True
        return False
    trampoline, slot = found
    tstate = _api.PyThreadState_Get()
    if not enabled:
        _api._PyEval_SetTrace(tstate, None, None)
        return True
    slots = (ctypes.c_void_p * (slot + 3)).from_address(tstate)
    if slots[slot]:
        return False  # on already (a traced running frame, or sys.settrace)
    return _api._PyEval_SetTrace(tstate, trampoline, None) == 0


def current_thread_state():
    """This thread's state and id, for `stop_tracing` from another thread (None off 3.11's layout)."""
    if discovered() is None:
        return None
    tstate = _api.PyThreadState_Get()
    return tstate, _api.PyThreadState_GetID(tstate)


def stop_tracing(state):
    """Switches off the tracing of the thread `current_thread_state()` gave, if it still runs."""
    if state is None:
        return
    tstate, thread_id = state
    head = _api.PyInterpreterState_ThreadHead(_api.PyInterpreterState_Get())
    while head:
        if head == tstate and _api.PyThreadState_GetID(head) == thread_id:
            _api._PyEval_SetTrace(tstate, None, None)
            return
        head = _api.PyThreadState_Next(head)


class RunningFrameTracer:
    """Traces the given frames, in whichever threads run them, calling `on_line(frame)` on
    each line event of theirs."""

    def __init__(self, on_line):
        self._on_line = on_line
        self._lock = threading.RLock()
        found = discovered()
        self.available = found is not None
        self._trampoline, self._tracefunc_slot = found or (None, None)
        self._traced = {}  # frame -> thread state address (None: suspended, its thread not known yet)
        self._installed = {}  # thread state address -> its id when we turned its tracing on

    # ---- which frames ----------------------------------------------------------------------

    def _thread_states(self):
        tstate = _api.PyInterpreterState_ThreadHead(_api.PyInterpreterState_Get())
        while tstate:
            yield tstate
            tstate = _api.PyThreadState_Next(tstate)

    def _state_running(self, frame):
        here = sys._getframe()
        while here is not None:  # this thread's: no walk over the others' states
            if here is frame:
                return _api.PyThreadState_Get()
            here = here.f_back
        for tstate in self._thread_states():
            try:
                top = _api.PyThreadState_GetFrame(tstate)
            except ValueError:  # a thread with no Python frame (NULL)
                continue
            while top is not None:
                if top is frame:
                    return tstate
                top = top.f_back
        return None

    # ---- tracing them ----------------------------------------------------------------------

    def trace(self, frames, lines, suspended=()):
        """Starts line events for `frames` (running on some thread's stack) and `suspended`
        (generator and coroutine frames waiting to go on, or running now: their thread is
        learnt at their next event either way), calling back at `lines` (a live container: the
        engine's armed lines of that file); returns how many are traced."""
        if not self.available:
            return 0
        count = 0
        with self._lock:
            loop_threads = None
            for frame in suspended:
                if frame in self._traced:
                    count += 1
                    continue
                if frame.f_code.co_flags & _ASYNC and loop_threads is None:
                    loop_threads = self._event_loop_threads()
                threads = loop_threads if frame.f_code.co_flags & _ASYNC and loop_threads else None
                if self._trace_threads(threads):
                    self._start(frame, lines, None)
                    count += 1
            for frame in frames:
                if frame in self._traced:
                    count += 1
                    continue
                tstate = self._state_running(frame)
                if tstate is None:
                    continue
                slots = (ctypes.c_void_p * (self._tracefunc_slot + 3)).from_address(tstate)
                current = slots[self._tracefunc_slot]
                if current and current != self._trampoline:
                    continue  # a C tracer (coverage, a profiler) owns that thread: f_trace would not be called
                if not current:
                    if _api._PyEval_SetTrace(tstate, self._trampoline, None) != 0:
                        continue
                    self._installed[tstate] = _api.PyThreadState_GetID(tstate)
                self._start(frame, lines, tstate)
                count += 1
        return count

    def _start(self, frame, lines, tstate):
        # Listed before its f_trace is set: the frame's thread may run its next line in between
        # (the GIL changes hands between any two instructions), and an unlisted frame's trace
        # function takes itself off.
        self._traced[frame] = tstate
        frame.f_trace_lines = True
        frame.f_trace = self._local_trace(lines)

    def _event_loop_threads(self):
        """The states of the threads running an asyncio event loop (`run_forever` on their
        stack): where a coroutine goes on. [] when none is seen (another loop, a C one)."""
        asyncio = sys.modules.get("asyncio")
        run_forever = getattr(getattr(getattr(asyncio, "BaseEventLoop", None), "run_forever", None), "__code__", None)
        found = []
        if run_forever is None:
            return found
        for tstate in self._thread_states():
            try:
                frame = _api.PyThreadState_GetFrame(tstate)
            except ValueError:  # no Python frame (NULL)
                continue
            while frame is not None and frame.f_code is not run_forever:
                frame = frame.f_back
            if frame is not None:
                found.append(tstate)
        return found

    def _trace_threads(self, tstates=None):
        """Tracing on in those threads (every thread by default) that no other tracer owns, for
        a suspended frame that may go on in any of them. Whether one at least is ours."""
        any_ours = False
        for tstate in self._thread_states() if tstates is None else tstates:
            slots = (ctypes.c_void_p * (self._tracefunc_slot + 3)).from_address(tstate)
            current = slots[self._tracefunc_slot]
            if current == self._trampoline:
                any_ours = True
            elif not current and _api._PyEval_SetTrace(tstate, self._trampoline, None) == 0:
                self._installed[tstate] = _api.PyThreadState_GetID(tstate)
                any_ours = True
        return any_ours

    def _adopt(self, frame):
        """A suspended frame went on in this thread: the others' tracing can go."""
        with self._lock:
            if self._traced.get(frame, _GONE) is None:
                self._traced[frame] = _api.PyThreadState_Get()
                self._release_threads()

    def _local_trace(self, lines):
        # Called for every line of a traced frame: one dict and one set lookup, little else.
        on_line, done, traced, adopt = self._on_line, self._done, self._traced, self._adopt

        def local_trace(frame, event, arg):
            state = traced.get(frame, _GONE)
            if state is None:
                adopt(frame)
            if event == "line":
                if frame.f_lineno in lines:
                    on_line(frame)
                    state = traced.get(frame, _GONE)
            elif event == "return" and not suspends(frame):
                done(frame, from_own_thread=True)
                return None
            if state is _GONE:
                # Untraced meanwhile (the breakpoint went while this line paused): returning
                # this function would arm the frame again. A step's own f_trace stays.
                if frame.f_trace is local_trace:
                    frame.f_trace = None
                return None
            # A step may have taken the frame over meanwhile (it gives it back when done).
            return frame.f_trace or local_trace

        return local_trace

    def _done(self, frame, from_own_thread):
        with self._lock:
            tstate = self._traced.pop(frame, _GONE)
            if tstate is _GONE:
                return
            frame.f_trace = None
            self._release_threads(tstate if from_own_thread else None)

    def _release_threads(self, own=None):
        """Tracing off in the threads we turned it on in that no traced frame needs now (none
        while a suspended frame may go on in any of them)."""
        needed = set(self._traced.values())
        if None in needed:
            return
        for tstate, thread_id in list(self._installed.items()):
            if tstate not in needed:
                del self._installed[tstate]
                if tstate == own or self._still_alive(tstate, thread_id):
                    _api._PyEval_SetTrace(tstate, None, None)

    def _still_alive(self, tstate, thread_id):
        return any(t == tstate and _api.PyThreadState_GetID(t) == thread_id for t in self._thread_states())

    def untrace(self, frames=None):
        """Stops line events for `frames` (all of them by default)."""
        with self._lock:
            for frame in list(self._traced if frames is None else frames):
                self._done(frame, from_own_thread=False)

    @property
    def traced_frames(self):
        with self._lock:
            return list(self._traced)
