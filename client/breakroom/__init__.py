"""Breakroom debug client.

    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    compute(6, 7)        # pauses; open the REPL in the browser, then Continue

`BREAKROOM_URL` picks the server (default http://127.0.0.1:5174). `breakroom.set_trace()`
(or `PYTHONBREAKPOINT=breakroom.set_trace` and a plain `breakpoint()`) pauses in the caller's
own frame; `breakroom.post_mortem()` and `breakroom.install_excepthook()` pause in the frame
that raised.
"""

import functools
import inspect
import sys
import threading

from ._client import DebugClient, DebugProtocolError, make_target_for_call, raise_action
from ._repl import EvalTarget
from ._transport import ServerError, ServerUnavailable, warn_unavailable

__all__ = [
    "breakpoint",
    "configure",
    "DebugProtocolError",
    "install_excepthook",
    "post_mortem",
    "set_trace",
    "with_debug",
]

_client = None
_client_lock = threading.Lock()


def configure(url=None):
    """Points the client at a server (instead of BREAKROOM_URL) and forgets the old one."""
    global _client
    with _client_lock:
        _client = DebugClient(url)
    return _client


def _get_client():
    global _client
    with _client_lock:
        if _client is None:
            _client = DebugClient()
        return _client


def _signature_text(func):
    try:
        return str(inspect.signature(func))
    except (TypeError, ValueError):
        return ""


def _callable_name(func):
    name = getattr(func, "__name__", None)
    if isinstance(func, functools.partial):
        name = getattr(func.func, "__name__", None)
    return name or f"{type(func).__qualname__}.__call__"


def with_debug(func, name=None):
    """Wraps a callable so that each call can pause at the server. Registers a breakpoint on
    its name (or `name`), so by default every call pauses once, before it runs."""
    if not callable(func):
        raise TypeError(f"with_debug needs a callable, not {type(func).__name__}")
    name = name or _callable_name(func)
    client = _get_client()
    signature = _signature_text(func)
    if client.ensure_connected():
        try:
            client.register(name, func, signature)
        except (ServerUnavailable, ServerError) as exc:
            warn_unavailable(client.transport.url, exc)
            client.available = False

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args, **kwargs):
            import asyncio

            # The pause blocks a worker thread, so the program's other tasks keep running.
            prepared = await asyncio.to_thread(_before_call, client, name, func, args, kwargs, signature, 3)
            if prepared is None:
                return await func(*args, **kwargs)
            call_id, action, target, args, kwargs = prepared
            try:
                result = _perform(client, action, func, args, kwargs)
                if inspect.isawaitable(result):
                    result = await result
            except BaseException as exc:
                await asyncio.to_thread(_after_exception, client, call_id, target, exc)
                raise
            return await asyncio.to_thread(_after_success, client, call_id, target, result)

        async_wrapper.__breakroom_name__ = name
        return async_wrapper

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        prepared = _before_call(client, name, func, args, kwargs, signature, 2)
        if prepared is None:
            return func(*args, **kwargs)
        call_id, action, target, args, kwargs = prepared
        try:
            result = _perform(client, action, func, args, kwargs)
        except BaseException as exc:
            _after_exception(client, call_id, target, exc)
            raise
        return _after_success(client, call_id, target, result)

    wrapper.__breakroom_name__ = name
    return wrapper


def breakpoint(func=None, *, name=None):
    """Decorator form of with_debug: `@breakroom.breakpoint` or `@breakroom.breakpoint(name=...)`."""
    if func is None:
        return lambda f: with_debug(f, name)
    return with_debug(func, name)


def _before_call(client, name, func, args, kwargs, signature, depth):
    """Reports the call and waits while it is paused. None means: just run it."""
    if not client.available:
        return None
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
        bound.apply_defaults()
    except (TypeError, ValueError):
        bound = None
    try:
        reply = client.start_call(name, args, kwargs, signature, sys._getframe(depth))
        target = make_target_for_call(func, args, kwargs, bound)
        action = client.wait(reply, target)
    except ServerUnavailable as exc:
        warn_unavailable(client.transport.url, exc)
        client.available = False
        return None
    if bound is not None:
        # The REPL may have changed the arguments: the call runs with what they are now.
        changed = {k: target.locals().get(k, v) for k, v in bound.arguments.items()}
        bound.arguments.update(changed)
        args, kwargs = bound.args, bound.kwargs
    return reply["call_id"], action, target, args, kwargs


