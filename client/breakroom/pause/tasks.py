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
from ..process import current, switch_interval
from ..process.kept_threads import KeptThreads
from ..process.frames import is_hidden, visible, visible_stack
from ..lines.engine import coroutine_steps, has_step_hooks
from ..protocol.constants import (
    ACTION_STEP,
    PAUSE_ALWAYS,
    STEP_OUT,
    STEP_OVER,
    STEPPED_LINE,
    STOP_SET_TRACE,
    STOP_STEP,
    TASK_CANCELLED,
    TASK_CANCELLING,
    TASK_FINISHED,
    TASK_NOT_FOUND,
    TASK_PAUSED,
    TASK_THREAD_PREFIX,
)
from .call import ASYNC_CODE, act_on, pause_in_frame, stack_frames, wait_in_frame

# The tasks paused here now: task -> its pause id (None until the server answered).
paused_tasks = weakref.WeakKeyDictionary()
paused_lock = threading.Lock()


def running_loop():
    """This thread's running asyncio loop, or None (without importing asyncio)."""
    asyncio = sys.modules.get("asyncio")
    return None if asyncio is None else asyncio._get_running_loop()


def suspend_task(frame, extra, stop, reason=PAUSE_ALWAYS, namespaces=None):
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
    wait_beside_loop(client, loop, task, frame, reason, extra, stop, namespaces, stack, outer,
                     lambda outcome: _settle(future, outcome))
    return _resumed(future, task, client, frame, reason, extra, stop)


def wait_beside_loop(client, loop, task, frame, reason, extra, stop, namespaces, stack, outer, settle,
                     started=None):
    """Reports the pause of `task` (suspended in `frame`, on `loop`'s thread, which calls this)
    and waits for its resume on a worker thread of its own, serving REPL evals meanwhile; then
    `settle((action, error))` runs on the loop's thread. `started(pause_id)` is told the pause's
    id once the server has it."""
    with paused_lock:
        paused_tasks[task] = None

    # The GIL's turns short until the server has the pause (process.switch_interval): the loop's
    # thread may be busy meanwhile, and this thread would wait out its 5 ms turns.
    switch_interval.hold()
    told = []

    def on_started(pause_id):
        with paused_lock:
            if task in paused_tasks:
                paused_tasks[task] = pause_id
        if not told:
            told.append(True)
            switch_interval.release()
        if started is not None:
            started(pause_id)

    name = f"{TASK_THREAD_PREFIX}{task.get_name()}"

    def wait():
        # The pause's thread is named after its task: editors list each paused task as a thread
        # of its own (DAP), under this name.
        me = threading.current_thread()
        before, me.name = me.name, name
        try:
            outcome = (wait_in_frame(client, frame, reason, extra, None, stop, namespaces, stack=stack, outer=outer,
                                     loop=loop, started=on_started), None)
        except BaseException as exc:  # raised in the task, where the program sees it
            outcome = (None, exc)
        finally:
            me.name = before
        if not told:
            told.append(True)
            switch_interval.release()
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the loop closed meanwhile: nothing waits any more
            with paused_lock:
                paused_tasks.pop(task, None)

    _WAITERS.submit(wait)


# The threads paused tasks wait on, one per pause, kept for the next pause (up to 4).
_WAITERS = KeptThreads("breakroom-task-pause", max_idle=4)


def _settle(future, outcome):
    if not future.done():  # a cancelled task does not take the action
        future.set_result(outcome)


async def _resumed(future, task, client, frame, reason, extra, stop):
    try:
        action, error = await future
    finally:
        with paused_lock:
            paused_tasks.pop(task, None)
    if error is not None:
        raise error
    if action is not None and not step_in_task(client, frame, action, task):
        act_on(client, frame, reason, extra, stop, action, suspend=suspend_at_step_hook)


