"""The variables panel: the paused frame's locals and the session's own names, each with its type
and a short repr, expandable one level at a time.

    variables(frame_locals, session_namespace) -> {"variables": [entry, ...], "timed_out": bool}
    expand(path, frame_locals, session_namespace, offset=0, limit=100)
        -> {"path", "children": [entry, ...], "count": int, "offset": int, "truncated": bool}
    entry = {"name", "type", "repr", "expandable", "path", "expression", "count"?, "scope"?}

A path is a list of steps, each a two-item list: ["var", name] first, then ["attr", name]
(an attribute as listed: instance dict, slot, or a class's/module's own dict) or ["item", i]
(the i-th element of a list/tuple/deque/set, or the i-th value of a dict, in iteration order).

Reprs are user code, so each one is bounded:
* length: containers of the builtin types are rendered here, only their first items, so a list
  of ten million elements costs twenty element reprs, not ten million; the text is cut to
  `repr_limit` characters;
* errors: a `__repr__` that raises shows `<repr raised ValueError: ...>`;
* time: a repr runs in a worker thread under a `sys.settrace` deadline. A `__repr__` looping in
  Python is stopped at its next line once the deadline passes (the thread comes back, no CPU is
  left burning); one blocked in C (a sleep, a lock, a huge C-level repr) cannot be interrupted by
  anything, so the caller simply stops waiting at the deadline, shows `<repr timed out>` and
  abandons that worker. Either way the caller never waits longer than the deadline.
"""

import builtins
import collections
import itertools
import json
import queue
import sys
import threading
import time
import types

from .complete import _mro, _real_dict, _type_dict, _type_module, instance_dict

REPR_LIMIT = 200
REPR_TIMEOUT_S = 0.1
PANEL_BUDGET_S = 1.0
CHILDREN_LIMIT = 100
CONTAINER_ITEMS = 20  # elements shown in a container's repr
TIMED_OUT = "<repr timed out>"
SKIPPED = "<repr skipped: the panel's time budget is spent>"

_type_qualname = type.__dict__["__qualname__"].__get__
_SCALARS = (int, float, complex, bool, type(None), str, bytes)
_SEQUENCES = (list, tuple, collections.deque)
_SETS = (set, frozenset)


class _ReprTimeout(BaseException):
    """Raised inside a repr by the trace function once its deadline has passed; a BaseException
    so that a `__repr__`'s `except Exception` does not swallow it."""


# ---- bounded repr -------------------------------------------------------------------------------


def _cut(text, limit):
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _describe_error(exc):
    try:
        message = str(exc)
    except Exception:
        message = "?"
    return f"<repr raised {type(exc).__name__}: {_cut(message, 80)}>" if message else f"<repr raised {type(exc).__name__}>"


def _render(value, limit, level=2):
    """repr(value) with builtin containers drawn here, a few items deep and long."""
    t = type(value)
    if t is str:
        return _cut(repr(value[: limit + 1]), limit) if len(value) > limit else repr(value)
    if t is bytes:
        return _cut(repr(value[: limit + 1]), limit) if len(value) > limit else repr(value)
    if t is int:
        try:
            return _cut(repr(value), limit)
        except ValueError:  # more digits than sys.int_max_str_digits
            return f"<int of {value.bit_length()} bits>"
    if t in _SEQUENCES or t in _SETS or t is dict:
        if level <= 0:
            return {list: "[...]", tuple: "(...)", dict: "{...}"}.get(t, f"{t.__name__}(...)")
        count = len(value)
        parts, used = [], 0
        items = dict.items(value) if t is dict else value
        for item in itertools.islice(items, CONTAINER_ITEMS):
            if t is dict:
                part = f"{_render_item(item[0], limit, level)}: {_render_item(item[1], limit, level)}"
            else:
                part = _render_item(item, limit, level)
            parts.append(part)
            used += len(part) + 2
            if used > limit:
                break
        if len(parts) < count:
            parts.append(f"... ({count} items)")
        body = ", ".join(parts)
        if t is list:
            return f"[{body}]"
        if t is tuple:
            return f"({body},)" if count == 1 else f"({body})"
        if t is dict:
            return "{" + body + "}"
        if t is set:
            return "{" + body + "}" if count else "set()"
        return f"{t.__name__}([{body}])" if count or t is collections.deque else f"{t.__name__}()"
    return _cut(builtins.repr(value), limit)


