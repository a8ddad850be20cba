"""What the program does at a pause: a wrapped function's calls, and set_trace/post-mortem pauses.

A wrapped call is seen at three moments, as bdb sees a frame: before it runs, after it returns,
after it raises. One `WrappedCall` carries what those moments share (its breakpoint, the call id
the server gave it, its arguments, the frame that made it, what the REPL evaluates against), so
the sync and async wrappers in __init__ only decide which thread each moment runs on.
"""

import builtins
import functools
import inspect
import linecache
import sys

from .. import redaction
from ..lines import stepping
from ..process import current, switch_interval
from ..process.frames import is_hidden, visible, visible_stack
from ..protocol.constants import (
    ACTION_CONTINUE,
    ACTION_MODIFY,
    ACTION_POLL,
    ACTION_RAISE,
    ACTION_REPLACE,
    ACTION_SKIP,
    ACTION_STEP,
    PAUSE_ALWAYS,
    PAUSE_EXCEPTION,
    STEP_INTO,
    STEP_OUT,
    STEP_OVER,
    STEP_TO_LINE,
    STEPPED_EXCEPTION,
    STEPPED_LINE,
    STEPPED_RETURN,
    STOP_CALL,
    STOP_EXCEPTION,
    STOP_LINE,
    STOP_SET_TRACE,
    STOP_STEP,
)
from ..protocol.transport import ServerError, ServerUnavailable
from ..repl.evaluation import EvalTarget
from ..snapshots import take
from .client import DebugProtocolError

SOURCE_CONTEXT = 5
# A coroutine's or an async generator's code.
ASYNC_CODE = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def stack_frames(frame, limit=64):
    """The stack from `frame` outwards (innermost first), without this package's frames,
    each with the source lines around it."""
    outwards = []
    while frame is not None and len(outwards) < 4 * limit:
        outwards.append(frame)
        frame = frame.f_back
    return frame_entries(outwards, limit)


def frame_entries(frames, limit=64):
    """`frames` (innermost first) as the server's stack shows them, this package's left out:
    for a suspended coroutine, whose frame has no callers, the chain of what awaits it."""
    entries = []
    for frame in frames:
        if len(entries) >= limit:
            break
        filename = frame.f_code.co_filename
        if is_hidden(filename):
            continue
        lineno = frame.f_lineno or frame.f_code.co_firstlineno
        rule = redaction.frame_blocked(frame)
        if rule is not None:  # `--no-debug`: where it is, nothing of what it holds
            entries.append(
                {
                    "filename": filename,
                    "lineno": lineno,
                    "function": getattr(frame.f_code, "co_qualname", frame.f_code.co_name),
                    "code_context": None,
                    "locals": [],
                    "hidden": f"{redaction.HIDDEN} (--no-debug {rule!r})",
                }
            )
            continue
        start = max(1, lineno - SOURCE_CONTEXT)
        lines = [linecache.getline(filename, n).rstrip("\n") for n in range(start, lineno + SOURCE_CONTEXT + 1)]
        while lines and lines[-1] == "" and len(lines) > lineno - start + 1:
            lines.pop()
        entries.append(
            {
                "filename": filename,
                "lineno": lineno,
                "function": getattr(frame.f_code, "co_qualname", frame.f_code.co_name),
                "code_context": linecache.getline(filename, lineno).strip() or None,
                "source_start": start,
                "source_lines": lines,
                "locals": sorted(frame.f_locals)[:200],
            }
        )
    return entries


def raise_action(action):
    """Raises what a `raise` resume action names (a builtin exception type, else Exception)."""
    name = action.get("exception_type") or "Exception"
    exc_type = getattr(builtins, name, None)
    if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
        exc_type = Exception
    raise exc_type(action.get("exception_message") or "")


def _callable_name(func):
    name = getattr(func, "__name__", None)
    if isinstance(func, functools.partial):
        name = getattr(func.func, "__name__", None)
    return name or f"{type(func).__qualname__}.__call__"


