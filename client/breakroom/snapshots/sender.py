"""Sending snapshots (issue 34): `POST /api/snapshots` from a background thread, never from the
program's. The program's thread only appends to a bounded queue.

* The server out of reach (a restart, a network blip): the snapshots stay queued and the oldest
  is tried again every RETRY_S, so a server down for a few seconds loses nothing taken meanwhile.
* The queue full (CAPACITY): the new snapshot is counted `dropped`; the oldest are kept (with
  `max_hits` 1, the first snapshot is the one that is wanted).
* 409 `breakpoint_finished`: the breakpoint has what it needs, or expired: it is disarmed here
  (`on_finished`) and its other queued snapshots are let go.
* Another 4xx: that snapshot is malformed or its breakpoint gone: dropped, not retried. A 5xx is
  tried SERVER_ERROR_TRIES times, so one broken snapshot cannot hold the queue forever.
Counts (`dropped`) go to the `Counters`, which the breakpoint channel reports.
"""

import collections
import os
import sys
import threading
import time

from ..protocol.constants import COUNT_DROPPED, COUNT_SKIPPED_QUOTA, COUNT_SKIPPED_RATE
from ..protocol.transport import ServerError, ServerUnavailable, Transport

CAPACITY = 200
RETRY_S = 0.5
SEND_TIMEOUT_S = 5.0
SERVER_ERROR_TRIES = 3


class Counters:
    """Increments not yet reported, per kind (`skipped_quota`, `skipped_rate`, `dropped`) and
    breakpoint; `take()` hands them out, `settle()` forgets them once a report was accepted, so a
    failed report loses nothing."""

    KINDS = (COUNT_SKIPPED_QUOTA, COUNT_SKIPPED_RATE, COUNT_DROPPED)

    def __init__(self):
        self._lock = threading.Lock()
        self._pending = {kind: {} for kind in self.KINDS}
        self.sources = []  # callables that `add` what they counted elsewhere (snapshots.gates)

    def add(self, kind, breakpoint_id, n=1):
        with self._lock:
            counts = self._pending[kind]
            counts[breakpoint_id] = counts.get(breakpoint_id, 0) + n

    def take(self):
        for source in list(self.sources):
            source()
        with self._lock:
            return {kind: dict(counts) for kind, counts in self._pending.items() if counts}

    def settle(self, taken):
        with self._lock:
            for kind, counts in taken.items():
                pending = self._pending[kind]
                for bp_id, n in counts.items():
                    left = pending.get(bp_id, 0) - n
                    if left > 0:
                        pending[bp_id] = left
                    else:
                        pending.pop(bp_id, None)


class Sender:
    """The queue and its thread (started on the first snapshot, again in a forked child)."""

    def __init__(self, url, envelope, counters, on_finished=None, capacity=CAPACITY, retry_s=RETRY_S):
        self.url = url
        self.envelope = envelope  # () -> the process fields every snapshot carries
        self.counters = counters
        self.on_finished = on_finished  # (breakpoint_id) -> None: disarm it here
        self.capacity = capacity
        self.retry_s = retry_s
        self.sent = 0
        self._queue = collections.deque()
        self._chores = collections.deque()  # callables run on this thread (disarming, say)
        self._cond = threading.Condition()
        self._busy = False  # a snapshot is being posted (flush waits for it)
        self._pid = None

    def put(self, snapshot):
        """Queues one snapshot; False (and counted `dropped`) when the queue is full."""
        with self._cond:
            if len(self._queue) >= self.capacity:
                self.counters.add(COUNT_DROPPED, snapshot.get("breakpoint_id"))
                return False
            self._queue.append(snapshot)
            self._ensure_thread()
            self._cond.notify()
        return True

    def call_soon(self, chore):
        """Runs `chore()` on the sender's thread (work the program's thread must not do)."""
        with self._cond:
            self._chores.append(chore)
            self._ensure_thread()
            self._cond.notify()

    def pending(self):
        with self._cond:
            return len(self._queue) + self._busy

    def _ensure_thread(self):
        if self._pid != os.getpid():  # first use, or a forked child (threads are not copied)
            self._pid = os.getpid()
            threading.Thread(target=self._run, name="breakroom-snapshots", daemon=True).start()

    def _run(self):
        transport = Transport(self.url, timeout=SEND_TIMEOUT_S)
        server_errors = 0
        while True:
            with self._cond:
                while not self._queue and not self._chores:
                    self._cond.wait()
                chore = self._chores.popleft() if self._chores else None
                snapshot = None if chore is not None else self._queue[0]
                self._busy = snapshot is not None
            if chore is not None:
                try:
                    chore()
                except Exception as exc:  # a bug here must not end the sending
                    print(f"breakroom: snapshots: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            outcome = self._post(transport, snapshot)
            if outcome == "retry":
                with self._cond:
                    self._busy = False
                time.sleep(self.retry_s)
                continue
            if outcome == "server_error":
                server_errors += 1
                if server_errors < SERVER_ERROR_TRIES:
                    with self._cond:
                        self._busy = False
                    time.sleep(self.retry_s)
                    continue
                outcome = "dropped"
            server_errors = 0
            self._done(snapshot, outcome)

    def _post(self, transport, snapshot):
        try:
            body = {**self.envelope(), **snapshot}
        except Exception:  # the process fields could not be read: send what there is
            body = snapshot
        try:
            transport.post("/api/snapshots", body)
            return "sent"
        except ServerUnavailable:
            return "retry"
        except ServerError as exc:
            if exc.status == 409:
                return "finished"
            return "server_error" if exc.status >= 500 else "dropped"
        except Exception as exc:  # e.g. a value json cannot encode: that snapshot cannot go
            print(f"breakroom: snapshot not sent: {type(exc).__name__}: {exc}", file=sys.stderr)
            return "dropped"

    def _done(self, snapshot, outcome):
        bp_id = snapshot.get("breakpoint_id")
        with self._cond:
            if self._queue and self._queue[0] is snapshot:
                self._queue.popleft()
            if outcome == "finished":  # its other snapshots would get the same answer
                kept = [s for s in self._queue if s.get("breakpoint_id") != bp_id]
                self._queue.clear()
                self._queue.extend(kept)
            self._busy = False
            self._cond.notify_all()
        if outcome == "sent":
            self.sent += 1
        elif outcome == "dropped":
            self.counters.add(COUNT_DROPPED, bp_id)
        elif outcome == "finished" and self.on_finished is not None:
            try:
                self.on_finished(bp_id)
            except Exception as exc:
                print(f"breakroom: snapshots: disarming {bp_id}: {type(exc).__name__}: {exc}", file=sys.stderr)

    def flush(self, wait_s):
        """At exit: waits up to `wait_s` for the queue to empty. True when it did."""
        deadline = time.monotonic() + wait_s
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._pid != os.getpid():
                    return False
                self._cond.wait(min(left, 0.05))
        return True
