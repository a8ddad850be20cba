"""Breakroom's one `sys.monitoring` tool (Python 3.12 and later), shared by line breakpoints
and stepping.

PEP 669 gives per-code-object events, so a program pays only where something is armed:
- line breakpoints turn LINE on for the code objects that hold an armed line (running frames
  included); every other line of those codes is switched off after its first event (`DISABLE`);
- a step turns LINE, PY_RETURN and PY_YIELD on for the code objects it watches (the stepping
  frame's, then its caller's), PY_START only while a step-into runs, and RAISE / PY_UNWIND
  and EXCEPTION_HANDLED (which exist only globally) while any step runs. Its callbacks act only in the stepping
  thread, and a watched code never gets `DISABLE`: that would switch the location off for every
  thread, the stepping one included. Everything is switched back off at the stop.
No code is rewritten.
"""

import sys
import threading

from ..snapshots import gates

available = sys.version_info >= (3, 12)
_clock = gates.clock

_shared = None
_shared_lock = threading.Lock()


def shared():
    """The process's monitor, created on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = _Monitor()
        return _shared


class _Monitor:
    def __init__(self):
        mon = sys.monitoring
        self._mon = mon
        self.tool = None
        for tool in (mon.DEBUGGER_ID, 4, 5):  # another debugger may hold DEBUGGER_ID
            try:
                mon.use_tool_id(tool, "breakroom")
            except ValueError:
                continue
            self.tool = tool
            break
        if self.tool is None:
            raise RuntimeError("sys.monitoring: no free tool id for breakroom")
        self._lock = threading.RLock()
        self._gate_until, self._gate_skips = gates.shared().until, gates.shared().skips
        self.breakpoint_lines = {}  # code -> lines armed in it
        # The callbacks look codes up by id: a code object's hash is computed afresh at each
        # lookup (its bytecode, names and constants), microseconds for a line event. The dicts
        # keyed by the codes themselves keep them alive, so their ids stay theirs.
        self._lines_by_id = {}  # id(code) -> {line armed in it: its gate's slot}
        self._watched_ids = set()  # ids of the codes steps watch
        self.on_breakpoint_line = None  # (frame, line) -> None
        self.steps = {}  # thread id -> the step running in it
        self._watched = {}  # code -> how many steps watch it
        self._global_steps = 0  # steps that need the global events
        self._into = 0  # steps that need PY_START
        self._start_watch = None  # (code) -> None while a child's first moments are watched
        events = mon.events
        mon.register_callback(self.tool, events.LINE, self._line)
        mon.register_callback(self.tool, events.PY_RETURN, self._return)
        mon.register_callback(self.tool, events.PY_YIELD, self._yield)
        mon.register_callback(self.tool, events.PY_START, self._start)
        mon.register_callback(self.tool, events.RAISE, self._raise)
        mon.register_callback(self.tool, events.PY_UNWIND, self._unwind)
        mon.register_callback(self.tool, events.EXCEPTION_HANDLED, self._handled)

    # ---- what is switched on ------------------------------------------------------------------

    def _local_events(self, code):
        events, wanted = self._mon.events, 0
        if code in self.breakpoint_lines:
            wanted |= events.LINE
        if code in self._watched:
            wanted |= events.LINE | events.PY_RETURN | events.PY_YIELD
        return wanted

    def _global_events(self):
        events, wanted = self._mon.events, 0
        if self._global_steps:
            wanted |= events.RAISE | events.PY_UNWIND | events.EXCEPTION_HANDLED
        if self._into or self._start_watch is not None:
            wanted |= events.PY_START
        return wanted

    def watch_starts(self, callback):
        """`callback(code)` at every Python function's start (None: no more): a child's first
        moments (lines.starts)."""
        with self._lock:
            self._start_watch = callback
            self._mon.set_events(self.tool, self._global_events())

    def set_breakpoint_lines(self, armed):
        """Replaces the line breakpoints' armed lines: {code: lines}."""
        with self._lock:
            before = set(self.breakpoint_lines)
            self.breakpoint_lines = {code: set(lines) for code, lines in armed.items() if lines}
            gates_ = gates.shared()
            self._lines_by_id = {
                id(code): {line: gates_.slot((code.co_filename, line)) for line in lines}
                for code, lines in self.breakpoint_lines.items()
            }
            for code in before | set(self.breakpoint_lines):
                self._mon.set_local_events(self.tool, code, self._local_events(code))
            self._mon.restart_events()  # locations DISABLEd earlier may be armed lines now

    def watch(self, code):
        with self._lock:
            self._watched[code] = self._watched.get(code, 0) + 1
            self._watched_ids.add(id(code))
            if self._watched[code] == 1:
                self._mon.set_local_events(self.tool, code, self._local_events(code))
                if code in self.breakpoint_lines:
                    self._mon.restart_events()  # its other lines were DISABLEd by breakpoints

    def unwatch(self, code):
        with self._lock:
            count = self._watched.get(code, 0) - 1
            if count > 0:
                self._watched[code] = count
                return
            self._watched.pop(code, None)
            self._watched_ids.discard(id(code))
            self._mon.set_local_events(self.tool, code, self._local_events(code))

    def step_started(self, thread, step, into):
        with self._lock:
            self.steps[thread] = step
            self._global_steps += 1
            self._into += bool(into)
            self._mon.set_events(self.tool, self._global_events())

    def step_ended(self, thread, step, into):
        with self._lock:
            if self.steps.get(thread) is step:
                del self.steps[thread]
            self._global_steps -= 1
            self._into -= bool(into)
            self._mon.set_events(self.tool, self._global_events())

    def into_done(self):
        """A step-into reached its function: PY_START is not needed any more."""
        with self._lock:
            self._into -= 1
            self._mon.set_events(self.tool, self._global_events())

    # ---- callbacks ------------------------------------------------------------------------------

    def _step_here(self, code):
        step = self.steps.get(threading.get_ident()) if self.steps else None
        return step if step is not None and (code is None or id(code) in self._watched_ids) else None

    def _line(self, code, line):
        # Every armed line of every loop comes here: kept to a few lookups before the gate.
        if self.steps:
            step = self._step_here(code)
            if step is not None and step.on_line(sys._getframe(1), line):
                return None  # stopped here: one pause is enough, even with a breakpoint on the line
        slots = self._lines_by_id.get(id(code))
        if slots is None or line not in slots:
            return None if id(code) in self._watched_ids else self._mon.DISABLE
        # The line's gate (snapshots.gates): closed, the arrival is one clock read and a skip.
        slot = slots[line]
        if self._gate_until[slot] > _clock():
            next(self._gate_skips[slot])
            return None
        if self.on_breakpoint_line is not None:
            self.on_breakpoint_line(sys._getframe(1), line)
        return None

    def _return(self, code, offset, value):
        step = self._step_here(code)
        if step is not None:
            step.on_return(sys._getframe(1), value)

    def _yield(self, code, offset, value):
        step = self._step_here(code)
        if step is not None:
            step.on_yield(sys._getframe(1), value)

    def _start(self, code, offset):
        watch = self._start_watch
        if watch is not None:
            watch(code)
        step = self._step_here(None)
        if step is not None:
            step.on_start(sys._getframe(1))

    def _raise(self, code, offset, exc):
        step = self._step_here(None)
        if step is not None:
            step.on_raise(sys._getframe(1), exc)

    def _handled(self, code, offset, exc):
        step = self._step_here(None)
        if step is not None:
            step.on_raise(sys._getframe(1), exc)

    def _unwind(self, code, offset, exc):
        step = self._step_here(None)
        if step is not None:
            step.on_unwind(sys._getframe(1), exc)


class MonitoredLines:
    """The line breakpoints' side of the monitor: LINE events for chosen (code, line) pairs;
    `on_line(frame, line)` for each one reached."""

    def __init__(self, on_line):
        self._monitor = shared()
        self._monitor.on_breakpoint_line = on_line
        self.tool = self._monitor.tool  # the sys.monitoring tool id its events are under

    def set(self, armed):
        """Replaces what is armed: {code: lines}."""
        self._monitor.set_breakpoint_lines(armed)

    def armed(self):
        """What is armed now: {code: lines} (a copy)."""
        with self._monitor._lock:
            return {code: set(lines) for code, lines in self._monitor.breakpoint_lines.items()}

    def close(self):
        self._monitor.set_breakpoint_lines({})
        self._monitor.on_breakpoint_line = None
