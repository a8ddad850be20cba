"""Pauses that suspend one asyncio task while its event loop runs on (issue 51).

A line breakpoint in an `async def` is compiled in as `await __breakroom_line_async__(LINE)`
(lines.rewrite); `await breakroom.set_trace_async()` is the same stop asked for by hand. Either
way the decision is made on the loop's thread, the stack is read there (a suspended coroutine's
frame has no callers), and then the coroutine awaits a future of its loop. A worker thread of
its own reports the pause to the server and waits for the resume, serving REPL evals (in the
suspended frame) meanwhile, exactly as a blocked thread would; the resume action resolves the
future. The loop runs every other task, timer and request in between. Several such pauses of one
process are independent: each has its own thread, pause id and future.

A `raise` resume raises in the task; a step is armed in the loop's thread when the task goes on
(the step's stops then block the loop, and say so).

Nothing here imports asyncio: a program that has not imported it runs no loop (sys.modules).
"""

import sys
import threading
import weakref

from .. import redaction
from ..process import current
from ..process.frames import visible, visible_stack
from ..protocol.constants import PAUSE_ALWAYS, STOP_SET_TRACE
from .call import act_on, pause_in_frame, stack_frames, wait_in_frame

# The tasks paused here now: task -> its pause id (None until the server answered).
paused_tasks = weakref.WeakKeyDictionary()
_paused_lock = threading.Lock()


def running_loop():
    """This thread's running asyncio loop, or None (without importing asyncio)."""
    asyncio = sys.modules.get("asyncio")
    return None if asyncio is None else asyncio._get_running_loop()


def suspend_task(frame, extra, stop, reason=PAUSE_ALWAYS):
    """An awaitable that pauses `frame`'s asyncio task alone, or None when this thread runs no
    loop, no task, or the server is out of reach (the caller pauses as before then)."""
    loop = running_loop()
    if loop is None or redaction.frame_blocked(frame) is not None:
        return None  # `--no-debug` code: pause_in_frame does not stop it either
    task = sys.modules["asyncio"].current_task(loop)
    if task is None:
        return None
    client = current.client()
    if not client.ensure_connected():
        return None
    stack = stack_frames(frame)
    outer = visible_stack(frame)[1:] if visible(frame) is frame else []
    future = loop.create_future()
    with _paused_lock:
        paused_tasks[task] = None

    def started(pause_id):
        with _paused_lock:
            if task in paused_tasks:
                paused_tasks[task] = pause_id

    def wait():
        try:
            outcome = (wait_in_frame(client, frame, reason, extra, None, stop, None, stack=stack, outer=outer,
                                     loop=loop, started=started), None)
        except BaseException as exc:  # raised in the task, where the program sees it
            outcome = (None, exc)
        try:
            loop.call_soon_threadsafe(_settle, future, outcome)
        except RuntimeError:  # the loop closed meanwhile: nothing waits any more
            pass

    threading.Thread(target=wait, name="breakroom-task-pause", daemon=True).start()
    return _resumed(future, task, client, frame, reason, extra, stop)


def _settle(future, outcome):
    if not future.done():  # a cancelled task does not take the action
        future.set_result(outcome)


async def _resumed(future, task, client, frame, reason, extra, stop):
    try:
        action, error = await future
    finally:
        with _paused_lock:
            paused_tasks.pop(task, None)
    if error is not None:
        raise error
    if action is not None:
        act_on(client, frame, reason, extra, stop, action)


async def set_trace_async(*, frame=None):
    """`await breakroom.set_trace_async()`: pauses here, in the caller's frame, suspending only
    the caller's task (its loop runs on). Without a running loop and task it pauses as
    `set_trace()` does."""
    frame = frame or sys._getframe(1)
    waiting = suspend_task(frame, None, {"kind": STOP_SET_TRACE})
    if waiting is None:
        pause_in_frame(current.client(), frame, PAUSE_ALWAYS)
        return
    await waiting