class Breakpoint:
    """A wrapped function and the breakpoint it registers at the server under its name."""

    def __init__(self, client, func, name=None):
        self.client = client
        self.func = func
        self.name = name or _callable_name(func)
        try:
            self.signature = inspect.signature(func)
        except (TypeError, ValueError):
            self.signature = None
        self.signature_text = "" if self.signature is None else str(self.signature)

    def register(self):
        client = self.client
        client.remember(self.name, self.func, self.signature_text)  # registered when the server is back
        if client.ensure_connected():
            try:
                client.register(self.name, self.func, self.signature_text)
            except (ServerUnavailable, ServerError) as exc:
                client.go_offline(exc)

    def positional_names(self, count):
        """The parameter names of `count` positional arguments (None where unknown), so a
        secret passed by position is redacted by its name as one passed by keyword is."""
        names = []
        if self.signature is not None:
            for p in self.signature.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    names.append(p.name)
                elif p.kind == p.VAR_POSITIONAL:
                    names.extend([p.name] * max(0, count - len(names)))
                    break
        return (names + [None] * count)[:count]

    def bind(self, args, kwargs):
        """The arguments by parameter name, defaults applied; None when they do not bind."""
        if self.signature is None:
            return None
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return bound


class WrappedCall:
    """One call of a wrapped function, from the pause before it runs to the one after it ends."""

    def __init__(self, breakpoint, args, kwargs, caller):
        self.breakpoint = breakpoint
        self.client = breakpoint.client
        self.args = args
        self.kwargs = kwargs
        self.caller = caller  # the frame that made the call
        self.frames = None  # the stack at the call, as the server shows it
        self.call_id = None
        self.action = None  # the resume action: how the call runs
        self.target = None  # what the REPL evaluates against
        self.step = None  # a step asked for at a pause of this call: (order, the pause's action)
        self.armed = None  # the step armed when the call started (into, to_line)

    def read_stack(self):
        """Reads the stack the call came from (nothing when offline). A coroutine's callers are
        linked to its frame only while it runs, so the async wrapper calls this on the event
        loop before handing the pause to a worker thread."""
        if self.frames is None and self.client.available:
            self.frames = stack_frames(self.caller)

    def _eval_frames(self):
        """What `frame: N` evaluates in: the caller's frames (the call itself has none yet)."""
        return [EvalTarget(f.f_globals, frame=f) for f in visible_stack(self.caller)]

    def before(self):
        """Reports the call and waits while it is paused. False: the server is out of reach,
        run the call as it is."""
        if not self.client.ensure_connected():
            return False  # one clock read while the server is away
        code = getattr(self.breakpoint.func, "__code__", None)
        if code is not None and redaction.blocked(code.co_filename, getattr(self.breakpoint.func, "__module__", None)):
            return False  # `--no-debug`: registered by name, it never arms here
        self.read_stack()
        bp = self.breakpoint
        bound = bp.bind(self.args, self.kwargs)
        try:
            stop = {"kind": STOP_CALL, **_where(self.caller)}
            reply = self.client.start_call(
                bp.name, self.args, self.kwargs, bp.signature_text, self.frames, stop=stop,
                arg_names=bp.positional_names(len(self.args)),
            )
            self.call_id = reply["call_id"]
            self.target = self._repl_target(bound)
            if reply.get("snapshots"):  # function snapshots (issue 34): captured, never a pause
                self._snapshot(reply["snapshots"], bound)
            with switch_interval.Held():
                self.action = self.client.wait(reply, self.target, restart=self._restart, frames=self._eval_frames)
        except ServerUnavailable as exc:
            self.client.go_offline(exc)
            return False
        if self.action.get("action") == ACTION_STEP:
            self.step = self.action
        if bound is not None:
            # The REPL may have changed the arguments: the call runs with what they are now.
            now = self.target.locals()
            bound.arguments.update({k: now.get(k, v) for k, v in bound.arguments.items()})
            self.args, self.kwargs = bound.args, bound.kwargs
        return True

    def _snapshot(self, records, bound):
        arguments = dict(bound.arguments) if bound is not None else {"args": self.args, "kwargs": self.kwargs}
        take.take_call(records, self.breakpoint.func, arguments, self.caller)

    def _restart(self, wake, reconnected_from=None):
        """A line woken from a checkpoint, or a server that restarted while the call was paused,
        is told of this call again (with its arguments as they are now), and it pauses there."""
        bp = self.breakpoint
        now = self.target.locals()
        bound = bp.bind(self.args, self.kwargs)
        args, kwargs = self.args, self.kwargs
        if bound is not None:
            bound.arguments.update({k: now.get(k, v) for k, v in bound.arguments.items()})
            args, kwargs = bound.args, bound.kwargs
        stop = {"kind": STOP_CALL, **_where(self.caller)}
        if reconnected_from:
            stop["reconnected_from"] = reconnected_from
        reply = self.client.start_call(
            bp.name, args, kwargs, bp.signature_text, self.frames, wake=wake, stop=stop,
            arg_names=bp.positional_names(len(args)),
        )
        self.call_id = reply["call_id"]
        return reply

    def _repl_target(self, bound):
        """The arguments by parameter name, plus `args` and `kwargs`."""
        local_vars = dict(bound.arguments) if bound is not None else {}
        local_vars.setdefault("args", self.args)
        local_vars.setdefault("kwargs", self.kwargs)
        return EvalTarget(getattr(self.breakpoint.func, "__globals__", {}), local_vars)

    def run(self):
        """Runs the call as the resume action says (an async function's coroutine is returned
        unawaited). Runs in the thread that runs the call: a step into it is armed here."""
        action, client, func = self.action, self.client, self.breakpoint.func
        args, kwargs = self.args, self.kwargs
        kind = action.get("action")
        if kind == ACTION_STEP:
            order = _order(action)
            if order is not None and order.kind in (STEP_INTO, STEP_TO_LINE):
                self.armed = stepping.arm(order, None, _on_stop(client, order, action))
            return func(*args, **kwargs)
        if kind in (None, ACTION_CONTINUE):
            return func(*args, **kwargs)
        if kind == ACTION_REPLACE:
            replacement = client.functions.get(action.get("function_name"))
            if replacement is None:
                raise DebugProtocolError(f"Unknown replacement function: {action.get('function_name')!r}")
            return replacement(*args, **kwargs)
        if kind == ACTION_SKIP:
            if action.get("fake_result_data"):
                return client.decode({"data": action["fake_result_data"]})
            return action.get("fake_result")
        if kind == ACTION_MODIFY:
            new_args = [client.decode(i) for i in action.get("modified_args") or []]
            new_kwargs = {k: client.decode(v) for k, v in (action.get("modified_kwargs") or {}).items()}
            return func(*(new_args or args), **(new_kwargs or kwargs))
        if kind == ACTION_RAISE:
            raise_action(action)
        raise DebugProtocolError(f"Unknown action: {kind}")

    def after_return(self, result):
        """Reports the result, pausing again if the breakpoint's after-behaviour says so."""
        try:
            reply = self.client.complete_call(self.call_id, result=result)
            if reply.get("action") == ACTION_POLL:
                self.target.set_local("result", result)
                with switch_interval.Held():
                    final = self.client.wait(reply, self.target, frames=self._eval_frames)
                if final.get("action") == ACTION_STEP:
                    self.step = {**final, "after": True}
                elif final.get("action") not in (None, ACTION_CONTINUE):
                    raise DebugProtocolError(f"Unsupported post-completion action: {final.get('action')}")
        except ServerUnavailable as exc:
            self.client.go_offline(exc)
        return result

    def after_raise(self, exc):
        """Reports the exception, pausing again if the behaviours say so. Never raises: the
        caller re-raises the program's own exception."""
        try:
            reply = self.client.complete_call(self.call_id, exc=exc)
            if reply.get("action") == ACTION_POLL:
                self.target.set_local("exception", exc)
                with switch_interval.Held():
                    final = self.client.wait(reply, self.target, frames=self._eval_frames)
                if final.get("action") == ACTION_STEP:
                    self.step = {**final, "after": True}
        except ServerUnavailable as err:
            self.client.go_offline(err)
        except ServerError:
            pass

    def finish_step(self, result=None, raised=False):
        """Where a step asked for at this call's pauses goes once the call has ended (run in
        the caller's thread). Before the call, over and out stop in the caller just after it,
        with `__return__` (as does into when no Python function was called); after it, the
        caller steps on from the call's line. An exception goes on to where it propagates."""
        if self.step is None:
            return
        action, self.step = self.step, None
        order = _order(action)
        armed, self.armed = self.armed, None
        if order is None or (armed is not None and (armed.done or order.kind == STEP_TO_LINE)):
            return  # it stopped inside the call (and went on from there), or waits for its line
        if armed is not None:
            armed.disarm()
        caller = visible(self.caller)
        if caller is None:
            return
        on_stop = _on_stop(self.client, order, action)
        if raised or action.get("after"):
            kind = STEP_OUT if order.kind == STEP_OUT and action.get("after") else STEP_OVER
            stepping.arm(stepping.StepOrder(kind), caller, on_stop)
            return
        on_stop(caller, {"__return__": result}, STEPPED_RETURN)


