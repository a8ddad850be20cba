"""Snapshot breakpoints and logpoints at the hit (issue 34): decided, bounded, captured, queued,
and the program goes on. Nothing here raises into the program or pauses it.

    arrive(spec, frame, line, arguments, condition_held) -> Decision | None   # a line's hit
    take_call(records, func, arguments, caller)                               # a decorated call

Bounds, in the order a hit meets them:
* a breakpoint finished here (the server said 409, or `expires_at` passed): nothing at all;
* the process's CPU budget (BREAKROOM_SNAPSHOT_BUDGET, `configure(snapshot_budget=...)`, 1 % by
  default): the time the program waits for our work, refilled at that share of wall time; past
  it an arrival is counted `skipped_quota` and not looked at (not even its condition);
* the breakpoint's `max_per_second` token bucket: past it, `skipped_rate`;
* `max_hits`: this process takes no more than that many (the server keeps the fleet's count);
* the snapshot's own bounds (`capture`), and WAIT_S for the worker: a capture that takes longer
  (a `__repr__` stuck in C) is given up, counted `dropped`, and that type's repr not asked again.
"""

import atexit
import datetime
import os
import sys
import threading
import time

from ..process import current, labels
from ..process.record import process_record
from ..protocol.constants import (
    BREAKPOINT_LOG,
    BREAKPOINT_SNAPSHOT,
    COUNT_DROPPED,
    COUNT_SKIPPED_QUOTA,
    COUNT_SKIPPED_RATE,
)
from . import capture, gates, offthread, read_only
from .sender import Counters, Sender

DEFAULT_BUDGET = 0.01
BUDGET_ENV = "BREAKROOM_SNAPSHOT_BUDGET"
CAPTURE_TIME_S = 0.05  # the worker's own deadline for one snapshot: then values are left out
WAIT_S = 0.1  # how long the program waits for the worker at most (a C call may not stop)
EXIT_WAIT_S = 2.0

counters = Counters()
counters.sources.append(lambda: gates.shared().settle())


BURST_S = 5.0  # the bucket holds this many seconds' worth of the share


class Budget:
    """The process's CPU share for this work: a bucket of seconds holding BURST_S seconds' worth,
    refilled continuously, so one slow hit (a cold start) does not silence the next ones. Spending
    may overdraw it, by one bucket at most; it then refills."""

    def __init__(self, share=DEFAULT_BUDGET, clock=time.perf_counter):
        self.clock = clock
        self.set_share(share)

    def set_share(self, share):
        self.share = share
        self.capacity = share * BURST_S
        self.tokens = self.capacity
        self.at = self.clock()

    def has_room(self):
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.share)
        self.at = now
        return self.tokens > 0

    def spend(self, seconds):
        self.tokens = max(-self.capacity, self.tokens - seconds)

    def wait_s(self):
        """Seconds until there is room again."""
        return max(0.0, -self.tokens) / self.share if self.share > 0 else 1.0


def _budget_from_env():
    text = os.environ.get(BUDGET_ENV)
    if not text:
        return DEFAULT_BUDGET
    try:
        share = float(text)
        if 0 < share <= 1:
            return share
    except ValueError:
        pass
    print(f"breakroom: {BUDGET_ENV}={text!r}: expected a share in (0, 1], using {DEFAULT_BUDGET}", file=sys.stderr)
    return DEFAULT_BUDGET


budget = Budget(_budget_from_env())


def configure_budget(share):
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise ValueError(f"snapshot_budget must be a share in (0, 1], not {share!r}")
    budget.set_share(float(share))


class RateLimit:
    """`max_per_second` as a token bucket holding one second's worth (at least one token)."""

    def __init__(self, per_second, clock=time.monotonic):
        self.rate = float(per_second)
        self.capacity = max(1.0, self.rate)
        self.tokens = self.capacity
        self.clock = clock
        self.at = clock()

    def allow(self):
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait_s(self):
        """Seconds until the next token."""
        return max(0.0, 1.0 - self.tokens) / self.rate