def _perform(client, action, func, args, kwargs):
    kind = action.get("action")
    if kind in (None, "continue"):
        return func(*args, **kwargs)
    if kind == "replace":
        replacement = client.functions.get(action.get("function_name"))
        if replacement is None:
            raise DebugProtocolError(f"Unknown replacement function: {action.get('function_name')!r}")
        return replacement(*args, **kwargs)
    if kind == "skip":
        if action.get("fake_result_data"):
            return client.decode({"data": action["fake_result_data"]})
        return action.get("fake_result")
    if kind == "modify":
        new_args = [client.decode(i) for i in action.get("modified_args") or []]
        new_kwargs = {k: client.decode(v) for k, v in (action.get("modified_kwargs") or {}).items()}
        return func(*(new_args or args), **(new_kwargs or kwargs))
    if kind == "raise":
        raise_action(action)
    raise DebugProtocolError(f"Unknown action: {kind}")


def _after_success(client, call_id, target, result):
    try:
        reply = client.complete_call(call_id, result=result)
        if reply.get("action") == "poll":
            target._locals["result"] = result
            final = client.wait(reply, target)
            if final.get("action") not in (None, "continue"):
                raise DebugProtocolError(f"Unsupported post-completion action: {final.get('action')}")
    except ServerUnavailable as exc:
        warn_unavailable(client.transport.url, exc)
    return result


def _after_exception(client, call_id, target, exc):
    try:
        reply = client.complete_call(call_id, exc=exc)
        if reply.get("action") == "poll":
            target._locals["exception"] = exc
            client.wait(reply, target)
    except (ServerUnavailable, ServerError):
        pass


def set_trace(*, frame=None):
    """Pauses here: the REPL runs in the caller's frame, with its real locals and globals."""
    frame = frame or sys._getframe(1)
    _pause_in_frame(frame, "always")


def post_mortem(tb=None):
    """Pauses in the frame that raised: the innermost frame of `tb`, or of the exception being
    handled (or the last uncaught one). The REPL sees that frame's locals plus `exception`."""
    exc = None
    if tb is None:
        exc = sys.exc_info()[1] or getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
        if exc is None:
            raise ValueError("post_mortem() needs a traceback, or an exception being handled")
        tb = exc.__traceback__
    if tb is None:
        raise ValueError("post_mortem() got an exception without a traceback")
    while tb.tb_next is not None:
        tb = tb.tb_next
    _pause_in_frame(tb.tb_frame, "exception", extra={"exception": exc} if exc is not None else None, exc=exc)


def install_excepthook():
    """Makes every uncaught exception (main thread and other threads) pause post-mortem in
    the frame that raised it, after the usual traceback is printed."""
    previous = sys.excepthook
    previous_thread_hook = threading.excepthook

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        if tb is not None and not issubclass(exc_type, KeyboardInterrupt):
            _post_mortem_quietly(exc, tb)

    def thread_hook(args):
        previous_thread_hook(args)
        if args.exc_traceback is not None and args.exc_value is not None:
            _post_mortem_quietly(args.exc_value, args.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def _post_mortem_quietly(exc, tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    try:
        _pause_in_frame(tb.tb_frame, "exception", extra={"exception": exc}, exc=exc)
    except Exception as err:  # the program is already dying: say why the pause failed, once
        print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)


def _pause_in_frame(frame, pause, extra=None, exc=None):
    client = _get_client()
    if not client.ensure_connected():
        return
    name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
    try:
        reply = client.start_call(name, [], {}, "", frame, pause=pause)
        target = EvalTarget(frame.f_globals, dict(extra or {}), frame=frame)
        action = client.wait(reply, target)
        if exc is not None:
            client.complete_call(reply["call_id"], exc=exc)
        else:
            client.complete_call(reply["call_id"], result=None)
    except ServerUnavailable as exc:
        warn_unavailable(client.transport.url, exc)
        client.available = False
        return
    if action.get("action") == "raise":
        raise_action(action)
