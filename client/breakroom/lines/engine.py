"""The client's line breakpoints: armed into a running program, and in files it imports later.

    engine = breakroom.line_breakpoints()
    report = engine.add({"kind": "line", "file": "app.py", "line": 42, "condition": "n > 3"})
    engine.update(report["id"], {"enabled": False})
    engine.remove(report["id"])

This is the interface the server's breakpoint channel calls: `add` / `update` / `remove` /
`clear` / `list` take and give the REST JSON of `POST /api/breakpoints`, and `listeners` get
every `breakpoint_hit` and `log` event (as the server's event log names them).

How a breakpoint reaches the program (Python 3.11): the file's functions whose code holds an
armed line get recompiled code with a hook call there (lines.rewrite), swapped into every
function object of that code (found with gc); frames already running the old code are traced,
and only they (running_frames); files not imported yet get the hooks when they are imported
(an import hook). Python ≥ 3.12 uses sys.monitoring for loaded code instead (lines.monitoring).
Functions of other lines and files keep their code: a program pays for a breakpoint only where
it is.
"""

import builtins
import collections
import dis
import gc
import importlib.machinery
import importlib.util
import inspect
import linecache
import os
import sys
import threading
import time
import types
import weakref

from ..breakpoints.kinds import CONDITION_ERROR, LOG, SKIP, BreakpointError, BreakpointSpec, arguments_text
from ..protocol.constants import BREAKPOINT_LINE, EVENT_BREAKPOINT_HIT, EVENT_LOG, STOP_LINE
from ..snapshots import gates, offthread, take
from . import monitoring
from .rewrite import (
    ASYNC_HOOK_NAME,
    HIT_NAME,
    HOOK_NAME,
    HOOK_NAMES,
    STEP_HOOK_NAME,
    STEPS_NAME,
    ModuleSource,
    NoCodeThere,
    code_key,
    codes_by_key,
    hooked_keys,
    lines_with_code,
)
from .running_frames import SUSPENDING, RunningFrameTracer


def canonic(filename, _cache={}):
    """One name per file: absolute, symlinks resolved (`<string>`-like names as they are)."""
    found = _cache.get(filename)
    if found is None:
        if filename.startswith("<") and filename.endswith(">"):
            found = filename
        else:
            found = os.path.realpath(os.path.abspath(filename))
        _cache[filename] = found
    return found


def _hook_lines(code):
    """The lines whose hook call a (rewritten) code object holds."""
    lines, previous = set(), None
    for ins in dis.get_instructions(code):
        if previous is not None and previous.argval in HOOK_NAMES and ins.opname == "LOAD_CONST":
            lines.add(ins.argval)
        previous = ins
    return lines


# A coroutine's or an async generator's code: its hooks are awaited (issue 51).
_ASYNC_CODE = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class _NoPause:
    """What an awaited hook gives when the line does not pause: awaiting it does nothing."""

    __slots__ = ()

    def __await__(self):
        return iter(())


_NO_PAUSE = _NoPause()

# Steps over armed in rewritten coroutines (issue 51): id(frame) -> (frame, on_line), where
# `on_line(frame, line)` gives what the coroutine awaits at its next line. Read by the step
# hooks compiled into those coroutines, as the builtin __breakroom_steps__ (empty: no cost).
coroutine_steps = {}


def has_step_hooks(code):
    """Whether `code` was rewritten with a step hook before each statement."""
    return STEP_HOOK_NAME in code.co_names

_SUSPENDING_TYPES = {
    types.GeneratorType: ("gi_code", "gi_frame"),
    types.CoroutineType: ("cr_code", "cr_frame"),
    types.AsyncGeneratorType: ("ag_code", "ag_frame"),
}


def _waiting_frame(obj, kind, path):
    """The frame of a generator or coroutine of the file `path`, unless it has finished."""
    code_name, frame_name = _SUSPENDING_TYPES[kind]
    # The code first: reading a frame makes its object, wanted only for this file's.
    if canonic(getattr(obj, code_name).co_filename) != path:
        return None
    return getattr(obj, frame_name)  # None: finished