def _render_item(item, limit, level):
    try:
        return _render(item, limit, level - 1)
    except _ReprTimeout:
        raise
    except Exception as exc:
        return _describe_error(exc)


class _Worker:
    """A daemon thread that runs reprs; abandoned (it ends after its current job) when a repr
    outlives its deadline inside C code."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.abandoned = False
        threading.Thread(target=self._serve, name="breakroom-repr", daemon=True).start()

    def _serve(self):
        while True:
            self.jobs.get()()
            with self.lock:
                if self.abandoned:
                    return


_pool_lock = threading.Lock()
_idle_workers = []


def _run_with_deadline(fn, timeout_s):
    """("ok", value) | ("error", exc) | ("timeout", None) for fn() run in a worker thread under a
    trace-function deadline; returns within about timeout_s."""
    with _pool_lock:
        worker = _idle_workers.pop() if _idle_workers else None
    if worker is None:
        worker = _Worker()
    done = threading.Event()
    outcome = []

    def job():
        deadline = time.perf_counter() + timeout_s

        def tracer(frame, event, arg):
            if time.perf_counter() > deadline:
                raise _ReprTimeout
            return tracer

        previous = sys.gettrace()
        sys.settrace(tracer)
        try:
            outcome.append(("ok", fn()))
        except _ReprTimeout:
            outcome.append(("timeout", None))
        except BaseException as exc:
            outcome.append(("error", exc))
        finally:
            sys.settrace(previous)
            done.set()

    worker.jobs.put(job)
    if done.wait(timeout_s):
        with _pool_lock:
            if len(_idle_workers) < 2:
                _idle_workers.append(worker)
                worker = None
        if worker is not None:
            with worker.lock:
                worker.abandoned = True
            worker.jobs.put(lambda: None)  # let the surplus thread see it is abandoned and end
        return outcome[0]
    with worker.lock:
        worker.abandoned = True
    return ("timeout", None)


def bounded_repr(value, limit=REPR_LIMIT, timeout_s=REPR_TIMEOUT_S):
    """A repr of at most `limit` characters that never raises and returns within `timeout_s`."""
    if type(value) in _SCALARS:  # C reprs of bounded cost: no thread needed
        return _cut(_render(value, limit), limit)
    status, text = _run_with_deadline(lambda: _render(value, limit), timeout_s)
    if status == "ok":
        return _cut(text, limit)
    if status == "error":
        return _describe_error(text)
    return TIMED_OUT


# ---- entries --------------------------------------------------------------------------------------


def type_name(value):
    t = type(value)
    module, qualname = _type_module(t), _type_qualname(t)
    return qualname if module == "builtins" else f"{module}.{qualname}"


def _slots(obj):
    """(name, member descriptor) of the slots of obj's classes."""
    found = []
    for klass in _mro(type(obj)):
        for name, attr in _type_dict(klass).items():
            if type(attr) is types.MemberDescriptorType and name not in ("__weakref__",):
                found.append((name, attr))
    return found


def _own_attributes(obj):
    """The attributes the panel lists for an object: its instance dict and slots; for a class or
    a module, its own namespace. Raw values: nothing is computed."""
    if issubclass(type(obj), type):
        return dict(_type_dict(obj))
    found = dict(instance_dict(obj) or {})
    for klass in _mro(type(obj)):
        for name, attr in _type_dict(klass).items():
            if type(attr) is property and name not in found:
                found[name] = attr  # listed so the user sees it exists; never called
    for name, member in _slots(obj):
        if name not in found:
            try:
                found[name] = member.__get__(obj, type(obj))
            except AttributeError:  # an unset slot
                continue
    return found


def _children_count(value):
    t = type(value)
    if t in _SEQUENCES or t in _SETS or t is dict or (issubclass(t, dict) and _real_dict(value)):
        return len(value) if t in _SEQUENCES or t in _SETS else dict.__len__(value)
    if t in _SCALARS:
        return 0
    return sum(1 for name in _own_attributes(value) if type(name) is str and not _is_dunder(name))


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


def _is_container(value):
    t = type(value)
    return t in _SEQUENCES or t in _SETS or t is dict or (issubclass(t, dict) and _real_dict(value))


