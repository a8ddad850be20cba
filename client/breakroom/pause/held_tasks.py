"""Pausing one asyncio task from its list (issue 51): `POST /api/processes/{id}/tasks/{task_id}/pause`.

A task that is not running is waiting: on a future (`task._fut_waiter`, whose done-callbacks hold
the task's wakeup) or, for a moment, in its loop's ready queue (its next step scheduled, after
`await asyncio.sleep(0)` or a future that just finished). On the task's own loop thread, between
two steps of other tasks, this takes that wakeup away: the task is held where it waits, and the
loop runs every other task on. The pause is reported in the task's innermost program frame (its
`await` line), and waits on a worker thread as a task suspended at a breakpoint does
(`tasks.wait_beside_loop`); the REPL evaluates in that frame, and may `await` on the loop.

Resuming gives the wakeup back: the task goes on from its `await` exactly as if it had not been
held (a future that finished meanwhile wakes it at once). A step is armed in the loop's thread just
before the task's next step runs; a `raise` is raised at the `await`.

Both places are CPython asyncio's own (`_fut_waiter`, a future's `_callbacks`, the loop's
`_ready`): read with `getattr`, so a loop or future without them answers `not_pausable` instead of
breaking. uvloop keeps no `_ready` in Python: there a task is held once it waits on a future.
"""

import sys
import threading

from ..process import current
from ..protocol.constants import (
    ACTION_STEP,
    PAUSE_ALWAYS,
    STOP_TASK,
    TASK_FINISHED,
    TASK_LOOP_BLOCKED,
    TASK_NOT_FOUND,
    TASK_NOT_PAUSABLE,
    TASK_PAUSED,
    TASK_SUSPENDED,
)
from ..process.frames import is_library
from .call import act_on, frame_entries
from .tasks import (
    as_text,
    coroutine_frames,
    find_task,
    paused_lock,
    paused_tasks,
    step_in_task,
    suspend_at_step_hook,
    wait_beside_loop,
)

# How long pausing a task waits for its loop to run the hold, then for the server to have the
# pause (the server waits 5 s for the whole answer).
PAUSE_WAIT = 3.0
# How many turns of its loop a task that is neither waiting on a future nor in the ready queue
# where it can be taken (uvloop's) is tried again before `not_pausable`.
HOLD_TRIES = 200


def pause_task(wanted):
    """Pauses the task whose id is `wanted` where it waits, from the breakpoint channel's
    thread. Returns (outcome, the task's name, the pause id)."""
    task = find_task(wanted)
    if task is None:
        return TASK_NOT_FOUND, None, None
    name = as_text(task.get_name())
    with paused_lock:
        paused = task in paused_tasks
        pause_id = paused_tasks.get(task)
    if paused:
        return TASK_PAUSED, name, pause_id
    if task.done():
        return TASK_FINISHED, name, None
    client = current.client()
    if not client.ensure_connected():
        return TASK_LOOP_BLOCKED, name, None
    answer = {}
    answered = threading.Event()
    given_up = []

    def tell(outcome, pause_id=None):
        answer.setdefault("outcome", (outcome, pause_id))
        answered.set()

    def hold(tries):  # on the task's loop thread, between steps
        if given_up:
            return  # the order was answered `loop_blocked`: too late to pause now
        if task.done():
            return tell(TASK_FINISHED)
        held = _Held.take(task)
        if held is None:
            if tries > 0:
                loop.call_soon(hold, tries - 1)
            else:
                tell(TASK_NOT_PAUSABLE)
            return
        chain = coroutine_frames(task.get_coro())
        program = [f for f in chain if not is_library(f.f_code.co_filename)] or chain
        if not program:
            held.wake()
            return tell(TASK_NOT_PAUSABLE)
        frame = program[-1]  # the innermost program frame: where the task waits
        outer = list(reversed(chain[: chain.index(frame)]))  # what awaits it, innermost first
        stop = {"kind": STOP_TASK}
        wait_beside_loop(
            client, loop, task, frame, PAUSE_ALWAYS, None, stop, None,
            frame_entries([frame] + outer), outer,
            lambda outcome: _resume(client, task, frame, outer[0] if outer else None, stop, held, outcome),
            started=lambda pause_id: tell(TASK_SUSPENDED, pause_id),
        )

    loop = task.get_loop()
    try:
        loop.call_soon_threadsafe(hold, HOLD_TRIES)
    except RuntimeError:  # its loop is closed: the task never runs again
        return TASK_FINISHED, name, None
    if not answered.wait(PAUSE_WAIT):
        given_up.append(True)
        # Its loop's thread did not come round (a pause that blocks the loop, or code that never
        # yields): nothing was held. A hold that began meanwhile still reports its pause.
        if not answered.is_set():
            return TASK_LOOP_BLOCKED, name, None
    outcome, pause_id = answer["outcome"]
    return outcome, name, pause_id


