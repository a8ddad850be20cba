"""The server's breakpoints in this program (issue 18): a daemon thread holds
`GET /api/breakpoint-changes?since=V` (answered at once when the breakpoints change, else after
25 s) and applies every line breakpoint to the line engine: added, changed, removed. Hits and
logpoint messages go back to `POST /api/breakpoint-hits` from a second thread, so a logpoint in
a loop never waits for the network. Function and error breakpoints of wrapped calls are decided
by the server at call start and completion; an error breakpoint also makes uncaught exceptions
of its types pause post-mortem here (`breakpoints.uncaught`).

Each thread has its own kept-alive connection (the transport keeps one per thread), so the held
request never delays a call's own requests.
"""

import atexit
import json
import os
import queue
import sys
import threading
import time
import urllib.parse

from . import redaction
from .breakpoints.kinds import SNAPSHOT_FIELDS, BreakpointError
from .breakpoints.uncaught import UncaughtErrors
from .lines import interrupt, starts
from .pause import post_mortem
from .pause.call import pause_in_frame
from .pause.held_tasks import pause_task
from .pause.tasks import cancel_task, list_tasks
from .process import current, labels, switch_interval
from .process.record import process_record
from .protocol.constants import (
    BREAKPOINT_COMPLETED,
    BREAKPOINT_EXPIRED,
    BREAKPOINT_LINE,
    EVENT_HIT_COUNT,
    PAUSE_ALWAYS,
    STOP_INTERRUPT,
    TASK_CANCEL,
    TASK_PAUSE,
)
from .protocol.transport import ServerError, ServerUnavailable, Transport
from .snapshots import take

# Longer than the server's 25 s hold.
HOLD_TIMEOUT = 40.0
RETRY_AFTER = 1.0
COUNT_EVERY = 0.5
EXIT_WAIT = 2.0  # at most this long at exit for the last reports
READY_WAIT = 10.0  # at most this long for another thread's first ask (its transport times out first)
OPTIONS = ("condition", "hit_condition", "pattern", "log_message", "enabled")
# A change of these arms the breakpoint anew (a new spec: its snapshot bounds start afresh).
REARM_FIELDS = ("file", "line", "action", "expressions") + SNAPSHOT_FIELDS
INACTIVE = (BREAKPOINT_COMPLETED, BREAKPOINT_EXPIRED)  # a snapshot breakpoint's `state` when it is done


def _shape(record):
    """What a record's breakpoint is, without the counts the server adds to it."""
    return tuple(repr(record.get(k)) for k in REARM_FIELDS + OPTIONS + ("state",))


