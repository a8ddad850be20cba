"""The gate in front of a hot line's snapshot and log breakpoints (issue 46).

Past its rate (`max_per_second`) or the process's time budget, an arrival at a snapshot or
logpoint only counts a skip until the next token or the budget's refill. Deciding that in the
engine took Python calls, a frame lookup and the frame's locals: 6 µs an arrival, so a 50 µs
loop kept 89 % of its speed between captures. A line whose breakpoints are all closed that way
gets a closed gate instead: an arrival reads the clock once, compares, and counts the skip.

- Python 3.11's rewritten code checks it in the compiled hook itself
  (`if __breakroom_gates__[SLOT] <= __breakroom_clock__(): __breakroom_line__(LINE)
  else: __breakroom_next__(__breakroom_skips__[SLOT])`): no Python call while closed;
- line events (a running frame's trace, `sys.monitoring`) check it first in their callback.

Keys are `(the code's co_filename, line)`, each with a slot (a list index). Skips are counted in `itertools.count` objects (C,
no lock) and handed, each time the snapshot counters are reported, to the callbacks given when
the gate closed (they count them for the breakpoints that closed it).
"""

import builtins
import itertools
import threading
import time

GATES_NAME = "__breakroom_gates__"
SKIPS_NAME = "__breakroom_skips__"
CLOCK_NAME = "__breakroom_clock__"
NEXT_NAME = "__breakroom_next__"  # `next`, under a name a program does not shadow

clock = time.monotonic


def _value(counter):
    return int(repr(counter)[6:-1])  # "count(N)": the one public way to read it


class Gates:
    """A gate per (filename, line), by a small number: compiled code indexes lists with it."""

    def __init__(self):
        self.until = []  # slot -> clock time before which an arrival only counts a skip
        self.skips = []  # slot -> itertools.count of the skips while closed
        self.index = {}  # key -> slot
        self._credit = {}  # slot -> [callables taking a number of skips]: whom they count for
        self._settled = {}  # slot -> the count already handed out
        self._lock = threading.RLock()
        setattr(builtins, GATES_NAME, self.until)
        setattr(builtins, SKIPS_NAME, self.skips)
        setattr(builtins, CLOCK_NAME, clock)
        setattr(builtins, NEXT_NAME, next)

    def slot(self, key):
        """The slot of `key`, made open when new (slots stay: compiled code may hold them)."""
        with self._lock:
            found = self.index.get(key)
            if found is None:
                found = self.index[key] = len(self.until)
                self.skips.append(itertools.count())
                self.until.append(0.0)
            return found

    def close(self, keys, until, credit):
        """Closes the gates of `keys` until `until`; their skips go to each of `credit`."""
        with self._lock:
            for key in keys:
                slot = self.slot(key)
                self._fold(slot)  # the skips so far were the previous closing's
                self._credit[slot] = credit
                self.until[slot] = until

    def open(self, keys):
        """Opens them (their breakpoints changed or went): the skips so far are counted."""
        with self._lock:
            for key in keys:
                slot = self.index.get(key)
                if slot is not None:
                    self.until[slot] = 0.0
                    self._fold(slot)

    def keys(self):
        with self._lock:
            return list(self.index)

    def passes(self, key):
        """For the line events' callbacks: False (and a skip counted) while `key` is closed."""
        slot = self.index.get(key)
        if slot is None or self.until[slot] <= clock():
            return True
        next(self.skips[slot])
        return False

    def settle(self):
        """Hands every gate's skips so far to their callbacks (before counters are reported)."""
        with self._lock:
            for slot in range(len(self.skips)):
                self._fold(slot)

    def _fold(self, slot):
        now = _value(self.skips[slot])
        new = now - self._settled.get(slot, 0)
        if new:
            self._settled[slot] = now
            for count in self._credit.get(slot, ()):
                count(new)


_shared = []
_shared_lock = threading.Lock()


def shared():
    """The process's gates, made on first use."""
    with _shared_lock:
        if not _shared:
            _shared.append(Gates())
        return _shared[0]