class _File:
    """One file's armed breakpoints and what was done to its code."""

    def __init__(self, path):
        self.path = path  # canonic
        self.compile_name = path  # the filename its live code was compiled with
        self.source = None  # ModuleSource, read when first armed
        self.by_line = {}  # landed line -> [BreakpointSpec]
        self.has_suspending = None  # generators or coroutines in it: `suspends()`

    def suspends(self):
        """Whether the file has generators or coroutines (whose frames can wait to go on)."""
        if self.has_suspending is None:
            stack, self.has_suspending = [self.module_source().original_code], False
            while stack and not self.has_suspending:
                code = stack.pop()
                self.has_suspending = bool(code.co_flags & SUSPENDING)
                stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        return self.has_suspending

    def module_source(self):
        if self.source is None:
            linecache.checkcache(self.compile_name)
            text = "".join(linecache.getlines(self.compile_name))
            if not text:
                raise BreakpointError(f"{self.compile_name}: no source to set a breakpoint in")
            self.source = ModuleSource(text, self.compile_name)
        return self.source


class LineBreakpoints:
    """Line breakpoints by id; `hit(frame, line)` decides and pauses or logs."""

    def __init__(self, pause, stream=None, suspend=None):
        self._pause_program = pause  # (frame, extra, stop): pauses there (`pause.call.pause_at_breakpoint`)
        # (frame, extra, stop) -> an awaitable that pauses only the frame's asyncio task, or
        # None when it cannot (no running loop, not a task): `pause.tasks.suspend_task`.
        self._suspend_task = suspend
        self._stream = stream  # where logpoints and condition errors are printed (stderr)
        self._lock = threading.RLock()
        self._specs = {}  # id -> BreakpointSpec
        self._landed = {}  # id -> (file, line)
        self._files = {}  # canonic path -> _File
        self._originals = weakref.WeakKeyDictionary()  # function -> the code it had
        self._generated = weakref.WeakKeyDictionary()  # rewritten code -> lines hooked in it
        self._code_lines = weakref.WeakKeyDictionary()  # code -> the lines it runs itself
        self._in_hit = set()  # threads deciding or paused at a breakpoint
        self._one_shots = {}  # id -> (thread, on_reach): a step's run to a line
        self._one_shot_seq = 0
        self.records = collections.deque(maxlen=1000)  # breakpoint_hit and log events
        self.listeners = []  # callables (event, body): the server wiring
        self._gates = gates.shared()  # before any hooked code runs: it reads them
        self._tracer = RunningFrameTracer(self._on_traced_line)
        self._monitor = monitoring.MonitoredLines(self._on_monitored_line) if monitoring.available else None
        setattr(builtins, HOOK_NAME, self._hook)
        setattr(builtins, ASYNC_HOOK_NAME, self._hook_async)
        setattr(builtins, STEP_HOOK_NAME, self._step_async)
        setattr(builtins, STEPS_NAME, coroutine_steps)
        self._stepped_to = {}  # id(frame) -> the line a step stopped it at (its breakpoint skips once)
        setattr(builtins, HIT_NAME, ConditionHeld)
        self._finder = _HookingFinder(self)
        sys.meta_path.insert(0, self._finder)

    # ---- the interface: REST JSON in and out ------------------------------------------------

    def add(self, body):
        """Arms a line breakpoint (a BreakpointSpec or its REST JSON). Returns its report:
        the spec's JSON plus `requested_line`, the `line` it landed on, `moved`, and how it
        reached the program (`functions` swapped, `running_frames` traced, `pending` when the
        file is not loaded yet). Raises BreakpointError when it cannot be set."""
        spec = body if isinstance(body, BreakpointSpec) else BreakpointSpec.from_dict(body)
        if spec.kind != BREAKPOINT_LINE:
            raise BreakpointError(f"{spec.kind} breakpoints are not line breakpoints")
        with self._lock:
            if spec.id in self._specs:
                raise BreakpointError(f"breakpoint {spec.id} exists already")
            path = canonic(spec.file)
            file = self._files.get(path) or _File(path)
            live = self._live_functions(path)
            if live:
                file.compile_name = live[0].__code__.co_filename
            elif file.source is None and not os.path.exists(path):
                raise BreakpointError(f"{spec.file}: no such file")
            try:
                landed = file.module_source().resolve(spec.line)
            except (NoCodeThere, SyntaxError) as exc:
                raise BreakpointError(str(exc)) from None
            self._files[path] = file
            self._specs[spec.id] = spec
            self._landed[spec.id] = (path, landed)
            file.by_line.setdefault(landed, []).append(spec)
            self._open_gates(path, landed)
            try:
                reach = self._apply(file, live)
            except Exception as exc:  # leave the program as it was, and say why
                self.remove(spec.id)
                raise BreakpointError(f"{spec.file}:{spec.line}: {type(exc).__name__}: {exc}") from exc
        return self._report(spec, reach)

    def update(self, breakpoint_id, changes):
        """A PATCH: condition, hit condition, pattern, log message, enabled."""
        with self._lock:
            spec = self._spec(breakpoint_id)
            condition = spec.condition
            spec.update(changes)
            policy = getattr(spec, "_snapshot_policy", None)
            if policy is not None:
                policy.closed = None  # its bounds may have changed: decided afresh
            self._open_gates(*self._landed[spec.id])
            if spec.condition != condition:  # compiled into the code: compile it again
                path = self._landed[spec.id][0]
                self._apply(self._files[path], self._live_functions(path))
            return self._report(spec)

    def armed(self, breakpoint_id):
        """Whether a breakpoint of this id is armed here."""
        with self._lock:
            return str(breakpoint_id) in self._specs

    def remove(self, breakpoint_id):
        """Disarms one: its functions get their code back when no other breakpoint needs it."""
        with self._lock:
            spec = self._spec(breakpoint_id)
            path, line = self._landed.pop(spec.id)
            del self._specs[spec.id]
            file = self._files[path]
            file.by_line[line].remove(spec)
            if not file.by_line[line]:
                del file.by_line[line]
            self._open_gates(path, line)
            self._apply(file, self._live_functions(path))
            if not file.by_line:
                del self._files[path]

    def clear(self):
        for breakpoint_id in list(self._specs):
            self.remove(breakpoint_id)

    def list(self):
        with self._lock:
            return [self._report(spec) for spec in self._specs.values()]

    def run_to(self, file, line, thread, on_reach):
        """A step's `to_line`: a one-shot breakpoint at `file:line` for `thread` only, which
        calls `on_reach(frame)` there instead of pausing as a breakpoint. Returns it (`done`
        once reached, `disarm()` to drop it)."""
        with self._lock:
            self._one_shot_seq += 1
            shot = _OneShot(self, f"run-to-{self._one_shot_seq}", thread, on_reach)
            self._one_shots[shot.id] = shot
        try:
            self.add({"kind": BREAKPOINT_LINE, "file": file, "line": line, "id": shot.id})
        except BreakpointError:
            self._one_shots.pop(shot.id, None)
            raise
        return shot

    def get(self, breakpoint_id):
        return self._spec(breakpoint_id)

    def _spec(self, breakpoint_id):
        spec = self._specs.get(str(breakpoint_id))
        if spec is None:
            raise KeyError(f"no line breakpoint {breakpoint_id}")
        return spec

    def _report(self, spec, reach=None):
        body = spec.to_dict()
        path, landed = self._landed[spec.id]
        body.update(requested_line=spec.line, line=landed, moved=landed != spec.line)
        if reach is not None:
            body.update(reach)
        return body

    # ---- arming: code, running frames, files to come ----------------------------------------

    def _live_functions(self, path):
        """The file's function objects."""
        found = []
        for obj in gc.get_objects():  # one list, made at once: each one alive then is in it
            if type(obj) is types.FunctionType and canonic(obj.__code__.co_filename) == path:
                found.append(obj)
        return found

    def _apply(self, file, functions):
        """Makes the file's live code match its armed lines."""
        lines = set(file.by_line)
        if self._monitor is not None:
            return self._apply_monitoring(file, functions, lines)
        source = file.module_source()
        original_by_key = codes_by_key(source.original_code)
        if lines:
            rewritten = source.compile_with_hooks(lines, self._inline_conditions(file))
            hooked, new_by_key = hooked_keys(rewritten), codes_by_key(rewritten)
            for key in hooked:
                self._generated[new_by_key[key]] = _hook_lines(new_by_key[key])
        else:
            hooked, new_by_key = set(), {}
        swapped = stale = 0
        for func in functions:
            code = func.__code__
            key = code_key(code)
            original = self._originals.get(func)
            if original is None:
                if code in self._generated:  # a closure made by rewritten code
                    original = original_by_key.get(key, code)
                elif key not in original_by_key or original_by_key[key].co_code != code.co_code:
                    stale += key in hooked  # the file changed since it was loaded: leave it
                    continue
                else:
                    original = code
            wanted = new_by_key[key] if key in hooked else original
            if code is not wanted:
                try:
                    func.__code__ = wanted
                except ValueError:  # its closure does not fit the new code: leave it
                    stale += 1
                    continue
            if wanted is original:
                self._originals.pop(func, None)
            else:
                self._originals[func] = original
                swapped += 1
        running = self._trace_running(file)
        return {"functions": swapped, "running_frames": running, "stale_functions": stale, "pending": not (functions or running)}

    @staticmethod
    def _inline_conditions(file):
        """{line: conditions} for the lines where every breakpoint has a condition: those are
        compiled into the function, and a false one costs no call. Not a log or snapshot
        breakpoint's: those run under the read-only guard, on the snapshot worker."""
        return {
            line: [spec.condition for spec in specs]
            for line, specs in file.by_line.items()
            if specs and all(spec.condition and not spec.read_only for spec in specs)
        }

    def _trace_running(self, file):
        """Traces the frames of this file that run code without a hook for one of its armed
        lines: module-level code (a script's `while True:`), a loop that began before the
        breakpoint, code that could not be swapped, a generator or coroutine that began before
        it and waits to go on (an `async def` worker's loop). Stops tracing those that no
        longer need it."""
        needed = [frame for frame in self._frames_of(file.path) if self._unhooked_lines(frame.f_code, file)]
        waiting = [frame for frame in self._suspended_frames(file) if self._unhooked_lines(frame.f_code, file)]
        for frame in self._tracer.traced_frames:
            if frame not in needed and frame not in waiting and canonic(frame.f_code.co_filename) == file.path:
                self._tracer.untrace([frame])
        return self._tracer.trace(needed, file.by_line, waiting)

    def _unhooked_lines(self, code, file):
        """The file's armed lines that `code` itself runs and holds no hook for."""
        lines = self._code_lines.get(code)
        if lines is None:
            lines = self._code_lines[code] = lines_with_code(code, nested=False)
        return (lines & file.by_line.keys()) - self._generated.get(code, set())

    def _suspended_frames(self, file):
        """The frames of this file's generators, coroutines and async generators that have not
        finished: swapping code does not reach them. Looked for after the swap: a walk made
        before it misses those made in between (the program runs on while the code compiles),
        which run the old code and would never be reached. Running ones too: such a frame goes
        from running to waiting and back while this looks (an event loop's thread runs on),
        so `_frames_of` and this could each miss it; the tracer takes it as waiting either way."""
        if not file.by_line or not self._tracer.available or not file.suspends():
            return []
        found = []
        for obj in gc.get_objects():
            kind = type(obj)
            if kind in _SUSPENDING_TYPES:
                frame = _waiting_frame(obj, kind, file.path)
                if frame is not None:
                    found.append(frame)
        return found

    def _frames_of(self, path):
        found = []
        for top in sys._current_frames().values():
            frame = top
            while frame is not None:
                if canonic(frame.f_code.co_filename) == path:
                    found.append(frame)
                frame = frame.f_back
        return found

    def _apply_monitoring(self, file, functions, lines):
        """Python ≥ 3.12: LINE events on the code objects holding an armed line (every file's,
        since the monitor takes the whole set); running frames get them too."""
        self._swap_coroutines(file, functions, lines)
        armed, holders = {}, set()
        for path, f in self._files.items():
            wanted = set(f.by_line)
            for func in functions if path == file.path else self._live_functions(path):
                stack = [func.__code__]
                original = self._originals.get(func)
                if original is not None:  # coroutines started before it was swapped run this
                    stack.append(original)
                while stack:
                    code = stack.pop()
                    stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
                    here = (lines_with_code(code, nested=False) & wanted) - self._generated.get(code, set())
                    if here:
                        armed[code] = here
                        if path == file.path and func.__code__.co_name != "<module>":
                            holders.add(func)  # (3.12 runs a module's code as a function too)
            # Frames running code no live function holds (a module's, an `exec`'s): reached too.
            for frame in self._frames_of(path):
                here = self._unhooked_lines(frame.f_code, f)
                if here:
                    armed.setdefault(frame.f_code, set()).update(here)
        self._monitor.set(armed)
        running = [frame for frame in self._frames_of(file.path) if frame.f_code in armed]
        return {"functions": len(holders), "running_frames": len(running), "stale_functions": 0, "pending": not functions}

    def _swap_coroutines(self, file, functions, lines):
        """3.12+: a coroutine function holding an armed line gets code whose hook is awaited, so
        the pause suspends its task only (issue 51); a LINE event cannot make a coroutine
        yield. Coroutines already running keep the old code, which stays monitored: they pause
        as before, blocking their loop. Other functions are left to sys.monitoring."""
        if self._suspend_task is None:
            return
        source = file.module_source()
        original_by_key = codes_by_key(source.original_code)
        hooked, new_by_key = set(), {}
        if lines and any(code.co_flags & _ASYNC_CODE for code in original_by_key.values()):
            rewritten = source.compile_with_hooks(lines, self._inline_conditions(file))
            hooked, new_by_key = hooked_keys(rewritten), codes_by_key(rewritten)
        for func in functions:
            code = func.__code__
            original = self._originals.get(func, code)
            key = code_key(original)
            if not original.co_flags & _ASYNC_CODE or original_by_key.get(key) is None:
                continue
            if original_by_key[key].co_code != original.co_code and original is code:
                continue  # the file changed since it was loaded: leave it
            wanted = new_by_key[key] if key in hooked else original
            if wanted is not original and code == wanted:
                # The same hooks compiled again: equal codes are one key of the weak dicts, and
                # the one swapped out would take the entry with it when it is collected.
                wanted = code
            if wanted is not original:
                self._generated[wanted] = _hook_lines(wanted)
                for inner in _inner_codes(wanted):
                    self._generated.setdefault(inner, _hook_lines(inner))
            if code is not wanted:
                try:
                    func.__code__ = wanted
                except ValueError:  # its closure does not fit the new code: leave it
                    continue
            if wanted is original:
                self._originals.pop(func, None)
            else:
                self._originals[func] = original

    def code_for_import(self, path, data, compile_name):
        """The code a file being imported (or run as __main__) gets: with hooks at its armed
        lines, or None when it has none."""
        with self._lock:
            file = self._files.get(canonic(path))
            if file is None or not file.by_line:
                return None
            file.compile_name = compile_name
            source = ModuleSource(importlib.util.decode_source(data) if isinstance(data, bytes) else data, compile_name)
            file.source = source
            code = source.compile_with_hooks(set(file.by_line), self._inline_conditions(file))
            self._generated[code] = _hook_lines(code)  # its module-level lines: never traced too
            for key in hooked_keys(code):
                inner = codes_by_key(code)[key]
                self._generated[inner] = _hook_lines(inner)
            return code

    def pending_paths(self):
        return set(self._files)

    # ---- a breakpoint reached ---------------------------------------------------------------

    def _hook(self, line):
        """Called by the hook statement compiled into a function (in an `except` when the
        line's conditions were compiled in: then a ConditionHeld says one of them held)."""
        frame = sys._getframe(1)
        file = self._files.get(canonic(frame.f_code.co_filename))
        specs = file.by_line.get(line) if file is not None else None
        if specs:
            held = len(specs) == 1 and sys.exc_info()[0] is ConditionHeld
            self.hit(frame, line, specs, condition_held=held)

    def _hook_async(self, line):
        """The awaited hook of an `async def` (issue 51): decides on the loop's thread, then
        gives what the coroutine awaits. A pause is a future its task waits on while a worker
        thread talks to the server, so the loop runs every other task meanwhile. Without a
        running loop and a task to suspend, it pauses here, as the plain hook does."""
        frame = sys._getframe(1)
        if self._stepped_to and self._stepped_to.pop(id(frame), None) == line:
            return _NO_PAUSE  # a step stopped on this very line: one pause is enough
        file = self._files.get(canonic(frame.f_code.co_filename))
        specs = file.by_line.get(line) if file is not None else None
        if not specs:
            return _NO_PAUSE
        held = len(specs) == 1 and sys.exc_info()[0] is ConditionHeld
        wanted = []
        self.hit(frame, line, specs, condition_held=held, pause=lambda *args: wanted.append(args))
        if not wanted:
            return _NO_PAUSE
        waiting = self._suspend_task(*wanted[0]) if self._suspend_task is not None else None
        if waiting is None:
            self._pause_program(*wanted[0])
            return _NO_PAUSE
        return waiting

    def _step_async(self, line):
        """The step hook of a rewritten coroutine: a step over armed in this frame stops here."""
        frame = sys._getframe(1)
        armed = coroutine_steps.pop(id(frame), None)
        if armed is None:
            return _NO_PAUSE
        if armed[0] is not frame:  # another frame that had the same id: not this one's
            coroutine_steps[id(armed[0])] = armed
            return _NO_PAUSE
        self._stepped_to[id(frame)] = line
        waiting = armed[1](frame, line)
        return _NO_PAUSE if waiting is None else waiting

    # ---- a child's first moments (lines.starts) ------------------------------------------------

    def has_armed_lines(self, code):
        file = self._files.get(canonic(code.co_filename))
        return file is not None and bool(file.by_line)

    def arm_started_code(self, code):
        """3.12+: a code just starting that runs an armed line gets its LINE events."""
        file = self._files.get(canonic(code.co_filename))
        if file is None or not file.by_line:
            return
        with self._lock:
            lines = self._unhooked_lines(code, file)
            if lines and not lines <= self._monitor.armed().get(code, set()):
                armed = self._monitor.armed()
                armed[code] = armed.get(code, set()) | lines
                self._monitor.set(armed)

    def reach_running(self):
        """Reaches what runs now (running frames, live functions) for every armed file."""
        with self._lock:
            for path, file in list(self._files.items()):
                self._apply(file, self._live_functions(path))

    def on_traced_line(self, frame):
        self._on_traced_line(frame)

    def _on_traced_line(self, frame):
        line = frame.f_lineno
        if not self._gates.passes((frame.f_code.co_filename, line)):
            return
        file = self._files.get(canonic(frame.f_code.co_filename))
        specs = file.by_line.get(line) if file is not None else None
        if specs and line not in self._generated.get(frame.f_code, ()):
            self.hit(frame, line, specs)

    def _on_monitored_line(self, frame, line):
        file = self._files.get(canonic(frame.f_code.co_filename))
        specs = file.by_line.get(line) if file is not None else None
        if specs:
            self.hit(frame, line, specs)

    def hit(self, frame, line, specs, condition_held=False, pause=None):
        """Decides every breakpoint at this line; logs each logpoint; pauses at most once
        (with `pause(frame, extra, stop)` when given: the awaited hook's). Kept lean: a
        breakpoint whose condition is false costs this call and the condition."""
        thread = threading.get_ident()
        if thread in self._in_hit or offthread.is_worker():
            return  # a condition, a log message or a snapshot's repr running code with breakpoints
        self._in_hit.add(thread)
        try:
            pause_for = reached = None
            if self._one_shots:
                reached = self._reach_one_shots(specs, thread)
                specs = [spec for spec in specs if spec.id not in self._one_shots and not spec.id.startswith("run-to-")]
            f_globals, f_locals = frame.f_globals, frame.f_locals
            for spec in specs:
                arguments = (lambda: arguments_text(frame)) if spec.pattern else None
                if spec.read_only:  # log and snapshot: bounded, guarded, never a pause
                    self._arrive(spec, frame, line, arguments, condition_held)
                    continue
                decision = spec.decide(f_globals, f_locals, arguments, condition_held)
                if decision.action == SKIP:
                    continue
                if threading.current_thread().name == "breakroom-eval":
                    return  # a REPL eval calling code with breakpoints: it does not stop there
                if decision.action == LOG:
                    self._record(EVENT_LOG, decision, frame, line)
                else:
                    self._record(EVENT_BREAKPOINT_HIT, decision, frame, line)
                    pause_for = pause_for or decision
            if pause_for is not None and pause is not None:
                self._pause(frame, pause_for, pause)
            elif pause_for is not None:
                self._pause(frame, pause_for)
            elif reached is not None:
                reached.on_reach(frame)
            elif specs and all(spec.read_only for spec in specs):
                self._close_gate(frame.f_code.co_filename, line, specs)
        finally:
            self._in_hit.discard(thread)

    def _close_gate(self, filename, line, specs):
        """When every breakpoint here is past its rate or the budget, the line's next arrivals
        until the first of them reopens cost one clock read and a counted skip (snapshots.gates)."""
        closed = [take.gate_until(spec) for spec in specs]
        if all(closed):
            credit = [take.skips_counter(spec, kind) for spec, (_, kind) in zip(specs, closed)]
            self._gates.close([(filename, line)], min(until for until, _ in closed), credit)

    def _open_gates(self, path, line):
        """The breakpoints at this line changed: its next arrival is decided afresh."""
        self._gates.open([key for key in self._gates.keys() if key[1] == line and canonic(key[0]) == path])

    def _arrive(self, spec, frame, line, arguments, condition_held):
        if threading.current_thread().name == "breakroom-eval":
            return  # a REPL eval calling code with breakpoints: as for pauses, nothing here
        decision = take.arrive(spec, frame, line, arguments, condition_held)
        if decision is None:
            return
        if decision.action == LOG:
            self._record(EVENT_LOG, decision, frame, line)
        elif decision.action == CONDITION_ERROR and decision.error != spec.reported_error:
            # Said once per new error (a condition failing in a loop would flood the log).
            spec.reported_error = decision.error
            self._record(EVENT_BREAKPOINT_HIT, decision, frame, line)

    def _reach_one_shots(self, specs, thread):
        """The one-shot of `thread` among `specs`, taken out; others' wait for their thread."""
        for spec in specs:
            shot = self._one_shots.get(spec.id)
            if shot is not None and shot.thread == thread and threading.current_thread().name != "breakroom-eval":
                shot.disarm()
                shot.done = True
                return shot
        return None

    def _record(self, event, decision, frame, line):
        body = decision.wire()
        body.update(file=frame.f_code.co_filename, line=line, function=frame.f_code.co_qualname, time=time.time())
        self.records.append((event, body))
        stream = self._stream or sys.stderr
        if event == EVENT_LOG:
            print(f"breakroom log [{body['breakpoint_id']}] {os.path.basename(body['file'])}:{line}: {body['message']}", file=stream)
        elif decision.action == CONDITION_ERROR:
            then = "counted as false" if decision.spec.read_only else "pausing so you can see why"
            print(
                f"breakroom: breakpoint {body['breakpoint_id']} at {body['file']}:{line}: condition "
                f"{decision.spec.condition!r} raised {decision.error}; {then}",
                file=stream,
            )
        for listener in list(self.listeners):
            try:
                listener(event, body)
            except Exception as exc:  # the server wiring must not break the program
                print(f"breakroom: breakpoint listener failed: {exc}", file=sys.stderr)

    def _pause(self, frame, decision, pause=None):
        extra = {"breakpoint_hit": decision.wire()}  # the name the REPL sees
        if decision.error is not None:
            extra["condition_error"] = decision.error
        stop = {"kind": STOP_LINE, "breakpoint_id": decision.spec.id}
        (pause or self._pause_program)(frame, extra, stop)

    def close(self):
        """Disarms everything and takes the hooks out (tests, and a client shutting down)."""
        self.clear()
        self._tracer.untrace()
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        if self._monitor is not None:
            self._monitor.close()