class BreakpointChannel:
    def __init__(self, url, identity, line_engine, install_excepthook, get_client):
        self._get_client = get_client
        self._interrupted = set()  # interrupt ids armed here
        self._tasks_answered = set()  # task-list asks answered here (issue 51)
        self._orders_answered = set()  # task orders carried out here
        self.transport = Transport(url, timeout=HOLD_TIMEOUT)
        self.identity = identity  # () -> process_pid and process_start_time
        self._line_engine = line_engine  # () -> the LineBreakpoints, created on first use
        self._install_excepthook = install_excepthook
        # The line engine survives a fork: what the channel before it applied is still armed.
        self._applied = dict(_inherited)  # id -> the server's record as applied
        self._refused = {}  # id -> why the engine refused it (said once)
        self._finished = {}  # id -> shape of the record finished here (409 or expired)
        self._hooked = False
        self._errors = UncaughtErrors(self._report)
        self._counts_sent = {}  # id -> the hit count the server has
        self._reports = queue.SimpleQueue()
        self.version = None
        # The address `version` counts on (`servers`): on another, the channel starts over.
        self.generation = None
        self.lock = threading.Lock()
        # Set once the first ask has been answered (or failed): a second caller of `follow`
        # (the child hook's thread racing `python -m breakroom`) waits for it, so a program
        # never starts its first line before its breakpoints are armed.
        self.ready = threading.Event()

    def start(self):
        """Applies the server's breakpoints now (so a program started with line breakpoints
        stops at its first lines), then follows changes in the background."""
        try:
            self.sync_once(None)
        except (ServerUnavailable, ServerError) as exc:
            print(f"breakroom: breakpoints not loaded from the server ({exc})", file=sys.stderr)
        finally:
            self.ready.set()
            starts.channel_answered()  # a child's inherited breakpoints are kept current here now
        threading.Thread(target=self._follow, name="breakroom-breakpoints", daemon=True).start()
        threading.Thread(target=self._send, name="breakroom-breakpoint-hits", daemon=True).start()
        take._finish_listeners.append(self._disarm_finished)
        atexit.register(self._at_exit)

    def _at_exit(self):
        # Reports still queued (sent in order by their thread), then the counts: what the
        # program did before it ended.
        drained = threading.Event()
        self._reports.put(drained)
        drained.wait(EXIT_WAIT)
        take.flush(EXIT_WAIT)
        self.send_counts()

    def sync_once(self, since):
        generation = self.transport.servers.generation
        if generation != self.generation:
            since = None  # another server: the whole set, and this process told to it
        me = self.identity()
        path = f"/api/breakpoint-changes?process_pid={me['process_pid']}&process_start_time={me['process_start_time']:.6f}"
        path += f"&main_thread={threading.main_thread().ident}"
        mine = labels.current()
        if mine:  # the server arms for us only the breakpoints whose `where` we match
            path += "&" + urllib.parse.urlencode({"labels": json.dumps(mine, separators=(",", ":"))})
        if since is None and not _forked:
            # The first ask: the program is a process on the server from now on. (A line woken
            # from a checkpoint is linked to its process by its call/start instead.)
            this = process_record()
            path += "&" + urllib.parse.urlencode(
                {
                    "hostname": this["hostname"],
                    "argv": json.dumps(this["argv"]),
                    "process_id": this.get("process_id", ""),
                    "parent_pid": this["parent_pid"],
                    **({"role": this["role"]} if this.get("role") else {}),
                }
            )
        path += "" if since is None else f"&since={since}"
        # Only to that server: a version of one server means nothing to another.
        reply = self.transport.get(path, generation=generation)
        version = reply.get("version")
        # The server's redaction rules first: the breakpoints below compile their log messages
        # under them (issue 50). An older server sends none: the defaults stay.
        redaction.apply_policy(reply.get("policy"))
        records = reply.get("breakpoints")
        if isinstance(records, list):
            self.apply(records)
        interrupts = reply.get("interrupts")
        if isinstance(interrupts, list):
            self.interrupt(interrupts)
        asks = reply.get("task_asks")
        if isinstance(asks, list):
            self.answer_task_asks(asks)
        orders = reply.get("task_orders")
        if isinstance(orders, list):
            self.answer_task_orders(orders)
        self.version = version
        self.generation = generation

    def _follow(self):
        while True:
            try:
                self.sync_once(self.version)
            except (ServerUnavailable, ServerError) as exc:
                # The server went away or restarted: ask again later for the whole set (a new
                # server counts versions from its own start), which also tells it this process.
                # The client moved to an address not tried yet: asked at once.
                self.version = None
                if not getattr(exc, "moved", False):
                    time.sleep(RETRY_AFTER)
            except Exception as exc:  # a bug here must not take the program down
                print(f"breakroom: breakpoint channel: {type(exc).__name__}: {exc}", file=sys.stderr)
                time.sleep(RETRY_AFTER)

    # ---- applying the server's records -------------------------------------------------------

    def apply(self, records):
        # Arming looks through every function and resolves file names (a syscall each, which
        # gives up the GIL): beside a busy thread of the program each of those waits out its
        # switch interval, and arming a line took up to 25 s instead of 30 ms. Short meanwhile.
        with switch_interval.Held(), self.lock:
            lines = {r["id"]: r for r in records if isinstance(r, dict) and r.get("kind") == BREAKPOINT_LINE and r.get("id")}
            lines = {bp_id: r for bp_id, r in lines.items() if self._armable(bp_id, r)}
            if lines or self._applied:
                engine = self._line_engine()
                self._listen(engine)
                for gone in set(self._applied) - set(lines):
                    self._applied.pop(gone, None)
                    try:
                        engine.remove(gone)
                    except KeyError:
                        pass
                for bp_id, record in lines.items():
                    self._apply_line(engine, bp_id, record)
            starts.hand_down(self._applied.values())  # what a child started now begins with
            if self._errors.apply(records) and not self._hooked:
                self._hooked = True
                self._install_excepthook(self._errors.pauses)
            if self._hooked:
                post_mortem.hook_event_loops()  # asyncio may have been imported since

    def _armable(self, bp_id, record):
        """Whether this process arms the record: its `where` matches our labels, it is not
        completed or expired, and it is not the very record that finished here."""
        if record.get("state") in INACTIVE or not labels.matches(record.get("where")):
            return False
        finished = self._finished.get(bp_id)
        if finished is not None:
            if finished == _shape(record):
                return False
            del self._finished[bp_id]  # changed since (a PATCH): armed anew
            take.rearm(bp_id)
        return True

    def _disarm_finished(self, bp_id):
        """The server said 409 `breakpoint_finished` (or it expired here): disarmed until its
        record changes. Runs on the snapshot sender's thread."""
        with self.lock:
            record = self._applied.pop(bp_id, None)
            if record is None:
                return
            self._finished[bp_id] = _shape(record)
            try:
                self._line_engine().remove(bp_id)
            except KeyError:
                pass

    def _apply_line(self, engine, bp_id, record):
        before = self._applied.get(bp_id)
        if before is not None and any(repr(before.get(k)) != repr(record.get(k)) for k in REARM_FIELDS):
            try:
                engine.remove(bp_id)
            except KeyError:
                pass
            self._applied.pop(bp_id, None)
            before = None
        try:
            rule = redaction.blocked(record.get("file"))
            if rule is not None:  # the server refuses these; one armed before the rule is not
                raise BreakpointError(f"{record.get('file')} is not debugged here (--no-debug {rule!r})")
            if before is None:
                engine.add(record)
            elif any(before.get(k) != record.get(k) for k in OPTIONS):
                engine.update(bp_id, {k: record.get(k) for k in OPTIONS if before.get(k) != record.get(k)})
            self._applied[bp_id] = record
            self._refused.pop(bp_id, None)
        except (BreakpointError, KeyError) as exc:
            if self._refused.get(bp_id) != str(exc):
                self._refused[bp_id] = str(exc)
                print(f"breakroom: breakpoint {bp_id} not set here: {exc}", file=sys.stderr)

    def _listen(self, engine):
        if self._report not in engine.listeners:
            engine.listeners.append(self._report)

    def interrupt(self, orders):
        """The server's pause orders for this program (DAP's `pause`): each thread named pauses
        at the next line it reaches. An order stays on the server until that pause arrives, so
        one seen before is skipped."""
        for order in orders:
            if not isinstance(order, dict) or not isinstance(order.get("interrupt_id"), str):
                continue
            if order["interrupt_id"] in self._interrupted:
                continue
            self._interrupted.add(order["interrupt_id"])
            thread = order.get("thread")
            thread = thread if isinstance(thread, int) and not isinstance(thread, bool) else None
            why_not = interrupt.request(thread, self._pause_here)
            if why_not is not None:
                print(f"breakroom: cannot pause here: {why_not}", file=sys.stderr)

    def answer_task_asks(self, asks):
        """The server asks for this program's asyncio tasks (issue 51): listed and sent from a
        thread of their own, so no loop stops and the channel goes on holding."""
        for ask in asks:
            if not isinstance(ask, str) or ask in self._tasks_answered:
                continue
            self._tasks_answered.add(ask)
            threading.Thread(target=self._answer_tasks, args=(ask,), name="breakroom-tasks", daemon=True).start()

    def _answer_tasks(self, ask):
        try:
            tasks = list_tasks()
        except Exception as exc:  # the list must never break the program
            print(f"breakroom: cannot list the tasks: {type(exc).__name__}: {exc}", file=sys.stderr)
            tasks = []
        try:
            self.transport.post("/api/task-lists", {"ask_id": ask, "tasks": tasks})
        except (ServerUnavailable, ServerError):
            pass  # asked again, or answered 409 by then

    def answer_task_orders(self, orders):
        """Orders for one task (issue 51: a debugger pauses it where it waits, an admin cancels
        it): each carried out once, on a thread of its own (it waits a moment for the task's
        loop), and answered."""
        for order in orders:
            if not isinstance(order, dict) or not isinstance(order.get("order_id"), str):
                continue
            if order["order_id"] in self._orders_answered:
                continue
            self._orders_answered.add(order["order_id"])
            if order.get("action") not in (TASK_CANCEL, TASK_PAUSE) or not isinstance(order.get("task_id"), str):
                print(f"breakroom: task order {order['order_id']} not understood here", file=sys.stderr)
                continue
            threading.Thread(
                target=self._carry_out_task_order, args=(order["order_id"], order["action"], order["task_id"]),
                name="breakroom-task-order", daemon=True,
            ).start()

    def _carry_out_task_order(self, order_id, action, task):
        pause_id = None
        try:
            if action == TASK_PAUSE:
                outcome, name, pause_id = pause_task(task)
            else:
                outcome, name = cancel_task(task)
        except Exception as exc:  # reading the tasks must never break the program
            print(f"breakroom: cannot {action} task {task}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return
        try:
            self.transport.post("/api/task-orders",
                                {"order_id": order_id, "outcome": outcome, "name": name, "pause_id": pause_id})
        except (ServerUnavailable, ServerError):
            pass  # the server answered its caller `program_not_answering` by then

    def _pause_here(self, frame):
        pause_in_frame(self._get_client(), frame, PAUSE_ALWAYS, stop={"kind": STOP_INTERRUPT})

    # ---- reporting hits ------------------------------------------------------------------------

    def _report(self, event, body):
        # With the process's record (host, argv, BREAKROOM_PROCESS_ID): a program that only
        # logs is listed as a process, its page shows the messages.
        report = {"event": event, **body, **self.identity(), **process_record()}
        self._reports.put(report)

    def _send(self):
        while True:
            try:
                report = self._reports.get(timeout=COUNT_EVERY)
            except queue.Empty:
                self.send_counts()
                continue
            if isinstance(report, threading.Event):  # the program is exiting: all sent
                report.set()
                continue
            try:
                self.transport.post("/api/breakpoint-hits", report)
            except (ServerUnavailable, ServerError):
                pass  # the hit is still printed and kept in the engine's records

    def send_counts(self):
        """Hit counts that changed without a report (arrivals the hit condition skipped): sent
        when the reports go quiet, and once at exit, so the server's counts are the program's."""
        counts = {}
        with self.lock:
            if self._applied:
                engine = self._line_engine()
                for bp_id in self._applied:
                    try:
                        count = engine.get(bp_id).hit_count
                    except KeyError:
                        continue
                    if self._counts_sent.get(bp_id) != count:
                        counts[bp_id] = count
        # Snapshot bounds' counts, as increments since the last report that got through.
        skipped = take.counters.take()
        if not counts and not skipped:
            return
        try:
            body = {"event": EVENT_HIT_COUNT, "counts": counts, **skipped, **self.identity()}
            self.transport.post("/api/breakpoint-hits", body)
            self._counts_sent.update(counts)
            take.counters.settle(skipped)
        except (ServerUnavailable, ServerError):
            pass


_channel = None
_channel_lock = threading.Lock()


_inherited = {}  # line records applied before a fork (the engine still holds them)
_forked = False  # this process is a fork (a checkpoint's line): its calls say which process it is


def forget_after_fork():
    """In a forked child: the channel's threads were not copied. True when there was one (the
    caller starts a new one for a live line)."""
    global _channel, _channel_lock, _forked
    _forked = True
    had = _channel is not None
    if had:
        _inherited.clear()
        _inherited.update(_channel._applied)
    _channel = None
    _channel_lock = threading.Lock()
    return had


def restart_in_fork_child(client):
    """A fork of the program (not a checkpoint) is a process of its own: a channel of its own,
    which tells the server of it now, before the child runs on (issue 33)."""
    global _channel, _channel_lock
    if _channel is not None:
        _inherited.clear()
        _inherited.update(_channel._applied)
    _channel = None
    _channel_lock = threading.Lock()
    return follow(client)


def catch_up(version):
    """A pause ended at breakpoints version `version`: a channel behind it applies the changes
    now (answered at once: the server is past the version asked about), so a breakpoint removed
    just before the Continue does not stop the program again."""
    channel = _channel
    if channel is None or not isinstance(version, int) or channel.version is None or channel.version >= version:
        return
    try:
        channel.sync_once(channel.version)
    except (ServerUnavailable, ServerError):
        pass  # the channel's own thread tries again


def follow(client):
    """Starts the process's channel once (the first client that connects). A caller that finds
    it started by another thread waits for its first answer."""
    global _channel
    if os.environ.get("BREAKROOM_NO_BREAKPOINT_CHANNEL"):
        return None
    with _channel_lock:
        channel, mine = _channel, False
        if channel is None:
            channel = _channel = BreakpointChannel(
                client.transport.url,
                client.identity,
                current.line_engine,
                post_mortem.install_excepthook,
                current.client,
            )
            channel.starter = threading.get_ident()
            mine = True
    if mine:
        channel.start()
    elif getattr(channel, "starter", None) != threading.get_ident():
        channel.ready.wait(READY_WAIT)
    return channel