def _order(action):
    try:
        return stepping.StepOrder.from_action(action)
    except ValueError as exc:
        print(f"breakroom: cannot step: {exc}", file=sys.stderr)
        return None


def _where(frame):
    frame = visible(frame)
    if frame is None:
        return {}
    return {"file": frame.f_code.co_filename, "line": frame.f_lineno, "function": _qualname(frame.f_code)}


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def _on_stop(client, order, action, suspend=None):
    """Where a step stops: a pause of kind `step` there, linked to the pause it came from.
    `suspend(frame, stop, namespaces)`: True when it stopped there with its task suspended
    instead (a coroutine Breakroom rewrote, issue 51)."""
    previous = action.get("from_pause_id")

    def on_stop(frame, extra, how):
        stop = {"kind": STOP_STEP, "step": order.kind, "how": how, "previous_pause_id": previous}
        if how == STEPPED_LINE and suspend is not None and suspend(frame, stop, action.get("namespaces")):
            return
        pause_in_frame(client, frame, PAUSE_ALWAYS, extra=extra, stop=stop, namespaces=action.get("namespaces"))

    return on_stop


def _exception_text(exc):
    """`KeyError: 'missing'`, bounded (an exception's str may be huge or raise)."""
    try:
        message = str(exc)
    except Exception:
        message = "<str() failed>"
    text = redaction.text(type(exc).__qualname__ + (f": {message}" if message else ""))
    return text if len(text) <= 500 else text[:499] + "…"