def _inner_codes(code):
    stack = list(code.co_consts)
    while stack:
        const = stack.pop()
        if isinstance(const, types.CodeType):
            yield const
            stack.extend(const.co_consts)


class _OneShot:
    def __init__(self, engine, shot_id, thread, on_reach):
        self.engine = engine
        self.id = shot_id
        self.thread = thread
        self.on_reach = on_reach
        self.done = False

    def take_hold(self):
        return False  # the line may be far off: the program's own switch interval meanwhile

    def disarm(self):
        if self.engine._one_shots.pop(self.id, None) is not None:
            try:
                self.engine.remove(self.id)
            except KeyError:
                pass


class ConditionHeld(Exception):
    """Raised by a condition compiled into a function when it holds (see _line_rewrite)."""


class _HookingFinder:
    """Gives a file with armed lines its hooks when it is imported (or reloaded)."""

    def __init__(self, engine):
        self.engine = engine

    def find_spec(self, name, path=None, target=None):
        if not self.engine.pending_paths():
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or not spec.origin or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if canonic(spec.origin) not in self.engine.pending_paths():
            return None
        spec.loader = _HookingLoader(name, spec.origin, self.engine)
        return spec


class _HookingLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):
        path = self.get_filename(fullname)
        code = self.engine.code_for_import(path, self.get_data(path), path)
        return code if code is not None else super().get_code(fullname)

    def __init__(self, fullname, path, engine):
        super().__init__(fullname, path)
        self.engine = engine