def parse_time(value):
    """`expires_at` as epoch seconds: a number, or an ISO 8601 text (`Z` or an offset; none is
    UTC). None when absent or unreadable (then nothing expires here; the server still does)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value:
        try:
            when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        return when.timestamp()
    return None


def _positive_int(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class Policy:
    """One snapshot or log breakpoint's bounds in this process."""

    def __init__(self, bp_id, extras, expressions=(), action=BREAKPOINT_SNAPSHOT):
        self.id = bp_id
        self.limits = capture.Limits(extras.get("capture"))
        rate = extras.get("max_per_second")
        ok_rate = isinstance(rate, (int, float)) and not isinstance(rate, bool) and rate > 0
        self.rate = RateLimit(rate) if ok_rate else None
        self.expires_at = parse_time(extras.get("expires_at"))
        self.max_hits = _positive_int(extras.get("max_hits"))
        self.expressions = list(expressions)  # [(text, code)]
        self.action = action
        self.condition = None  # a function snapshot's own condition (a line's is the spec's)
        self.taken = 0  # snapshots taken here and not dropped
        self.finished = False
        self.lock = threading.Lock()
        # (until, kind): past its rate or the budget until then (snapshots.gates closes the line)
        self.closed = None

    def expired(self, now):
        return self.expires_at is not None and now >= self.expires_at

    def take_slot(self):
        """Whether one more snapshot may be taken here: the rate first, then max_hits (a slot
        given back by `release` when its snapshot is dropped)."""
        with self.lock:
            if self.action == BREAKPOINT_SNAPSHOT and self.max_hits is not None and self.taken >= self.max_hits:
                return "full"
            if self.rate is not None and not self.rate.allow():
                return "rate"
            self.taken += 1
            return "ok"

    def release(self):
        with self.lock:
            self.taken = max(0, self.taken - 1)


# ---- the sender and disarming ------------------------------------------------------------------

_sender = None
_sender_lock = threading.Lock()
_finish_listeners = []  # (breakpoint_id) -> None, run on the sender's thread
_call_policies = {}  # function snapshot records: id -> (record, Policy)
_finished = set()  # ids the server said 409 for, or expired here: until armed anew


def _envelope():
    return {**current.client().identity(), **process_record()}


def sender():
    global _sender
    with _sender_lock:
        if _sender is None:
            _sender = Sender(current.client().transport.url, _envelope, counters, on_finished=finish)
            atexit.register(lambda: _sender.flush(EXIT_WAIT_S))
        return _sender


def finish(bp_id, policy=None):
    """A breakpoint done with in this process (409, or expired here): no more work at its hits,
    and the listeners (the breakpoint channel) disarm it, on the sender's thread."""
    _finished.add(bp_id)
    if policy is not None:
        policy.finished = True
    entry = _call_policies.get(bp_id)
    if entry is not None:
        entry[1].finished = True
    for listener in list(_finish_listeners):
        if policy is None:  # already on the sender's thread (a 409)
            listener(bp_id)
        else:
            sender().call_soon(lambda listener=listener: listener(bp_id))


def rearm(bp_id):
    """The channel armed a changed record under this id: it may take snapshots again."""
    _finished.discard(bp_id)
    _call_policies.pop(bp_id, None)


def is_finished(bp_id):
    return bp_id in _finished


def policy_of(spec):
    policy = getattr(spec, "_snapshot_policy", None)
    if policy is None:
        policy = Policy(spec.id, spec.extras, spec._expression_codes, spec.action)
        spec._snapshot_policy = policy
    return policy


# ---- a line's hit --------------------------------------------------------------------------------


def _thread():
    return {"id": threading.get_ident(), "name": threading.current_thread().name}