# Types whose value the panel's "view" shows as a table or a picture (repl/rich.py), by their
# type's module and name: nothing is imported to know.
_VIEWABLE = {("pandas", "DataFrame"), ("pandas", "Series"), ("numpy", "ndarray"), ("matplotlib", "Figure"),
             ("PIL", "Image")}
_DISPLAY_METHODS = ("_repr_mimebundle_", "_repr_html_", "_repr_png_", "_repr_svg_", "_repr_jpeg_")


def viewable(value):
    """Whether the value has a richer form than its repr: a table, an image, HTML."""
    kind = type(value)
    package = (getattr(kind, "__module__", "") or "").split(".")[0]
    if (package, kind.__name__) in _VIEWABLE or (package == "PIL" and hasattr(value, "save")):
        return True
    if kind is list and value and all(type(row) is dict for row in value[:100]):
        return True
    return any(getattr(kind, name, None) is not None for name in _DISPLAY_METHODS)


def _entry(name, value, path, expression, limit, timeout_s, deadline, raw_kind=None):
    if raw_kind == "property":
        text, expandable = "<property: not evaluated>", False
    elif deadline is not None and time.perf_counter() > deadline and type(value) not in _SCALARS:
        text, expandable = SKIPPED, False
    else:
        text = bounded_repr(value, limit, timeout_s)
        try:
            expandable = _children_count(value) > 0
        except Exception:
            expandable = False
    entry = {
        "name": name,
        "type": "property" if raw_kind == "property" else type_name(value),
        "repr": text,
        "expandable": expandable,
        "path": path,
        "expression": expression,
    }
    if raw_kind != "property" and viewable(value):
        entry["viewable"] = True
    if raw_kind != "property" and _is_container(value):
        entry["count"] = len(value) if type(value) in _SEQUENCES or type(value) in _SETS else dict.__len__(value)
    return entry


def _layers(frame_locals, session_namespace):
    """(name, value, scope) the REPL sees: session names shadow the frame's."""
    seen = {}
    for scope, layer in (("session", session_namespace or {}), ("local", frame_locals or {})):
        for name in list(layer):
            if type(name) is str and name not in seen and not _is_dunder(name):
                seen[name] = (layer[name], scope)
    return seen


def variables(frame_locals, session_namespace=None, repr_limit=REPR_LIMIT, repr_timeout_s=REPR_TIMEOUT_S,
              budget_s=PANEL_BUDGET_S):
    """The panel's rows: the frame's locals, then the session's own names. Once `budget_s` is
    spent the remaining rows show SKIPPED instead of a repr (scalars are always shown)."""
    deadline = time.perf_counter() + budget_s
    names = _layers(frame_locals, session_namespace)
    ordered = [n for n in names if names[n][1] == "local"] + [n for n in names if names[n][1] == "session"]
    rows = []
    for name in ordered:
        value, scope = names[name]
        row = _entry(name, value, [["var", name]], name, repr_limit, repr_timeout_s, deadline)
        row["scope"] = scope
        rows.append(row)
    return {"variables": rows, "timed_out": time.perf_counter() > deadline}


# ---- expanding ------------------------------------------------------------------------------------


class PathError(LookupError):
    """A path that no longer leads anywhere (the value changed since the panel was drawn)."""


def _nth(iterable, i):
    for item in itertools.islice(iterable, i, i + 1):
        return item
    raise PathError(f"no item {i}")


def resolve(path, frame_locals, session_namespace=None):
    """The value a panel path names."""
    return _walk(path, frame_locals, session_namespace)[0]


def _walk(path, frame_locals, session_namespace):
    """(value, REPL expression for it or None) at the end of `path`."""
    if not path or path[0][0] != "var":
        raise PathError("a path starts with ['var', name]")
    names = _layers(frame_locals, session_namespace)
    if path[0][1] not in names:
        raise PathError(f"no variable {path[0][1]!r}")
    value, expression = names[path[0][1]][0], path[0][1]
    for kind, key in path[1:]:
        if kind == "attr":
            attributes = _own_attributes(value)
            if key not in attributes:
                raise PathError(f"no attribute {key!r}")
            value = attributes[key]
            expression = f"{expression}.{key}" if expression and key.isidentifier() else None
        elif kind == "item" and _is_container(value) and type(key) is int and key >= 0:
            if issubclass(type(value), dict):
                dict_key, value = _nth(dict.items(value), key)
                key_text = _key_expression(dict_key)
                expression = f"{expression}[{key_text}]" if expression and key_text else None
            else:
                indexable = type(value) in _SEQUENCES
                value = _nth(value, key)
                expression = f"{expression}[{key}]" if expression and indexable else None
        else:
            raise PathError(f"cannot follow {[kind, key]!r}")
    return value, expression


