"""The GIL out of the way while a thread is paused, stepping or evaluating (issue 46).

A thread of this client that waits for the GIL next to a busy thread of the program waits out
the program's whole switch interval (5 ms by default) each time: when a poll's answer arrives,
after each send and receive of a round trip, at each hand-over to the eval thread. A step is a
few such turns, so one CPU-bound thread made a step over 20 ms instead of 3. While any thread
is paused here (a pause's REPL evals and a step's run to its next stop included), the interval
is SHORT instead; the program's own comes back when the last one resumes.

A shorter interval costs nothing while our threads sleep in a socket: only a thread asking for
the GIL makes the holder give it up. Threads of the program competing among themselves switch
more often meanwhile. A program that sets its own interval while paused keeps it.
"""

import sys
import threading

SHORT = 0.0001  # seconds: a hand-over then waits ~0.1 ms for a busy thread, not 5 ms

_lock = threading.Lock()
_holders = 0
_saved = None  # the program's interval, while held
_ours = None  # the interval as set (read back: CPython keeps microseconds)


def hold(programs=None):
    """One more paused thread: the interval is short until each `hold` is `release`d.
    `programs`: the program's interval, when the caller shortened it already (the child hook,
    while it imported this)."""
    global _holders, _saved, _ours
    with _lock:
        _holders += 1
        if _holders == 1:
            _saved = sys.getswitchinterval() if programs is None else programs
            if _saved > SHORT:
                sys.setswitchinterval(SHORT)
            _ours = sys.getswitchinterval()
        elif programs is not None and _saved is not None and _saved <= SHORT:
            _saved = programs  # a holder before this one read the hook's shortened interval


def release():
    global _holders, _saved, _ours
    with _lock:
        if _holders == 0:
            return
        _holders -= 1
        if _holders == 0:
            # Only ours is put back: an interval the program chose meanwhile stays.
            if _saved is not None and sys.getswitchinterval() == _ours:
                sys.setswitchinterval(_saved)
            _saved = _ours = None


class Held:
    """`with Held():` holds for the block."""

    def __enter__(self):
        hold()
        return self

    def __exit__(self, *exc):
        release()
        return False
