"""Where snapshot and logpoint work runs: a worker thread the program's thread waits for, with a
deadline.

Why not on the program's thread: the read-only guard is a profile function, and CPython sends
no profile (or trace) events inside a trace or sys.monitoring callback, which is where the line
engine hands us the hit on 3.12+ and for traced frames; and a `__repr__` blocked in C (a sleep,
a lock) can only be left behind, not interrupted, so it must not be the program's thread that
runs it.

    status, value = run(fn, wait_s)   # ("ok", value) | ("error", exc) | ("timeout", None)
    bounded(fn, seconds)              # inside a job: fn() stopped at its next line past the time

A worker whose job outlives `wait_s` is abandoned (it ends once its job returns, if ever) and the
next job gets a new one; while ABANDONED_CAP abandoned workers are still stuck, `run` refuses work
rather than pile up threads.
"""

import os
import queue
import sys
import threading
import time

ABANDONED_CAP = 4

_local = threading.local()  # .worker: set in worker threads (the line engine must not pause them)
_lock = threading.Lock()
_idle = []
_abandoned = []


class TimedOut(BaseException):
    """Raised by `bounded`'s trace function past its deadline. A BaseException, so that a
    `__repr__`'s `except Exception` does not swallow it."""


def _forget_after_fork():
    # A forked child (a checkpoint's line, a worker process) has none of the parent's threads:
    # an idle worker kept from before would take jobs and never run them.
    global _lock
    _lock = threading.Lock()
    _idle.clear()
    _abandoned.clear()
    _local.__dict__.pop("worker", None)  # forked from a worker: the child's thread is the program's


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def is_worker():
    """True in a snapshot worker thread: the program's code run there (a `__repr__`) must not
    pause at a breakpoint nor take a snapshot of its own."""
    return getattr(_local, "worker", False)


class _Worker:
    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.abandoned = False
        self.thread = threading.Thread(target=self._serve, name="breakroom-snapshot", daemon=True)
        self.thread.start()

    def _serve(self):
        _local.worker = True
        while True:
            job = self.jobs.get()
            try:
                job()
            except BaseException:  # a job reports its own outcome; nothing may end the worker early
                pass
            if self.abandoned:
                return


def run(fn, wait_s):
    """fn() on a worker thread, waiting at most `wait_s`. Never raises."""
    if is_worker():  # already on one (a snapshot within a snapshot's code): run here
        try:
            return ("ok", fn())
        except BaseException as exc:
            return ("error", exc)
    with _lock:
        _abandoned[:] = [w for w in _abandoned if w.thread.is_alive()]
        if len(_abandoned) >= ABANDONED_CAP:
            return ("timeout", None)
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = _Worker()
    done = threading.Event()
    outcome = []

    def job():
        try:
            outcome.append(("ok", fn()))
        except BaseException as exc:
            outcome.append(("error", exc))
        finally:
            done.set()

    worker.jobs.put(job)
    if done.wait(wait_s):
        with _lock:
            if len(_idle) < 2:
                _idle.append(worker)
                worker = None
        if worker is not None:  # a surplus worker: let it end
            worker.abandoned = True
            worker.jobs.put(lambda: None)
        return outcome[0]
    worker.abandoned = True
    with _lock:
        _abandoned.append(worker)
    return ("timeout", None)


def bounded(fn, deadline):
    """fn() under a trace function that raises TimedOut at the first line or call past
    `deadline` (a perf_counter time). Python code looping is stopped; C code is not (the
    caller's `run` wait covers that). The previous trace function is put back."""
    if time.perf_counter() > deadline:
        raise TimedOut

    def tracer(frame, event, arg):
        if time.perf_counter() > deadline:
            raise TimedOut
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        return fn()
    finally:
        sys.settrace(previous)