def arrive(spec, frame, line, arguments=None, condition_held=False):
    """One arrival at a log or snapshot breakpoint, on the program's thread. Returns the
    decision the line engine records (a log line, a condition's error) or None."""
    try:
        if not spec.enabled:
            return None
        policy = policy_of(spec)
        if policy.finished or spec.id in _finished:
            return None
        if policy.expired(time.time()):
            finish(spec.id, policy)
            return None
        if not budget.has_room():
            counters.add(COUNT_SKIPPED_QUOTA, spec.id)
            policy.closed = (gates.clock() + budget.wait_s(), COUNT_SKIPPED_QUOTA)
            return None
        thread = _thread()
        start = time.perf_counter()
        took = []  # a slot taken, given back if the capture is abandoned
        decided = None
        if spec.action == BREAKPOINT_SNAPSHOT and (spec._condition_code is None or condition_held) and spec._pattern_re is None:
            # Deciding runs none of the program's code here (a hit count at most), and most
            # arrivals at a hot line stop at the rate limit: those never wait for the worker.
            decided = spec.decide(frame.f_globals, frame.f_locals, None, condition_held)
            if decided.action != BREAKPOINT_SNAPSHOT:
                return decided
            slot = policy.take_slot()
            if slot != "ok":
                if slot == "rate":
                    _past_rate(spec, policy)
                return None
            took.append(True)

        def job():
            decision = decided
            if decision is None:
                decision = spec.decide(frame.f_globals, frame.f_locals, arguments, condition_held)
                if decision.action not in (BREAKPOINT_SNAPSHOT, BREAKPOINT_LOG):
                    return decision, None
                slot = policy.take_slot()
                if slot != "ok":
                    if slot == "rate":
                        _past_rate(spec, policy)
                    return None, None
                took.append(True)
            if decision.action == BREAKPOINT_LOG:
                return decision, None
            code = frame.f_code
            snapshot = build(spec.id, policy, frame, thread, (code.co_filename, line, capture.qualname(code)))
            return decision, snapshot

        return _finish_job(spec.id, policy, job, start, took)
    except Exception as exc:  # our bug: said, never raised into the program
        print(f"breakroom: snapshot breakpoint {getattr(spec, 'id', '?')}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def _past_rate(spec, policy):
    """Counts the skip; when nothing but the rate decides (no condition, pattern or hit
    condition, which each arrival must still see), the line may close until the next token."""
    counters.add(COUNT_SKIPPED_RATE, spec.id)
    if spec._condition_code is None and spec._pattern_re is None and spec._hits is None:
        policy.closed = (gates.clock() + policy.rate.wait_s(), COUNT_SKIPPED_RATE)


def skips_counter(spec, kind):
    """How skips a closed gate counted are added for `spec`: as `kind`; past the rate they
    were hits too (the rate is decided after the hit count)."""

    def count(n):
        counters.add(kind, spec.id, n)
        if kind == COUNT_SKIPPED_RATE:
            with spec._lock:
                spec.hit_count += n

    return count


def gate_until(spec):
    """(until, kind) while this read-only breakpoint's arrivals would only count a skip, else None."""
    policy = getattr(spec, "_snapshot_policy", None)
    closed = policy.closed if policy is not None and spec.enabled else None
    return closed if closed is not None and closed[0] > gates.clock() else None


def _finish_job(bp_id, policy, job, start, took=()):
    worked = []

    def timed():
        began = time.perf_counter()
        try:
            return job()
        finally:
            worked.append(time.perf_counter() - began)

    status, result = offthread.run(timed, WAIT_S)
    elapsed = time.perf_counter() - start
    # The budget pays for the work; the worker thread's start (once) is not the hit's. An
    # abandoned capture pays what the program waited.
    budget.spend(worked[0] if worked else elapsed)
    if status == "timeout":
        capture.blame_hung_repr()
        counters.add(COUNT_DROPPED, bp_id)
        if took:  # an abandoned capture is not one of this process's max_hits
            policy.release()
        return None
    if status == "error":
        print(f"breakroom: snapshot breakpoint {bp_id}: {type(result).__name__}: {result}", file=sys.stderr)
        return None
    decision, snapshot = result
    if snapshot is not None:
        snapshot["capture_ms"] = round(elapsed * 1000, 3)
        if not sender().put(snapshot):
            policy.release()
    return decision


def build(bp_id, policy, top, thread, where, first=None, globals_=None, locals_=None):
    """The snapshot's body (without the process fields the sender adds). Runs on the worker."""
    room = capture.Capture(policy.limits, time.perf_counter() + CAPTURE_TIME_S, used=600)
    file, line, function = where
    if globals_ is None:
        globals_, locals_ = top.f_globals, top.f_locals
    # The watch expressions first: they are what was asked for, and get the room they need.
    values = capture.expressions(room, policy.expressions, globals_, locals_) if policy.expressions else []
    frames = capture.frames(room, top, first)
    capture.data_forms(room)  # last: the values themselves come first
    return {
        "breakpoint_id": bp_id,
        "labels": labels.current(),
        "taken_at": time.time(),
        "thread": thread,
        "file": file,
        "line": line,
        "function": function,
        "frames": frames,
        "expressions": values,
        "truncated": room.truncated,
        "size_bytes": room.used + room.rich_used,
        # How many values were replaced by `[redacted]`; its presence also tells the server
        # this client redacts (issue 50).
        "redacted": room.redacted,
    }


# ---- a decorated call ----------------------------------------------------------------------------


def _call_policy(record):
    """The Policy of a function snapshot record, made again when the record changed; None (and
    said once) when its expressions are not read-only."""
    bp_id = str(record.get("id"))
    entry = _call_policies.get(bp_id)
    if entry is not None and entry[0] == record:
        return entry[1]
    expressions = record.get("expressions") or []
    compiled = []
    try:
        if not isinstance(expressions, list):
            raise read_only.NotReadOnly("expressions must be a list")
        for i, text in enumerate(expressions[:20], 1):
            read_only.check(str(text), f"expression {i}")
            compiled.append((str(text), read_only.compile_read_only(str(text))))
        condition = record.get("condition")
        if condition:
            read_only.check(str(condition), "condition")
            condition = read_only.compile_read_only(str(condition))
    except (read_only.NotReadOnly, SyntaxError, ValueError) as exc:
        if entry is None or entry[1] is not None:
            print(f"breakroom: snapshot breakpoint {bp_id} not set here: {exc}", file=sys.stderr)
        _call_policies[bp_id] = (record, None)
        return None
    policy = Policy(bp_id, record, compiled)
    policy.condition = condition or None
    _call_policies[bp_id] = (record, policy)
    return policy


def take_call(records, func, arguments, caller):
    """Function snapshots of one decorated call, before it runs: the call as the top frame (its
    bound `arguments` as locals), then the caller's stack; expressions see the arguments and
    the function's globals."""
    for record in records if isinstance(records, list) else []:
        try:
            if not isinstance(record, dict) or record.get("id") is None:
                continue
            if record.get("action", BREAKPOINT_SNAPSHOT) != BREAKPOINT_SNAPSHOT or not labels.matches(record.get("where")):
                continue
            policy = _call_policy(record)
            if policy is None or policy.finished or policy.id in _finished:
                continue
            if policy.expired(time.time()):
                finish(policy.id, policy)
                continue
            if not budget.has_room():
                counters.add(COUNT_SKIPPED_QUOTA, policy.id)
                continue
            _take_one_call(policy, func, dict(arguments), caller)
        except Exception as exc:  # our bug: said, never raised into the program
            print(f"breakroom: function snapshot: {type(exc).__name__}: {exc}", file=sys.stderr)


def _take_one_call(policy, func, arguments, caller):
    code = getattr(func, "__code__", None)
    file = code.co_filename if code is not None else "<unknown>"
    line = code.co_firstlineno if code is not None else 0
    function = capture.qualname(code) if code is not None else getattr(func, "__qualname__", "?")
    globals_ = getattr(func, "__globals__", None) or {}
    thread = _thread()
    start = time.perf_counter()
    took = []

    def job():
        if policy.condition is not None:
            try:
                if not read_only.guarded_eval(policy.condition, globals_, arguments, convert=bool):
                    return None, None
            except (Exception, read_only.Blocked):
                return None, None  # a condition that fails never captures, as at a line
        slot = policy.take_slot()
        if slot != "ok":
            if slot == "rate":
                counters.add(COUNT_SKIPPED_RATE, policy.id)
            return None, None
        took.append(True)
        first = (file, line, function, list(arguments.items()))
        snapshot = build(policy.id, policy, caller, thread, (file, line, function), first, globals_, arguments)
        return None, snapshot

    _finish_job(policy.id, policy, job, start, took)


def flush(wait_s=EXIT_WAIT_S):
    return _sender.flush(wait_s) if _sender is not None else True