def pause_in_frame(client, frame, reason, extra=None, exc=None, stop=None, namespaces=None):
    """set_trace, line breakpoints, steps and post-mortem: pauses with the REPL in `frame`
    itself (its real locals, plus `extra`), then reports the pause's end at once. A `raise`
    action raises here; a `step` action arms the step and lets the program run on."""
    if not client.ensure_connected():
        return
    if reason != PAUSE_EXCEPTION and redaction.frame_blocked(frame) is not None:
        return  # `--no-debug` code does not stop (post-mortem still shows where, hidden)
    switch_interval.hold()
    step = None
    try:
        step = _pause_in_frame(client, frame, reason, extra, exc, stop, namespaces)
    finally:
        # A step goes on holding the GIL's turns short until it stops (it lets go then).
        if step is None or not step.take_hold():
            switch_interval.release()


def _pause_in_frame(client, frame, reason, extra, exc, stop, namespaces):
    """The pause itself; returns the step it armed, or None."""
    stop = {**(stop or {}), **blocking(frame, stop, reason)}
    action = wait_in_frame(client, frame, reason, extra, exc, stop, namespaces)
    return None if action is None else act_on(client, frame, reason, extra, stop, action)


def wait_in_frame(client, frame, reason, extra, exc, stop, namespaces, stack=None, outer=None, loop=None,
                  started=None):
    # `loop`: the loop of a task suspended alone; a blocking pause's loop is refused to `await`.
    """Tells the server of the pause in `frame` and waits for its resume action (None: the
    server went away). `stack` and `outer` (the server's stack, the frames `frame: N` reaches)
    are read here unless given: a suspended coroutine's are read on its loop's thread before
    the wait moves to a worker (issue 51), where `loop` is the loop a REPL `await` runs on.
    `started(pause_id)` is told the pause's id once the server has it."""
    name = _qualname(frame.f_code)
    stop = {"kind": STOP_EXCEPTION if reason == PAUSE_EXCEPTION else STOP_SET_TRACE, **(stop or {}), **_where(frame)}
    shown = exc if exc is not None else (extra or {}).get("exception")
    if isinstance(shown, BaseException):
        stop["exception"] = _exception_text(shown)
    if stack is None:
        stack = stack_frames(frame)
    if outer is None:
        outer = visible_stack(frame)[1:] if visible(frame) is frame else []
    try:
        reply = client.start_call(name, [], {}, "", stack, pause=reason, stop=stop)
        target = EvalTarget(frame.f_globals, frame=frame, added=extra, loop=loop)
        if stop.get("blocking"):
            target.loop_blocked = (
                f"this pause stops the event loop's thread ({stop.get('blocking_reason')}), so nothing can be "
                "awaited on it; pause in a coroutine instead (a line breakpoint set before the request began, "
                "or `await breakroom.set_trace_async()`)"
            )
        call = {"id": reply["call_id"]}
        if started is not None:
            started((reply.get("poll_url") or "").rstrip("/").rsplit("/", 1)[-1] or None)

        def restart(wake, reconnected_from=None):
            # A line woken from a checkpoint, or a server that restarted meanwhile: pauses here
            # again, in the same frame.
            told = {**stop, "reconnected_from": reconnected_from} if reconnected_from else stop
            again = client.start_call(name, [], {}, "", stack, pause=reason, wake=wake, stop=told)
            call["id"] = again["call_id"]
            return again

        def frames():
            return [target] + [EvalTarget(f.f_globals, frame=f) for f in outer]

        action = client.wait(reply, target, restart=restart, frames=frames, namespaces=namespaces)
        client.complete_call(call["id"], exc=exc)
    except ServerUnavailable as err:
        client.go_offline(err)
        return None
    return action