def step_in_task(client, frame, action, task, caller=None):
    """A step over or out from a coroutine, armed for the step hooks Breakroom compiled into
    rewritten coroutines, so it stops at the next statement with its task suspended again:
    over, at the frame's next statement (or its caller's, when the frame returns first); out, at
    its caller's. `caller` is the coroutine awaiting `frame` (its `f_back` while it runs). False:
    stepped as before (into, to a line, or code without step hooks), blocking the loop at its
    stops."""
    kind = action.get("step")
    if action.get("action") != ACTION_STEP or kind not in (STEP_OVER, STEP_OUT):
        return False
    caller = caller if caller is not None else frame.f_back
    if caller is not None and not (caller.f_code.co_flags & ASYNC_CODE and has_step_hooks(caller.f_code)):
        caller = None
    if kind == STEP_OUT:
        targets = [caller] if caller is not None else []
    else:
        targets = [frame] + ([caller] if caller is not None else []) if has_step_hooks(frame.f_code) else []
    if not targets:
        return False
    stop = {"kind": STOP_STEP, "step": kind, "how": STEPPED_LINE, "previous_pause_id": action.get("from_pause_id")}
    namespaces = action.get("namespaces")
    armed = {}

    def forget(_task=None):
        # The first target that reaches a statement stops; the others are dropped, as they are
        # with the task (a frame is not kept longer than that).
        for target, entry in armed.items():
            if coroutine_steps.get(id(target)) is entry:
                coroutine_steps.pop(id(target), None)

    def on_line(here, line):
        forget()
        return _stop_here(client, here, stop, namespaces)

    for target in targets:
        armed[target] = (target, on_line)
        coroutine_steps[id(target)] = armed[target]
    task.add_done_callback(forget)
    return True


def _stop_here(client, frame, stop, namespaces):
    """A step's stop reached at a step hook: what the coroutine awaits (its task suspended), or
    None once it paused as before (no loop or server to suspend it with)."""
    waiting = suspend_task(frame, None, stop, namespaces=namespaces)
    if waiting is None:
        pause_in_frame(client, frame, PAUSE_ALWAYS, stop=stop, namespaces=namespaces)
    return waiting


def suspend_at_step_hook(frame, stop, namespaces):
    """A blocking step (into, to a line, out to a caller) that stops in a coroutine Breakroom
    rewrote, on its loop's thread within a task: instead of stopping the loop there, the step
    hook compiled at the start of this very line (a line event comes before the line's first
    instruction, which is the hook) awaits the pause, so the task is suspended alone. False
    for any other frame: the step stops there as before."""
    if not (frame.f_code.co_flags & ASYNC_CODE and has_step_hooks(frame.f_code)):
        return False
    loop = running_loop()
    if loop is None or sys.modules["asyncio"].current_task(loop) is None:
        return False
    client = current.client()

    def on_line(here, line):
        return _stop_here(client, here, stop, namespaces)

    armed = (frame, on_line)
    coroutine_steps[id(frame)] = armed

    def forget(_task):  # a hook never reached (the line ends the frame): dropped with its task
        if coroutine_steps.get(id(frame)) is armed:
            coroutine_steps.pop(id(frame), None)

    sys.modules["asyncio"].current_task(loop).add_done_callback(forget)
    return True


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


# ---- the tasks, listed (GET /api/processes/{id}/tasks) ----------------------------------------

STACK_LIMIT = 64
AWAITING_LIMIT = 300


def list_tasks():
    """Every asyncio task of every loop in this process, read from the calling thread (the
    breakpoint channel's) without stopping any loop: name, state, its coroutines' stack (its
    own first, then what each awaits), what it waits on, where it was created (with the loop's
    debug mode), and its pause id when it is paused here. Read from the tasks' own coroutine
    frames and their `cr_await` chains (3.11-3.13). 3.14's `asyncio.capture_call_graph` is not
    used: it reads only the calling thread's tasks, and this thread runs none."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return []
    current = getattr(asyncio.tasks, "_current_tasks", {})
    with paused_lock:
        paused = dict(paused_tasks)
    loops = {}
    found = []
    for task in every_task(asyncio):
        loop = task.get_loop()
        loop_id = loops.setdefault(id(loop), f"loop-{len(loops) + 1}")
        if task in paused:
            state = "paused"
        elif task.done():
            state = "cancelled" if task.cancelled() else "done"
        elif current.get(loop) is task:
            state = "running"
        else:
            state = "pending"
        found.append(
            {
                "id": task_id(task),
                "name": as_text(task.get_name()),
                "state": state,
                "stack": _coroutine_stack(task.get_coro()),
                "awaiting": None if state == "paused" else _awaiting(asyncio, task),
                "created_at_stack": _created_at(task),
                "pause_id": paused.get(task),
                "loop_id": loop_id,
            }
        )
    found.sort(key=lambda t: (t["loop_id"], t["name"]))
    return found


def task_id(task):
    """A task's id in the list and in orders (unique while it lives)."""
    return f"task-{id(task):x}"


