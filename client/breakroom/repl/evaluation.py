"""Evaluating REPL input inside a paused program.

An `EvalTarget` is what the REPL runs against: a frame's globals and locals (a real frame for
set_trace and post-mortem, the call's bound arguments for a wrapped function). Each REPL session
has its own namespace layered over the frame's locals; assignments to names the frame already
has go to the program itself.
"""

import ast
import builtins
import code
import ctypes
import io
import sys
import threading
import time
import traceback

from .. import redaction
from ..process.kept_threads import KeptThreads
from ..protocol.constants import ERROR_LOOP_BLOCKED
from ..protocol.serialize import try_serialize
from . import rich
from .bounded import bounded_repr, is_huge

REPL_FILENAME = "<repl>"
# Input may `await` at top level (issue 51): `await db.fetch(1)`, `[x async for x in s]`.
_COMPILE_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_CO_COROUTINE = 0x0080  # inspect.CO_COROUTINE: code compiled from input that awaits
_PLAIN = (int, float, bool, type(None))  # reprs that cannot show a string
TIMEOUT_ERROR = "TimeoutError: evaluation timed out"


class EvalTarget:
    """Globals and locals of the paused code, with a way to write a local back.

    `added` holds the names the debugger itself defines at a stop (`exception`, `__return__`,
    `breakpoint_hit`, `condition_error`; the book's python.md lists them). Evaluation serves
    them as builtins of the eval only: every name of the program (local, global) and of the
    session wins over them, and nothing that lists names (the variables panel, completion, an
    editor's scopes, `dir()` or `globals()` in the REPL, snapshots) finds them."""

    def __init__(self, globals_, locals_=None, frame=None, added=None, loop=None):
        self.globals = globals_
        self._locals = dict(locals_ or {})
        self.frame = frame
        self.added = dict(added or {})
        # The asyncio loop a top-level `await` runs on: the loop of a task suspended alone
        # (issue 51). None elsewhere.
        self.loop = loop
        # Why an `await` cannot run: the paused thread runs the loop itself (None: it can).
        self.loop_blocked = None

    def locals(self):
        """The program's own names: the frame's locals, or a wrapped call's arguments."""
        if self.frame is not None:
            return dict(self.frame.f_locals)
        return dict(self._locals)

    def set_local(self, name, value):
        if self.frame is None:
            self._locals[name] = value
            return
        f_locals = self.frame.f_locals
        f_locals[name] = value
        if sys.version_info < (3, 13):
            # Before PEP 667 f_locals is a snapshot: copy it back into the fast locals.
            ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(self.frame), ctypes.c_int(0))


class Outcome:
    def __init__(self, result="", stdout="", error=None, value=None, has_value=False, outputs=None, secret=False,
                 known=(), refused=None):
        self.refused = refused  # a code the server answers the eval with instead (ERROR_LOOP_BLOCKED)
        self.result = result
        self.stdout = stdout
        self.error = error
        self.value = value
        self.has_value = has_value
        self.outputs = outputs or []
        self.secret = secret  # the expression names a secret (`user.password`): nothing of it leaves
        self.known = known  # strings held under secret names where it ran, hidden wherever they show

    def wire(self):
        """The fields of a repl-result post, secrets replaced (issue 50): value rules always; a
        value shown by a secret's name is not shown, pickled or stored at all."""
        cid = data = None
        rules = redaction.rules()
        known = self.known
        result, hidden = (redaction.REDACTED, 1) if self.secret else rules.text(self.result, known)
        # A huge value is not pickled: its answer stays quick; the REPL still holds it live.
        if not hidden and self.error is None and self.has_value and self.value is not None and not is_huge(self.value):
            value, hidden = redaction.scrub(self.value)
            cid, data = try_serialize(value)
        fields = {
            "result": result,
            "stdout": rules.text(self.stdout, known)[0],
            "error": rules.text(self.error, known)[0],
            "result_cid": cid,
            "result_data": data,
        }
        if self.outputs:
            fields["outputs"] = self.outputs
        if self.refused is not None:
            fields["refused"] = self.refused
        return fields


class _OutputRouter:
    """Stands in for sys.stdout/sys.stderr while evals run: output of a thread that is
    evaluating goes to that eval's buffer, every other thread's to the real stream."""

    def __init__(self, real, buffers):
        self._real = real
        self._buffers = buffers

    def write(self, text):
        buf = self._buffers.get(threading.get_ident())
        return (buf if buf is not None else self._real).write(text)

    def flush(self):
        if threading.get_ident() not in self._buffers:
            self._real.flush()

    def __getattr__(self, name):
        return getattr(self._real, name)