def act_on(client, frame, reason, extra, stop, action, suspend=None):
    """What a resume action does in the paused frame's own thread: a `raise` raises, a `step`
    is armed (returned). `suspend`: see `_on_stop`."""
    kind = action.get("action")
    if kind == ACTION_RAISE:
        raise_action(action)
    if kind == ACTION_STEP and reason != PAUSE_EXCEPTION:
        order = _order(action)
        if order is not None:
            shown = (extra or {}).get("exception") if (stop or {}).get("how") == STEPPED_EXCEPTION else None
            return stepping.arm(order, frame, _on_stop(client, order, action, suspend), shown)
    return None


def blocking(frame, stop, reason=None):
    """`blocking` and its reason for a pause that stops this thread while it runs an asyncio
    event loop (issue 51): every task of the loop waits. {} when no loop runs here."""
    asyncio = sys.modules.get("asyncio")  # not imported: no loop can be running
    if asyncio is None or asyncio._get_running_loop() is None:
        return {}
    kind = (stop or {}).get("kind") or (STOP_EXCEPTION if reason == PAUSE_EXCEPTION else STOP_SET_TRACE)
    if frame.f_code.co_flags & ASYNC_CODE:
        if kind == STOP_LINE:
            why = "this coroutine started before the breakpoint was set; it cannot be made to yield"
        elif kind == STOP_STEP:
            why = "a step stops the event loop's thread"
        elif kind == STOP_SET_TRACE:
            why = "set_trace() stops the event loop's thread; `await breakroom.set_trace_async()` does not"
        else:
            why = "this stop cannot suspend its task alone"
    else:
        why = "a synchronous frame called from a coroutine: the event loop's thread is stopped"
    return {"blocking": True, "blocking_reason": why}


def pause_at_breakpoint(frame, extra, stop):
    """How the line engine pauses the program at a line breakpoint: in `frame` itself, for the
    process's client (the engine is below this layer, so it is handed this function)."""
    pause_in_frame(current.client(), frame, PAUSE_ALWAYS, extra=extra, stop=stop)