def find_task(wanted):
    """The live task whose id is `wanted`, or None."""
    asyncio = sys.modules.get("asyncio")
    return None if asyncio is None else next((t for t in every_task(asyncio) if task_id(t) == wanted), None)


# How long `cancel_task` waits for a cancelled task to finish before it says it still runs.
CANCEL_WAIT = 1.0


def cancel_task(wanted):
    """Cancels the task whose id is `wanted` (an admin's order, from the breakpoint channel's
    thread): `task.cancel()` runs on the task's own loop, as asyncio requires; then this waits a
    moment for the task to finish. A task Breakroom paused is left alone (its pause is
    continued instead). Returns (outcome, the task's name)."""
    task = find_task(wanted)
    if task is None:
        return TASK_NOT_FOUND, None
    name = as_text(task.get_name())
    with paused_lock:
        paused = task in paused_tasks
    if paused:
        return TASK_PAUSED, name
    if task.done():
        return TASK_FINISHED, name
    finished = threading.Event()
    was_done = []

    def cancel():  # on the loop's thread
        if task.done():
            was_done.append(True)
        else:
            task.cancel("cancelled from Breakroom")
        task.add_done_callback(lambda _task: finished.set())

    try:
        task.get_loop().call_soon_threadsafe(cancel)
    except RuntimeError:  # its loop is closed: the task will never run again
        return TASK_FINISHED, name
    finished.wait(CANCEL_WAIT)
    if was_done:
        return TASK_FINISHED, name
    # A loop whose thread is stopped (a blocking pause) cancels it when it runs again.
    return (TASK_CANCELLED if task.done() else TASK_CANCELLING), name


def every_task(asyncio):
    """The tasks asyncio keeps track of (3.11: `_all_tasks`; 3.12+: `_scheduled_tasks` and
    `_eager_tasks`). Their loops' threads may add or drop one while this copies: tried again."""
    sources = [getattr(asyncio.tasks, name, None) for name in ("_all_tasks", "_scheduled_tasks", "_eager_tasks")]
    for _ in range(100):
        try:
            found = set()
            for source in sources:
                if source is not None:
                    found.update(list(source))
            return found
        except RuntimeError:  # changed size during iteration
            continue
    return set()


def as_text(value):
    text = redaction.text(str(value))
    return text if len(text) <= AWAITING_LIMIT else text[: AWAITING_LIMIT - 1] + "…"


def coroutine_frames(coro):
    """A task's frames from its coroutine, outermost first: then what each awaits, down its
    `cr_await` chain (Breakroom's own frames left out; at most `STACK_LIMIT` links)."""
    frames = []
    seen = 0
    while coro is not None and seen < STACK_LIMIT:
        seen += 1
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None and not is_hidden(frame.f_code.co_filename):
            frames.append(frame)
        inner = getattr(coro, "cr_await", None)
        if inner is None:
            inner = getattr(coro, "gi_yieldfrom", None)
        coro = inner if inner is not None and hasattr(inner, "send") else None
    return frames


def _coroutine_stack(coro):
    return [{"file": f.f_code.co_filename, "line": f.f_lineno or f.f_code.co_firstlineno,
             "function": getattr(f.f_code, "co_qualname", f.f_code.co_name)} for f in coroutine_frames(coro)]


def _awaiting(asyncio, task):
    waiter = getattr(task, "_fut_waiter", None)
    if waiter is None:
        return None
    if isinstance(waiter, asyncio.Task):
        return as_text(f"task {waiter.get_name()}")
    try:
        return as_text(repr(waiter))
    except Exception:  # a future's repr runs its callbacks' reprs: program code
        return type(waiter).__name__


def _created_at(task):
    summary = getattr(task, "_source_traceback", None) or []
    return [{"file": f.filename, "line": f.lineno or 0, "function": f.name}
            for f in summary if not is_hidden(f.filename)][-STACK_LIMIT:]