class _Capture:
    """Reference-counted replacement of sys.stdout and sys.stderr."""

    lock = threading.Lock()
    buffers = {}
    active = 0
    saved = None

    @classmethod
    def start(cls):
        buf = io.StringIO()
        with cls.lock:
            if cls.active == 0:
                cls.saved = (sys.stdout, sys.stderr)
                sys.stdout = _OutputRouter(cls.saved[0], cls.buffers)
                sys.stderr = _OutputRouter(cls.saved[1], cls.buffers)
            cls.active += 1
            cls.buffers[threading.get_ident()] = buf
        return buf

    @classmethod
    def stop(cls):
        with cls.lock:
            cls.buffers.pop(threading.get_ident(), None)
            cls.active -= 1
            if cls.active == 0 and cls.saved is not None:
                sys.stdout, sys.stderr = cls.saved
                cls.saved = None


def _error_text(exc):
    """The exception line, preceded by the traceback of the user's code when there is any."""
    if isinstance(exc, SyntaxError):
        return "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    tb = exc.__traceback__
    # Drop this module's frames: the user's code starts at the first <repl> frame.
    while tb is not None and tb.tb_frame.f_code.co_filename != REPL_FILENAME:
        tb = tb.tb_next
    frames = traceback.extract_tb(tb)
    last = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    if len(frames) <= 1:
        return last
    return "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + last


def _eval_builtins(program_builtins, added):
    """The program's builtins (a module or a dict) with `display` and the debugger's names at
    this stop (`added`) under them, as a new dict: the program's own builtins win."""
    names = program_builtins if isinstance(program_builtins, dict) else vars(program_builtins)
    extra = {**added, "display": rich.display}
    if all(name in names for name in extra):
        return program_builtins
    return {**extra, **names}


def _compile(source):
    """(statements, expression): input ending in an expression shows that expression's value,
    as the interactive prompt does (`import os; os.getpid()` shows the pid)."""
    tree = ast.parse(source, REPL_FILENAME, "exec")
    expression = None
    secret = False
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        node = tree.body.pop().value
        secret = redaction.expression_is_secret(node)
        expression = compile(ast.Expression(node), REPL_FILENAME, "eval", flags=_COMPILE_FLAGS)
    statements = compile(tree, REPL_FILENAME, "exec", flags=_COMPILE_FLAGS) if tree.body else None
    return statements, expression, secret


class LoopBlocked(Exception):
    """Input awaits, and the loop it would run on is stopped by this very pause."""


def _run(compiled, env, target):
    """Runs compiled input; input that awaits runs as a task on the paused task's loop (it is
    free: only that task is suspended), or on a loop of its own when the paused thread has none."""
    if not compiled.co_flags & _CO_COROUTINE:
        return eval(compiled, env)
    coroutine = eval(compiled, env)
    if target.loop_blocked is not None:
        coroutine.close()
        raise LoopBlocked(target.loop_blocked)
    if target.loop is not None:
        asyncio = sys.modules["asyncio"]  # the paused task's loop runs: asyncio is imported
        return asyncio.run_coroutine_threadsafe(coroutine, target.loop).result()
    import asyncio  # lazy: heavy, and only input that awaits in a program without a loop needs it

    return asyncio.run(coroutine)


