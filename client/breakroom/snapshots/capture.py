"""A snapshot's content (issue 34): the stack, the top frames' locals as a bounded value tree, and
the watch expressions. Runs on the snapshot worker (`offthread`), never on the program's thread.

A value is `{"type", "repr", "children"?, "length"?, "truncated"?, "error"?}`; a child is
`{"name", "value"}`. Bounds, all from the breakpoint's `capture` (see `Limits`):
* `depth` container levels (builtin containers, and objects' `__dict__` and slots);
* `items` children per container (and locals per frame);
* `string_bytes` per string or repr: a 10 MB string costs a slice of its first bytes;
* `total_bytes` for the whole snapshot, estimated as it is built: past it, values are left out
  and the snapshot says `truncated`;
* `rich_bytes` for the tables and pictures of the locals and watch values that are data (a
  DataFrame, an array, a list of dicts: `repl.rich.data_outputs`), drawn after everything else
  while time and this room remain; 0 draws none (issue 52).
Objects are read statically (instance dict and slot descriptors, no properties, no
`__getattr__`). The only program code run is a `__repr__` written in Python, each under a time
limit (`offthread.bounded`); a type whose repr once ran out of time is not asked again.
"""

import itertools
import time
import types

from .. import redaction
from ..protocol.constants import MIME_PLAIN, OUTPUT_EXECUTE_RESULT
from ..process.frames import visible_stack
from ..repl import rich
from ..repl.static_read import _class_lookup, _mro, _type_dict, _Unresolved, instance_dict
from . import offthread, read_only

DEFAULTS = {"frames": 5, "depth": 3, "items": 100, "string_bytes": 1024, "total_bytes": 65536, "rich_bytes": 131072}
CAPS = {"frames": 50, "depth": 10, "items": 1000, "string_bytes": 65536, "total_bytes": 1048576, "rich_bytes": 1048576}
LEAST = {"rich_bytes": 0}  # the limits that may be 0; the others are at least 1
DATA_ROWS = 20  # a snapshot table's rows (at most `items`)
DATA_CELLS = 64  # a snapshot heatmap's cells a side
DATA_TIME_S = 0.05  # the tables and pictures' own deadline, after the values' (the program waits)
REPR_TIME_S = 0.010
MAX_STACK = 256  # frames listed (file, line, function) beyond which a stack is cut
NODE_OVERHEAD = 40  # JSON punctuation and keys of one child, in the size estimate
SUMMARY_ITEMS = 5  # items drawn in a container's own repr (its children carry the rest)

_type_qualname = type.__dict__["__qualname__"].__get__
_type_module = type.__dict__["__module__"].__get__
_SCALARS = (int, float, complex, bool, type(None))
_CONTAINER_BASES = (dict, list, tuple, set, frozenset)
_LEAVES = (
    type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
    types.CodeType, types.FrameType, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType,
    types.TracebackType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
)
_slow_reprs = set()  # types whose __repr__ ran out of time once (or hung the worker)
_in_repr = [None]  # the type whose __repr__ the worker is running: blamed if the worker hangs


def blame_hung_repr():
    """After a worker was left behind: the type whose repr it was running is not asked again."""
    hung = _in_repr[0]
    if hung is not None:
        _slow_reprs.add(hung)


class Limits:
    """A breakpoint's `capture` object with defaults for what is missing and caps on the rest;
    anything that is not a whole number from its least (1, or 0 for `rich_bytes`) is taken as
    missing (the server validates too)."""

    __slots__ = tuple(DEFAULTS)

    def __init__(self, capture=None):
        capture = capture if isinstance(capture, dict) else {}
        for name, default in DEFAULTS.items():
            value = capture.get(name)
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= LEAST.get(name, 1)
            setattr(self, name, min(value, CAPS[name]) if ok else default)


def type_name(value):
    t = type(value)
    module, qualname = _type_module(t), _type_qualname(t)
    return qualname if module == "builtins" else f"{module}.{qualname}"


def _cut_bytes(text, limit):
    """`text` in at most `limit` UTF-8 bytes, cut on a character boundary with a `…`."""
    if len(text) * 4 <= limit:  # cheap bound: even all 4-byte characters fit
        return text, False
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return data[: max(0, limit - 3)].decode("utf-8", "ignore") + "…", True


_NO_TEXT = (bool, float, type(None))
CARD_MIN = 10**12