def _resume(client, task, frame, caller, stop, held, outcome):
    """On the loop's thread, once the pause is resumed: the task goes on from its `await`."""
    with paused_lock:
        paused_tasks.pop(task, None)
    action, error = outcome
    if error is None and action is not None and action.get("action") == ACTION_STEP:
        if not step_in_task(client, frame, action, task, caller):
            # Armed in this thread for the frame, which runs at once (the wakeup is called here,
            # not scheduled): no other task's step comes in between.
            return held.wake(before=lambda: act_on(client, frame, PAUSE_ALWAYS, None, stop, action,
                                                   suspend=suspend_at_step_hook))
    elif error is None and action is not None:
        try:
            act_on(client, frame, PAUSE_ALWAYS, None, stop, action)  # `raise` raises
        except BaseException as exc:
            error = exc
    if error is not None:
        return held.throw(error)
    held.wake()


class _Held:
    """A task's wakeup, taken from where its loop keeps it: a future's done-callbacks, or the
    loop's ready queue."""

    def __init__(self, task, callback, args, context, waiter):
        self.task = task
        self.callback = callback
        self.args = args
        self.context = context
        self.waiter = waiter  # the future it waits on, when it waits on one not yet done

    @classmethod
    def take(cls, task):
        waiter = getattr(task, "_fut_waiter", None)
        if waiter is not None and not waiter.done():
            for callback, context in list(getattr(waiter, "_callbacks", None) or ()):
                if _wakes(callback, task):
                    waiter.remove_done_callback(callback)
                    return cls(task, callback, (waiter,), context, waiter)
            return None
        loop = task.get_loop()
        for handle in list(getattr(loop, "_ready", ())):  # its step scheduled for this turn
            callback = getattr(handle, "_callback", None)
            if not handle.cancelled() and _wakes(callback, task):
                held = cls(task, callback, handle._args or (), handle._context, None)
                handle.cancel()  # which forgets its callback and arguments: read before
                return held
        return None

    def wake(self, before=None):
        if self.waiter is not None and not self.waiter.done():
            # Still waiting: the wakeup goes back where it was, wrapped to arm a step first.
            callback = self.callback if before is None else _Armed(self.task, self.callback, before)
            self.waiter.add_done_callback(callback, context=self.context)
            return
        if before is not None:
            try:
                before()
            except BaseException as exc:
                return self.throw(exc)
        # Called here, on the loop's thread outside any task: what the loop would have done.
        self._call(*self.args)

    def _call(self, *args):
        # In the context asyncio gave it (the task's own, where its contextvars live).
        if self.context is None:
            return self.callback(*args)
        return self.context.run(self.callback, *args)

    def throw(self, error):
        """Wakes the task with `error` raised at its `await` (the future it waited on is left)."""
        if len(self.args) == 1 and hasattr(self.args[0], "add_done_callback"):  # its wakeup, given a future
            failed = self.task.get_loop().create_future()
            failed.set_exception(error)
            self._call(failed)
            return
        # Held as a step scheduled without a future (after `await asyncio.sleep(0)`): a C task's
        # step takes no exception, so the task goes on and the program is told why.
        print(f"breakroom: cannot raise {type(error).__name__} in task {self.task.get_name()} (it was not "
              "waiting on a future): it goes on", file=sys.stderr)
        self._call(*self.args)


class _Armed:
    """A task's wakeup that arms a step just before the task runs on."""

    def __init__(self, task, callback, before):
        self.__self__ = task  # found as the task's wakeup by a later hold
        self.callback = callback
        self.before = before

    def __call__(self, future):
        try:
            self.before()
        except BaseException as exc:
            failed = future.get_loop().create_future()
            failed.set_exception(exc)
            future = failed
        self.callback(future)


def _wakes(callback, task):
    return getattr(callback, "__self__", None) is task