def evaluate(source, target, namespace, tables=None):
    """Runs one REPL input. Never raises for anything the input does. `tables` (the pause's)
    keeps the live objects behind the tables the answer shows, for their later pages."""
    try:
        statements, expression, secret = _compile(source)
    except (SyntaxError, ValueError, OverflowError) as exc:
        # Only input that does not parse can be incomplete; compile_command (which compiles
        # up to three times) tells which, and its error is the one the interactive prompt shows.
        try:
            if code.compile_command(source, REPL_FILENAME, "exec") is None:
                return Outcome(error="SyntaxError: incomplete input")
        except (SyntaxError, ValueError, OverflowError) as first:
            exc = first
        return Outcome(error=_error_text(exc))
    is_expression = expression is not None

    frame_locals = target.locals()
    # One dict for globals and locals, so functions defined in the REPL see session names.
    env = dict(target.globals)
    env.update(frame_locals)
    env.update(namespace)
    # `display` (IPython's) and the debugger's names at this stop (`breakpoint_hit`...) are
    # builtins of the eval only: neither the program's names, nor the session's, nor the
    # variables panel, nor `dir()` gain them, and a program's name of the same spelling wins.
    env["__builtins__"] = _eval_builtins(env.get("__builtins__", builtins), target.added)
    before = dict(env)
    buf = _Capture.start()
    rich.start_collecting()
    try:
        try:
            if statements is not None:
                _run(statements, env, target)
            value = _run(expression, env, target) if is_expression else None
        finally:
            _Capture.stop()
            displayed = rich.stop_collecting()
    except LoopBlocked as exc:
        return Outcome(error=f"{ERROR_LOOP_BLOCKED}: {exc}", refused=ERROR_LOOP_BLOCKED)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from user code too
        return Outcome(stdout=buf.getvalue(), error=_error_text(exc), outputs=rich.redacted(rich.bound_answer(displayed)))

    for name, new in env.items():
        if name == "__builtins__" or (name in before and before[name] is new):
            continue
        if name in frame_locals and name not in namespace:
            target.set_local(name, new)
        else:
            namespace[name] = new
    for name in before:
        if name not in env:
            namespace.pop(name, None)

    stdout = buf.getvalue()
    if not is_expression or (value is None and stdout):
        # Like the interactive prompt, `print(...)` shows its output and not its None; a
        # silent None (`d.get(k)`) still shows "None" so the user sees an answer.
        return Outcome(stdout=stdout, outputs=rich.redacted(rich.bound_answer(displayed)))
    known = redaction.known_secrets(frame_locals, namespace) if type(value) not in _PLAIN else ()
    text = bounded_repr(rich.masked(value))
    # A value shown by a secret's name has no outputs at all (and no table kept for pages).
    outputs = displayed + ([] if secret else rich.outputs_for(value, plain=text, tables=tables))
    outputs = rich.redacted(rich.bound_answer(outputs), known)
    return Outcome(result=text, stdout=stdout, value=value, has_value=True, outputs=outputs, secret=secret,
                   known=known)


# Eval threads kept for the next eval; a thread stuck in a runaway eval is not idle.
_THREADS = KeptThreads("breakroom-eval", max_idle=2)


def forget_eval_threads():
    """In a forked child: the kept eval threads were not copied, their queues serve no one."""
    global _THREADS
    _THREADS = KeptThreads("breakroom-eval", max_idle=2)


class EvalJob:
    """One eval in a daemon thread (its own while it runs), so a runaway eval cannot block the
    paused program's waiting loop. Its outcome is reported exactly once, by whoever claims it first: the waiting
    loop (fast evals, on its own connection), the eval thread when it ends, or the timeout, which
    answers `TimeoutError` and leaves the abandoned thread's late outcome unreported."""

    def __init__(self, source, target, namespace, timeout, report, tables=None):
        self._source = source
        self._target = target
        self._namespace = namespace
        self._tables = tables
        self._timeout = timeout
        self._report = report
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._outcome = None
        self._watched = True  # the waiting loop will pick the outcome up itself
        self._claimed = False
        self._started = None

    def start(self):
        self._started = time.monotonic()
        _THREADS.submit(self._run)

    def _run(self):
        outcome = evaluate(self._source, self._target, self._namespace, self._tables)
        with self._lock:
            self._outcome = outcome
            self._finished.set()
            watched = self._watched
        if not watched:
            self._report_once(outcome)

    def _claim(self):
        with self._lock:
            if self._claimed:
                return False
            self._claimed = True
            return True

    def _report_once(self, outcome):
        if self._claim():
            self._report(outcome)

    def wait_briefly(self, seconds):
        """The outcome if the eval ends within `seconds` (the caller reports it), else None:
        the thread or the timeout will report it."""
        self._finished.wait(seconds)
        with self._lock:
            self._watched = False
            outcome = self._outcome
        if outcome is not None:
            return outcome if self._claim() else None
        remaining = max(0.0, self._timeout - (time.monotonic() - self._started))
        timer = threading.Timer(remaining, self._report_once, args=(Outcome(error=TIMEOUT_ERROR),))
        timer.daemon = True
        timer.start()
        return None

    @property
    def reported(self):
        return self._claimed