class Capture:
    """One snapshot being built: the running size estimate, the deadline, whether it was cut."""

    def __init__(self, limits, deadline, used=0):
        self.limits = limits
        self.deadline = deadline  # perf_counter time; past it, values are left out
        self.used = used
        self.truncated = False
        self.rules = redaction.rules()  # one set for the whole snapshot
        self.redacted = 0  # values replaced by `[redacted]` (issue 50)
        self.known = []  # strings held under secret names in the frames captured
        self.data = []  # (node, value) of the locals and watch values that are data, to draw
        self.rich_used = 0

    def hidden(self, obj):
        """The node of a value shown under a secret's name: its type, never its value."""
        self.redacted += 1
        self._fits(len(redaction.REDACTED) + NODE_OVERHEAD)
        return {"type": type_name(obj), "repr": redaction.REDACTED}

    def named(self, name, obj, level=0):
        """The node of `obj` shown as `name` (a local, a key, an attribute)."""
        if name[:1] != "[" and self.rules.name_matches(name):  # `[3]`: a list's index, never a name
            return self.hidden(obj)
        return self.value(obj, level)

    def _fits(self, cost):
        if self.used + cost > self.limits.total_bytes:
            self.truncated = True
            return False
        self.used += cost
        return True

    # ---- one value ---------------------------------------------------------------------------

    def value(self, obj, level=0):
        """The value node of `obj`; None when the snapshot has no room left for it."""
        node = {"type": type_name(obj)}
        try:
            node["repr"], cut, error = self._repr(obj)
        except BaseException as exc:  # a type's __module__/__qualname__ read that failed, say
            node["repr"], cut, error = "<unavailable>", False, f"{type(exc).__name__}"
        t = type(obj)
        # Numbers hide nothing but a card number (13 digits or more); True, False, None nothing.
        if not (t in _NO_TEXT or (t is int and -CARD_MIN < obj < CARD_MIN)):
            node["repr"], n = self.rules.text(node["repr"], self.known)
            self.redacted += n
        if cut:
            node["truncated"] = True
        if level == 0 and self.limits.rich_bytes and rich.is_data(obj):
            self.data.append((node, obj))
        if error:
            node["error"], n = self.rules.text(error)
            self.redacted += n
        if not self._fits(len(node["type"]) + len(node["repr"]) + NODE_OVERHEAD):
            return None
        t = type(obj)
        if t is str or t is bytes or t is bytearray:
            node["length"] = len(obj)
        elif issubclass(t, _CONTAINER_BASES):
            self._container(obj, node, level)
        elif level < self.limits.depth and not issubclass(t, _LEAVES) and not issubclass(t, _SCALARS):
            self._attributes(obj, node, level)
        return node

    def _children(self, node, pairs, level, total):
        """Fills node["children"] from (name, value) pairs, within items, size and time."""
        children = []
        for name, child in itertools.islice(pairs, self.limits.items):
            if time.perf_counter() > self.deadline:
                self.truncated = True
                break
            name, _ = _cut_bytes(name, 200)
            value = self.named(name, child, level + 1) if self._fits(len(name) + NODE_OVERHEAD) else None
            if value is None:
                break
            children.append({"name": name, "value": value})
        node["children"] = children
        if len(children) < total:
            node["truncated"] = True

    def _container(self, obj, node, level):
        base = next(b for b in _CONTAINER_BASES if isinstance(obj, b))
        total = base.__len__(obj)
        node["length"] = total
        if level >= self.limits.depth or not total:
            return
        try:
            if base is dict:
                pairs = ((self._key_text(k), v) for k, v in dict.items(obj))
            else:
                pairs = ((f"[{i}]", v) for i, v in enumerate(base.__iter__(obj)))
            self._children(node, pairs, level, total)
        except RuntimeError as exc:  # another thread changed it while we read it
            node["error"] = f"{type(exc).__name__}: {exc}"
            node["truncated"] = True

    def _attributes(self, obj, node, level):
        pairs = []
        own = instance_dict(obj)
        if own:
            try:
                pairs.extend((k, v) for k, v in dict.items(own) if type(k) is str and not _dunder(k))
            except RuntimeError:
                node["truncated"] = True
        for klass in _mro(type(obj)):
            for name, member in _type_dict(klass).items():
                if type(member) is types.MemberDescriptorType and not _dunder(name):
                    try:
                        pairs.append((name, member.__get__(obj, type(obj))))
                    except AttributeError:  # a slot never set
                        continue
        if pairs:
            self._children(node, iter(pairs), level, len(pairs))

    def _key_text(self, key):
        if type(key) in (str, int, float, bool, bytes, type(None)):
            return self._repr(key)[0]
        return f"<{type_name(key)}>"

    # ---- reprs ---------------------------------------------------------------------------------

    def _repr(self, obj):
        """(text, cut, error) for `obj`, in at most `string_bytes` bytes."""
        limit = self.limits.string_bytes
        t = type(obj)
        if t is str or t is bytes or t is bytearray:
            head = obj[: limit + 1]  # a 10 MB string: only its head is ever copied
            text, cut = _cut_bytes(repr(head) if t is not bytearray else repr(bytes(head)), limit)
            return text, cut or len(obj) > len(head), None
        if t in _SCALARS:
            try:
                return (*_cut_bytes(repr(obj), limit), None)
            except ValueError:  # an int past sys.int_max_str_digits
                return f"<int of {obj.bit_length()} bits>", True, None
        if issubclass(t, _CONTAINER_BASES):
            return (*_cut_bytes(self._summary(obj), limit), None)
        known = _known_repr(obj)
        if known is not None:
            return (*_cut_bytes(known, limit), None)
        if t in _slow_reprs:
            return "<repr timed out>", True, "repr timed out before"
        deadline = min(time.perf_counter() + REPR_TIME_S, self.deadline)
        _in_repr[0] = t
        try:
            # A DataFrame's column named like a secret is masked in its text too (issue 50).
            shown = offthread.bounded(lambda: rich.masked(obj), deadline)
            if shown is not obj:
                self.redacted += 1
            text = offthread.bounded(lambda: repr(shown), deadline)
            if type(text) is not str:
                return f"<{type_name(obj)} object>", False, "repr did not return str"
        except offthread.TimedOut:
            _slow_reprs.add(t)
            return "<repr timed out>", True, "repr timed out"
        except BaseException as exc:
            return f"<repr raised {type(exc).__name__}>", False, f"{type(exc).__name__}: {_safe_str(exc)}"
        finally:
            _in_repr[0] = None
        return (*_cut_bytes(text, limit), None)

    def _summary(self, obj):
        """A container's own repr: its first few items, scalars drawn, others by type."""
        base = next(b for b in _CONTAINER_BASES if isinstance(obj, b))
        items = dict.items(obj) if base is dict else base.__iter__(obj)
        parts = []
        try:
            for item in itertools.islice(items, SUMMARY_ITEMS):
                if base is dict:
                    parts.append(f"{_short(item[0])}: {_short(item[1])}")
                else:
                    parts.append(_short(item))
        except RuntimeError:
            parts.append("<changing>")
        total = base.__len__(obj)
        if total > len(parts):
            parts.append(f"… ({total} items)")
        body = ", ".join(parts)
        if base is list:
            text = f"[{body}]"
        elif base is tuple:
            text = f"({body},)" if total == 1 else f"({body})"
        elif base is dict:
            text = "{" + body + "}"
        else:
            text = ("{" + body + "}") if total else f"{base.__name__}()"
            text = text if base is set else f"frozenset({text})"
        return text if type(obj) is base else f"{type_name(obj)}({text})"


