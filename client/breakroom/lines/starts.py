"""A child's line breakpoints before its first line (issue 46).

A child process calls in on a thread of its own while its program starts: the breakpoints the
server would send arrive some 50 ms after its first lines. So a child started while its parent
has line breakpoints inherits them (`BREAKROOM_INHERITED_BREAKPOINTS`, written by the parent's
channel) and arms them before the main script runs. Files it imports get their hooks at import;
the main script is compiled by the interpreter itself, so until the child's own channel has
answered, new frames are watched as they start:

- Python 3.12+: `sys.monitoring` PY_START; a code that runs an armed line gets its LINE events;
- Python 3.11: a trace function in the main thread, which gives the frames of armed files a
  line trace (other calls return at once).

Once the channel has answered, the watch ends and the engine reaches what is running then as it
does for any breakpoint (running frames, swapped functions): the channel keeps them current.
Only the main thread is watched on 3.11; a thread the child starts in its first moments gets
the breakpoints at its functions' next calls, as before.
"""

import json
import os
import sys
import threading

from ..process import current
from ..protocol.constants import BREAKPOINT_LINE
from . import monitoring, running_frames

INHERITED = "BREAKROOM_INHERITED_BREAKPOINTS"
# The process's own line breakpoints (`python -m breakroom --break`), which no server holds:
# children arm them as their own, and the channel never takes them away.
INHERITED_OWN = "BREAKROOM_INHERITED_OWN_BREAKPOINTS"
MAX_INHERITED = 64 * 1024  # characters: an environment variable's room, with margin


def inherited_records(text):
    """The line records a parent handed down, or [] (said when unreadable)."""
    try:
        records = json.loads(text)
    except ValueError as exc:
        print(f"breakroom: {INHERITED} is not JSON ({exc}): breakpoints arrive with the channel", file=sys.stderr)
        return []
    if not isinstance(records, list):
        return []
    return [r for r in records if isinstance(r, dict) and r.get("kind") == BREAKPOINT_LINE and r.get("id")]


def hand_down(records):
    """In a parent: what its children inherit from now on (the line records it has armed).
    Written whether or not it follows them yet (`python -m breakroom` starts following after
    its first sync); a child reads it only when it follows."""
    text = json.dumps(list(records), separators=(",", ":")) if records else ""
    if not text or len(text) > MAX_INHERITED:
        os.environ.pop(INHERITED, None)  # too many to hand down: they come with the channel
    else:
        os.environ[INHERITED] = text


def hand_down_own(records):
    """In `python -m breakroom`: its `--break` breakpoints, for every child it starts."""
    text = json.dumps(list(records), separators=(",", ":")) if records else ""
    if text and len(text) <= MAX_INHERITED:
        os.environ[INHERITED_OWN] = text


class StartWatch:
    """New frames of files with armed lines, reached until the channel has answered and the
    main module has started (the channel may answer first: the main module's code must still
    be caught as it starts, then the engine reaches it as running code)."""

    def __init__(self, engine):
        self.engine = engine
        self.active = False
        self._thread_state = None
        self._trace = None  # the trace function, referenced while installed
        self._answered = False
        self._main_started = not sys.argv or sys.argv[0] == ""  # interactive: nothing to wait for
        self._lock = threading.Lock()

    def begin(self):
        """In the main thread, before the program's first line."""
        if monitoring.available:
            self.active = True
            monitoring.shared().watch_starts(self._started)
            return
        self._thread_state = running_frames.current_thread_state()
        if self._thread_state is None:
            return  # its tracing could not be switched off from the channel's thread: no watch
        self.active = True
        self._trace = self._call
        sys.settrace(self._trace)

    def answered(self):
        """The channel has its breakpoints (its thread). On 3.11 the main thread ends the watch
        at its next call or line: reaching its frames from here would walk the thread states
        while threads may come and go."""
        with self._lock:
            self._answered = True
            done = self._main_started
        if done and monitoring.available:
            self.end()

    def _main_starts(self, frame):
        if frame.f_code.co_name != "<module>" or frame.f_globals.get("__name__") != "__main__":
            return False
        with self._lock:
            self._main_started = True
            done = self._answered
        if done:
            self.end()
        return done

    def end(self):
        """The watch is over: the engine reaches running code (the main module's frame too)."""
        with self._lock:
            if not self.active:
                return
            self.active = False
        if monitoring.available:
            monitoring.shared().watch_starts(None)
        else:
            running_frames.stop_tracing(self._thread_state)
        self.engine.reach_running()

    # ---- 3.12+ ---------------------------------------------------------------------------------

    def _started(self, code):
        if self.active:
            self.engine.arm_started_code(code)
            if not self._main_started and code.co_name == "<module>":
                self._main_starts(sys._getframe(2))

    # ---- 3.11 ----------------------------------------------------------------------------------

    def _call(self, frame, event, arg):
        if self.active and self._answered and self._main_started:
            self.end()
        if not self.active or (not self._main_started and self._main_starts(frame)):
            return None  # ended here: the engine traces the main module's frame itself
        if not self.engine.has_armed_lines(frame.f_code):
            return None
        return self._line

    def _line(self, frame, event, arg):
        if self.active and self._answered and self._main_started:
            self.end()
        if not self.active:
            if frame.f_trace is self._line:
                frame.f_trace = None
            return None
        if event == "line":
            self.engine.on_traced_line(frame)
        return self._line


_watch = []
_lock = threading.Lock()


def inherit(engine, records):
    """Arms a parent's records in this child and watches new frames; returns those armed, by
    id. The channel then takes them as already applied (`breakpoint_channel._inherited`)."""
    armed = {}
    for record in records:
        try:
            engine.add(record)
        except Exception as exc:  # a file the child does not have, a moved line: said once
            print(f"breakroom: inherited breakpoint {record.get('id')} not set here: {exc}", file=sys.stderr)
            continue
        armed[str(record["id"])] = record
    if armed:
        watch = StartWatch(engine)
        with _lock:
            _watch.append(watch)
        watch.begin()
    return armed


def inherit_from_parent():
    """In a new child, before its first line (called by `sitecustomize`): the line breakpoints
    its parent had when it started it are armed here now."""
    text = os.environ.get(INHERITED)
    records = inherited_records(text) if text else []
    if records:
        armed = inherit(current.line_engine(), records)
        current.channel()._inherited.update(armed)  # the channel takes them as applied
    own = os.environ.get(INHERITED_OWN)
    own_records = inherited_records(own) if own else []
    if own_records:
        inherit(current.line_engine(), own_records)  # this process's own from now on


def channel_answered():
    """The child's channel has its breakpoints: the watch ends (once the main module runs)."""
    with _lock:
        watches = list(_watch)
        _watch.clear()
    for watch in watches:
        watch.answered()