def _key_expression(key):
    if type(key) in (str, int, float, bool, bytes, type(None)):
        return repr(key)
    return None


def expand(path, frame_locals, session_namespace=None, offset=0, limit=CHILDREN_LIMIT, repr_limit=REPR_LIMIT,
           repr_timeout_s=REPR_TIMEOUT_S, budget_s=PANEL_BUDGET_S):
    """One level of children of the value at `path`: a container's items (from `offset`, at most
    `limit`), or an object's attributes read statically (a property is listed, not called).
    Each child's `expression` is REPL text for it where there is a plain one, else None."""
    deadline = time.perf_counter() + budget_s
    value, expression = _walk(path, frame_locals, session_namespace)
    children = []
    t = type(value)
    if _is_container(value):
        is_dict = issubclass(t, dict)
        count = dict.__len__(value) if is_dict else len(value)
        items = dict.items(value) if is_dict else value
        for i, item in enumerate(itertools.islice(items, offset, offset + limit), start=offset):
            if is_dict:
                key, child = item
                name = bounded_repr(key, 80, repr_timeout_s)
                key_text = _key_expression(key)
                child_expression = f"{expression}[{key_text}]" if expression and key_text else None
            else:
                child, name = item, f"[{i}]"
                child_expression = f"{expression}[{i}]" if expression and t in (list, tuple, collections.deque) else None
            children.append(_entry(name, child, path + [["item", i]], child_expression, repr_limit, repr_timeout_s, deadline))
    else:
        attributes = _own_attributes(value)
        names = sorted((n for n in attributes if type(n) is str and not _is_dunder(n)), key=lambda n: (n.startswith("_"), n))
        count = len(names)
        for name in names[offset : offset + limit]:
            raw = attributes[name]
            raw_kind = "property" if type(raw) is property else None
            child_expression = f"{expression}.{name}" if expression and name.isidentifier() else None
            children.append(_entry(name, raw, path + [["attr", name]], child_expression, repr_limit, repr_timeout_s,
                                   deadline, raw_kind))
    return {
        "path": path,
        "children": children,
        "count": count,
        "offset": offset,
        "truncated": offset + len(children) < count,
    }



# ---- answering the server ----------------------------------------------------------------------


def panel_reply(kind, args, frame_locals, session_namespace=None):
    """The answer to a `variables` or `expand` request: the dict above, or
    {"error": "invalid_path", "message"} when the path no longer leads anywhere."""
    # A literal, not protocol.constants.REQUEST_VARIABLES: this file also runs alone, in the
    # snippet for clients without the package, where it can import nothing of the package.
    if kind == "variables":
        return variables(frame_locals, session_namespace)
    args = args if isinstance(args, dict) else {}
    path, offset = args.get("path"), args.get("offset", 0)
    if not isinstance(path, list) or not all(isinstance(step, list) and len(step) == 2 for step in path):
        return {"error": "invalid_path", "message": "path must be a list of [kind, key] steps"}
    if type(offset) is not int or offset < 0:
        offset = 0
    try:
        return expand(path, frame_locals, session_namespace, offset=offset)
    except PathError as exc:
        return {"error": "invalid_path", "message": str(exc)}


def panel_snippet_reply(kind, args, frame):
    """What the variables snippet evaluates to (see the server's snippet.rs): the reply as JSON
    text without `'`, so its repr only doubles backslashes. The snippet's frame is the eval's,
    whose f_locals are the plain REPL's namespace."""
    try:
        reply = panel_reply(kind, args, frame.f_locals)
    except Exception as exc:  # the panel must never break the client's eval loop
        reply = {"error": "panel_failed", "message": f"{type(exc).__name__}: {exc}"}
    return json.dumps(reply, ensure_ascii=True, separators=(",", ":"), default=str).replace("'", "\\u0027")