def _short(value):
    t = type(value)
    if t in _SCALARS:
        try:
            return repr(value)
        except ValueError:
            return "<int>"
    if t is str or t is bytes:
        return repr(value[:40]) + ("…" if len(value) > 40 else "")
    if issubclass(t, _CONTAINER_BASES):
        return f"<{type_name(value)} of {next(b for b in _CONTAINER_BASES if isinstance(value, b)).__len__(value)}>"
    return f"<{type_name(value)}>"


def _known_repr(obj):
    """The reprs we draw ourselves rather than call: object's default, and functions, methods,
    classes and modules (whose own reprs may call the program's: a bound method's repr of self)."""
    t = type(obj)
    try:
        if _class_lookup(t, "__repr__") is object.__repr__:
            return f"<{type_name(obj)} object at {id(obj):#x}>"
    except _Unresolved:
        return f"<{type_name(obj)} object at {id(obj):#x}>"
    if issubclass(t, type):
        return f"<class '{_type_module(obj)}.{_type_qualname(obj)}'>"
    if t is types.ModuleType:
        name = (instance_dict(obj) or {}).get("__name__")
        return f"<module {name!r}>" if type(name) is str else "<module>"
    if t in (types.FunctionType, types.BuiltinFunctionType):
        return f"<function {_safe_str(getattr(obj, '__qualname__', '?'))}>"
    if t is types.MethodType:
        return f"<bound method {_safe_str(getattr(obj.__func__, '__qualname__', '?'))}>"
    if issubclass(t, _LEAVES):
        return f"<{type_name(obj)} at {id(obj):#x}>"
    return None


def _dunder(name):
    return name.startswith("__") and name.endswith("__")


def _safe_str(value):
    """str() of an exception (whose __str__ may be the program's), bounded in time and length."""
    try:
        text = offthread.bounded(lambda: str(value), time.perf_counter() + REPR_TIME_S)
        text = text if type(text) is str else "?"
    except BaseException:
        return "?"
    return text if len(text) <= 200 else text[:199] + "…"


# ---- frames and expressions ------------------------------------------------------------------------


def qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def stack(frame):
    """The program's frames from `frame` outwards (this package's left out)."""
    return visible_stack(frame, limit=MAX_STACK)


def _fill_locals(capture, node, local_items):
    """A frame's `locals`, as many as items, time and the snapshot's size allow."""
    locals_ = []
    node["locals"] = locals_
    local_items = list(itertools.islice(local_items, capture.limits.items))
    capture.known.extend(redaction.known_secrets(dict(local_items)))
    for name, value in local_items:
        if time.perf_counter() > capture.deadline:
            capture.truncated = True
            return
        child = capture.named(name, value) if capture._fits(len(name) + NODE_OVERHEAD) else None
        if child is None:
            return
        locals_.append({"name": name, "value": child})


def frame_locals(frame):
    """(name, value) of a frame's locals; at module level, not the imports, functions and
    classes (a module's globals are its locals there, and those are code, not state)."""
    try:
        items = list(frame.f_locals.items())
    except Exception:  # a frame whose locals cannot be read (3.13 proxies of odd frames)
        return []
    module_level = frame.f_code.co_name == "<module>"
    return [
        (name, value)
        for name, value in items
        if type(name) is str
        and not _dunder(name)
        and not (module_level and isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)))
    ]


def frames(capture, top, first=None):
    """The `frames` list: `first` (a function snapshot's call: (file, line, function, locals))
    then `top` and its callers. The whole stack is listed first (file, line, function), so a full
    snapshot still says where it was; then the first `capture.frames` get their locals, the
    innermost first."""
    nodes, sources = [], []
    if first is not None:
        nodes.append({"file": first[0], "line": first[1], "function": first[2]})
        sources.append(lambda: first[3])
    for frame in stack(top):
        code = frame.f_code
        node = {"file": code.co_filename, "line": frame.f_lineno, "function": qualname(code)}
        if not capture._fits(len(node["file"]) + len(node["function"]) + NODE_OVERHEAD):
            break
        nodes.append(node)
        sources.append(lambda frame=frame: frame_locals(frame))
    for node, source in list(zip(nodes, sources))[: capture.limits.frames]:
        if capture.used >= capture.limits.total_bytes or time.perf_counter() > capture.deadline:
            capture.truncated = True
            break
        _fill_locals(capture, node, iter(source()))
    return nodes


def data_forms(capture):
    """The tables and pictures of the data values met (`Capture.data`), in the order met, while
    their time (DATA_TIME_S) and the `rich_bytes` room last; a value left without its form says
    why."""
    rows = min(capture.limits.items, DATA_ROWS)
    deadline = time.perf_counter() + DATA_TIME_S
    for node, obj in capture.data:
        why = None
        try:
            outputs = offthread.bounded(lambda obj=obj: rich.data_outputs(obj, node["repr"], rows, DATA_CELLS), deadline)
        except offthread.TimedOut:
            outputs, why = [], f"drawing took past the snapshot's {DATA_TIME_S * 1000:.0f} ms for them"
        except Exception as exc:  # a frame changed under us, an odd dtype: the repr stays
            outputs, why = [], f"drawing it failed: {type(exc).__name__}"
        if outputs:
            rich.redacted(outputs, capture.known)
            size = sum(rich.size_of(o["data"]) for o in outputs)
            if capture.rich_used + size > capture.limits.rich_bytes:
                outputs, why = [], f"it passes the snapshot's rich_bytes room ({capture.limits.rich_bytes} bytes)"
            else:
                capture.rich_used += size
        if why is not None:
            note = f"its table or picture was left out: {why}"
            outputs = [{"output_type": OUTPUT_EXECUTE_RESULT, "data": {MIME_PLAIN: node["repr"]},
                        "metadata": {"breakroom": {"notes": [note]}}}]
        if outputs:
            node["outputs"] = outputs


def expressions(capture, compiled, globals_, locals_):
    """Each watch expression's value (or error), evaluated under the read-only guard and the
    snapshot's deadline; `compiled` is [(text, code)]."""
    results = []
    for text, code in compiled:
        entry = {"expression": text}
        if redaction.source_is_secret(text):  # `user.password`: not even evaluated
            entry["value"] = capture.hidden(None)
            entry["value"]["type"] = "redacted"
            results.append(entry)
            continue
        deadline = min(time.perf_counter() + 10 * REPR_TIME_S, capture.deadline)
        try:
            value = offthread.bounded(lambda code=code: read_only.guarded_eval(code, globals_, locals_), deadline)
        except read_only.Blocked as exc:
            entry["error"] = str(exc)
        except offthread.TimedOut:
            entry["error"] = "timed out"
        except BaseException as exc:
            entry["error"] = capture.rules.text(f"{type(exc).__name__}: {_safe_str(exc)}")[0]
        else:
            node = capture.value(value)
            if node is None:
                entry["error"] = "left out: the snapshot is full"
            else:
                entry["value"] = node
        if not capture._fits(len(text) + len(entry.get("error", "")) + NODE_OVERHEAD):
            break
        results.append(entry)
    return results

