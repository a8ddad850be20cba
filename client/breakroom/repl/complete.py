"""Completion for the REPL of a paused program, without running any of the program's code.

`complete(code, cursor_pos, namespace_layers)` answers in the shape of Jupyter's complete_reply:

    {"status": "ok", "matches": [...], "cursor_start": int, "cursor_end": int,
     "metadata": {"types": [...one per match...],
                  "_jupyter_types_experimental": [{"start", "end", "text", "type", "signature"}],
                  "timed_out": bool}}

Positions are in code points, as Jupyter's cursor_pos. Matches replace code[cursor_start:cursor_end].

Nothing here calls into user code: objects are read as `static_read` reads them (no property
getters, no `__getattr__`/`__getattribute__`, no `__dir__`, no `isinstance`).

The completion snippet (`completion_snippet` below, and the server's `debugger/src/snippet.rs`)
takes completion to clients that do not have the `breakroom` package (unchanged cideldill
clients), which only evaluate: one expression carrying this file's and `static_read`'s source,
joined into one module. So this file is stdlib only, and its one relative import is a single
`from .static_read import *` line, which the joining drops.
"""

import base64
import builtins
import hashlib
import heapq
import importlib.util
import itertools
import json
import keyword
import os
import re
import sys
import threading
import time
import types
import zlib

from .static_read import *  # noqa: F401,F403 (one line: the snippet drops it)

DEFAULT_BUDGET_S = 0.2
_IDENT = r"[^\W\d]\w*"
_CHAIN_AT_END = re.compile(rf"({_IDENT}(?:\s*\.\s*{_IDENT})*)\s*$")
_PARTIAL_AT_END = re.compile(rf"(?:{_IDENT})?$")


class _Deadline:
    def __init__(self, budget_s):
        self.end = time.perf_counter() + budget_s
        self.hit = False

    def passed(self):
        if not self.hit and time.perf_counter() > self.end:
            self.hit = True
        return self.hit



# ---- the text around the cursor ---------------------------------------------------------------


def lexical_state(text):
    """(state, string_start, quote, open_brackets) at the end of `text`: state is "code",
    "comment" or "string" (then string_start and quote say where the unterminated string opens);
    open_brackets lists the unclosed brackets as (char, index), innermost last."""
    i, n = 0, len(text)
    open_parens = []
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            if j < 0:
                return "comment", i, None, open_parens
            i = j + 1
            continue
        if c in "'\"":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            start = i
            i += len(quote)
            while True:
                if i >= n:
                    return "string", start, quote, open_parens
                if text[i] == "\\":
                    i += 2
                    continue
                if text.startswith(quote, i):
                    i += len(quote)
                    break
                if text[i] == "\n" and len(quote) == 1:
                    break  # a one-line string cannot go on: the next line is code again
                i += 1
            continue
        if c in "([{":
            open_parens.append((c, i))
        elif c in ")]}" and open_parens:
            open_parens.pop()
        i += 1
    return "code", None, None, open_parens


# ---- completing -------------------------------------------------------------------------------


class _Matches:
    def __init__(self, deadline, max_matches):
        self.deadline = deadline
        self.max_matches = max_matches
        self.items = {}  # text -> type, in insertion order
        self.signatures = {}  # text -> signature text, for functions

    def add(self, text, kind, value=None, bound=False):
        if text not in self.items and len(self.items) < self.max_matches:
            self.items[text] = kind
            if kind == "function" and value is not None:
                self.signatures[text] = signature_text(value, bound)

    def full(self):
        return len(self.items) >= self.max_matches


def _visible(name, partial):
    # As IPython: private names only once the user has typed the underscore.
    return name.startswith(partial) and (partial.startswith("_") or not name.startswith("_"))


def _sort_key(name):
    return (name.startswith("__"), name.startswith("_"), name.lower(), name)


def _sorted(names, room=None):
    """The first `room` names in display order (all when None), without sorting them all."""
    if room is not None and len(names) > room:
        return heapq.nsmallest(room, names, key=_sort_key)
    return sorted(names, key=_sort_key)


def _complete_attributes(chain, partial, layers, out):
    try:
        obj = resolve_chain(chain, layers)
    except Exception:  # _Unresolved, or a layer that misbehaves
        return
    attributes = static_attributes(obj, out.deadline)
    # What was gathered before the deadline is offered even when the deadline has passed.
    for name in _sorted([n for n in attributes if _visible(n, partial)], out.max_matches):
        raw = attributes[name]
        # A function from the class, reached through an instance, is a bound method.
        bound = not _is_class(obj) and type(raw) is not staticmethod and (instance_dict(obj) or {}).get(name) is not raw
        out.add(name, _attribute_kind(obj, name, raw), raw, bound)


def _real_dict(value):
    """Only dicts whose keys are what dict itself stores: no overridden keys/__iter__."""
    t = type(value)
    if t is dict:
        return True
    if not issubclass(t, dict):
        return False
    try:
        return _class_lookup(t, "keys") is dict.keys and _class_lookup(t, "__iter__") is dict.__iter__
    except _Unresolved:
        return False


def _escape_key(key, quote):
    return key.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")


def _complete_dict_keys(chain, partial, quote, after_cursor, layers, out):
    try:
        mapping = resolve_chain(chain, layers)
    except Exception:  # _Unresolved, or a layer that misbehaves
        return
    if not _real_dict(mapping):
        return
    # Close the string and the subscript, unless the user already has.
    closing = "" if after_cursor.startswith(quote) else quote + "]"
    found = []
    for i, key in enumerate(dict.keys(mapping)):
        if i % _CHECK_EVERY == 0 and out.deadline.passed():
            break
        if type(key) is str and key.startswith(partial):
            found.append(key)
            if len(found) >= out.max_matches:
                break
    for key in _sorted(found):
        out.add(_escape_key(key, quote) + closing, "dict key")


def _parameter_names(func):
    """Keyword-usable parameter names of a plain Python function, method or class, from code
    objects only (no inspect.signature: it reads `__signature__`/`__wrapped__` dynamically)."""
    skip = 0
    if type(func) is types.MethodType:
        func, skip = func.__func__, 1
    elif _is_class(func):
        try:
            func, skip = _class_lookup(func, "__init__"), 1
        except _Unresolved:
            return []
    if type(func) is not types.FunctionType:
        return []
    code = func.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return [n for n in names[max(skip, code.co_posonlyargcount) :]]


def _default_text(value):
    # Only values whose repr is the interpreter's own: a default's __repr__ is user code.
    if type(value) in (int, float, bool, type(None)) or (type(value) in (str, bytes) and len(value) <= 40):
        return repr(value)
    return "…"


def signature_text(value, bound=False):
    """`(a, b=1, *, flag=False)` read from code objects or a builtin's `__text_signature__`;
    "" when that cannot be done without running code. `bound`: the first parameter is given
    (a function read from a class, reached through an instance)."""
    try:
        t = type(value)
        if t is classmethod:
            value, t, bound = value.__func__, type(value.__func__), True
        elif t is staticmethod:
            value, t = value.__func__, type(value.__func__)
        if t is types.MethodType:
            value, t, bound = value.__func__, type(value.__func__), True
        if t is types.FunctionType:
            code = value.__code__
            defaults = value.__defaults__ or ()
            kwdefaults = value.__kwdefaults__ or {}
            positional = code.co_varnames[: code.co_argcount]
            first_default = len(positional) - len(defaults)
            parts = []
            for i, name in enumerate(positional):
                if bound and i == 0:
                    continue
                parts.append(f"{name}={_default_text(defaults[i - first_default])}" if i >= first_default else name)
                if i + 1 == code.co_posonlyargcount and parts:
                    parts.append("/")
            index = code.co_argcount + code.co_kwonlyargcount
            if code.co_flags & 0x04:  # CO_VARARGS
                parts.append("*" + code.co_varnames[index])
                index += 1
            elif code.co_kwonlyargcount:
                parts.append("*")
            for name in code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]:
                parts.append(f"{name}={_default_text(kwdefaults[name])}" if name in kwdefaults else name)
            if code.co_flags & 0x08:  # CO_VARKEYWORDS
                parts.append("**" + code.co_varnames[index])
            return "(" + ", ".join(parts) + ")"
        if t in _FUNCTION_TYPES:
            text = value.__text_signature__  # a C getset on the interpreter's own callables
            if type(text) is str and text.startswith("(") and text.endswith(")"):
                parts = [part for part in text[1:-1].split(", ") if part and not part.startswith("$")]
                if len(parts) < len(text[1:-1].split(", ")) and parts[:1] == ["/"]:
                    parts = parts[1:]  # `($self, /)`: the bound argument was the only positional one
                return "(" + ", ".join(parts) + ")"
    except Exception:
        pass
    return ""


def _complete_names(partial, layers, call_chain, out):
    if call_chain:
        try:
            func = resolve_chain(call_chain, layers)
        except Exception:  # _Unresolved, or a layer that misbehaves
            func = None
        if func is not None:
            for name in _parameter_names(func):
                if name.startswith(partial):
                    out.add(name + "=", "param")
    all_layers = list(layers) + [builtins_layer(layers)]
    for layer in all_layers:
        names = []
        try:
            for i, name in enumerate(layer):
                if i % _CHECK_EVERY == 0 and out.deadline.passed():
                    break
                if type(name) is str and _visible(name, partial):
                    names.append(name)
        except Exception:
            continue
        for name in _sorted(names, out.max_matches - len(out.items)):
            if out.full():
                break
            if name not in out.items:
                try:
                    value = layer[name]
                    out.add(name, kind_of(value), value)
                except Exception:
                    continue
    for word in keyword.kwlist:
        if word.startswith(partial):
            out.add(word, "keyword")


# ---- Jedi, when the program has it ---------------------------------------------------------------

_jedi_busy = threading.Lock()
_PRELUDE_NAMES = 500


def _jedi_prelude(layers):
    """Source lines that tell Jedi what the names are without handing it the objects (Jedi's
    Interpreter calls dir(), iter() and getattr() on live objects): modules become imports of
    the already-imported module, other values an annotation with their class."""
    lines, seen = [], set()
    for layer in layers:
        try:
            names = [n for n in itertools.islice(layer, _PRELUDE_NAMES) if type(n) is str and n.isidentifier()]
        except Exception:
            continue
        for name in names:
            if name in seen or keyword.iskeyword(name):
                continue
            seen.add(name)
            try:
                value = layer[name]
            except Exception:
                continue
            t = type(value)
            if issubclass(t, types.ModuleType):
                module = (instance_dict(value) or {}).get("__name__")
                if type(module) is str and sys.modules.get(module) is value and all(
                    part.isidentifier() for part in module.split(".")
                ):
                    lines.append(f"import {module} as {name}")
                continue
            cls = value if issubclass(t, type) else t
            module, qualname = _type_module(cls), type.__dict__["__qualname__"].__get__(cls)
            if type(module) is not str or "<" in qualname or module == "__main__" or module not in sys.modules:
                continue
            if module == "builtins" and qualname.partition(".")[0] not in vars(builtins):
                continue  # `function`, `NoneType`: types builtins does not name
            alias = f"_breakroom_t{len(lines)}"
            top, _, rest = qualname.partition(".")
            if module == "builtins":
                lines.append(f"{alias} = {top}")
            else:
                lines.append(f"from {module} import {top} as {alias}")
            target = alias + ("." + rest if rest else "")
            lines.append(f"{name} = {target}" if cls is value else f"{name}: {target}")
    return "\n".join(lines) + "\n" if lines else ""


def _jedi_matches(code, cursor_pos, layers, deadline):
    """[(name, type, signature)] from Jedi's static analysis of the input, or [] when Jedi is
    missing, busy (one run at a time), or not done within the budget: a run that overruns goes
    on in its daemon thread and leaves Jedi's caches warm for the next completion."""
    if "import" in code or not _jedi_busy.acquire(blocking=False):
        return []  # Jedi would import what an `import` names, running its module code
    found, done = [], threading.Event()

    def run():
        try:
            # lazy: an optional package, heavy to import, for the few completions that need it
            import jedi
            from jedi.api.environment import InterpreterEnvironment

            prelude = _jedi_prelude(layers)
            text = prelude + code[:cursor_pos]
            line, column = text.count("\n") + 1, len(text) - (text.rfind("\n") + 1)
            script = jedi.Script(prelude + code, environment=InterpreterEnvironment())
            for completion in script.complete(line, column):
                found.append((completion.name, completion.type, ""))
        except Exception:
            pass
        finally:
            _jedi_busy.release()
            done.set()

    threading.Thread(target=run, name="breakroom-jedi", daemon=True).start()
    done.wait(max(0.0, deadline.end - time.perf_counter()))
    return list(found) if done.is_set() else []


def _jedi_available():
    if "jedi" in sys.modules:
        return True
    return importlib.util.find_spec("jedi") is not None


def complete(code, cursor_pos=None, namespace_layers=(), budget_s=DEFAULT_BUDGET_S, max_matches=1000, use_jedi=True):
    """Completions at `cursor_pos` (code points; default: end of code) from `namespace_layers`
    (mappings, innermost first: session names, locals, globals; builtins are added). Answers
    with what it has once `budget_s` is spent (metadata.timed_out).

    When the static reading finds nothing (a call's result, a literal: `os.getcwd().up`) and
    `use_jedi` and Jedi is importable, Jedi's static analysis may answer within the budget."""
    deadline = _Deadline(budget_s)
    if cursor_pos is None or cursor_pos > len(code):
        cursor_pos = len(code)
    cursor_pos = max(0, cursor_pos)
    text = code[:cursor_pos]
    layers = [layer for layer in namespace_layers if layer is not None]
    layers = [layer for i, layer in enumerate(layers) if all(layer is not other for other in layers[:i])]
    out = _Matches(deadline, max_matches)
    start = cursor_pos

    state, string_start, quote, open_parens = lexical_state(text)
    if state == "string":
        # Only one completion happens inside a string: a dict key after `d["` / `d['`.
        before = text[:string_start]
        if len(quote) == 1 and before.rstrip().endswith("["):
            chain = _CHAIN_AT_END.search(before.rstrip()[:-1])
            partial = text[string_start + 1 :]
            if chain and not _preceded_by_dot(before, chain.start()) and "\\" not in partial:
                start = cursor_pos - len(partial)
                _complete_dict_keys(chain.group(1), partial, quote, code[cursor_pos:], layers, out)
    elif state == "code":
        partial = _PARTIAL_AT_END.search(text).group(0)
        start = cursor_pos - len(partial)
        before = text[:start]
        stripped = before.rstrip()
        if stripped.endswith("."):
            chain = _CHAIN_AT_END.search(stripped[:-1])
            if chain and not _preceded_by_dot(stripped[:-1], chain.start()) and not _is_number(chain.group(1)):
                _complete_attributes(chain.group(1), partial, layers, out)
        elif not (before and (before[-1].isdigit() or before[-1] in "'\"")):
            call_chain = None
            if open_parens and open_parens[-1][0] == "(" and (stripped.endswith("(") or stripped.endswith(",")):
                paren = open_parens[-1][1]
                found = _CHAIN_AT_END.search(text[:paren])
                if found and not _preceded_by_dot(text[:paren], found.start()):
                    call_chain = found.group(1)
            _complete_names(partial, layers, call_chain, out)

    if not out.items and state == "code" and use_jedi and not deadline.passed() and _jedi_available():
        for name, kind, signature in _jedi_matches(code, cursor_pos, layers, deadline):
            if name.startswith(partial):
                out.add(name, kind)
                out.signatures[name] = signature
        deadline.passed()

    matches = list(out.items)
    kinds = list(out.items.values())
    return {
        "status": "ok",
        "matches": matches,
        "cursor_start": start,
        "cursor_end": cursor_pos,
        "metadata": {
            "types": kinds,
            "_jupyter_types_experimental": [
                {"start": start, "end": cursor_pos, "text": m, "type": k, "signature": out.signatures.get(m, "")}
                for m, k in zip(matches, kinds)
            ],
            "timed_out": deadline.hit,
        },
    }


def _preceded_by_dot(text, index):
    """`x().a.b`: a chain that hangs off a call or subscript cannot be read without running it."""
    head = text[:index].rstrip()
    return head.endswith(".") or head.endswith(")") or head.endswith("]")


def _is_number(chain):
    return chain[:1].isdigit()


# ---- the snippet for clients without this package ---------------------------------------------


def snippet_reply(code, cursor_pos, frame):
    """What the completion snippet evaluates to: the reply as JSON text that has no `'`, so its
    repr is exactly "'" + text.replace("\\\\", "\\\\\\\\") + "'" (see completion_snippet)."""
    layers = [frame.f_locals, frame.f_globals]
    try:
        reply = complete(code, cursor_pos, layers)
    except Exception as exc:  # a completion must never break the client's eval loop
        reply = {"status": "error", "ename": type(exc).__name__, "evalue": str(exc), "matches": [],
                 "cursor_start": cursor_pos, "cursor_end": cursor_pos, "metadata": {}}
    return json.dumps(reply, ensure_ascii=True, separators=(",", ":")).replace("'", "\\u0027")


def _own_source():
    """The completer's source as one module: `static_read`'s, then this file's, without the
    relative import that joins them."""
    parts = []
    here = os.path.dirname(__file__)
    for path in (os.path.join(here, "static_read.py"), os.path.join(here, "complete.py")):
        with open(path, encoding="utf-8") as f:
            parts.append("".join(line for line in f if not line.startswith("from .")))
    return "\n".join(parts)


_SNIPPET_PARTS = None


def _snippet_parts():
    """(module name, compressed source literal): the name changes with the source, so a process
    never reuses a completer from an older snippet."""
    global _SNIPPET_PARTS
    if _SNIPPET_PARTS is None:
        source = _own_source().encode("utf-8")
        name = "_breakroom_completer_" + hashlib.sha256(source).hexdigest()[:16]
        packed = base64.b64encode(zlib.compress(source, 9)).decode("ascii")
        _SNIPPET_PARTS = (name, packed)
    return _SNIPPET_PARTS


def completion_snippet(code, cursor_pos=None):
    """One Python expression that, evaluated by a plain eval-based REPL in the paused frame (an
    unchanged cideldill client), evaluates to the completion reply as JSON text.

    It carries the completer's source (zlib + base64), loads it once per process as a module named
    after the source's hash in sys.modules (later snippets reuse it: no recompiling), and passes
    it the eval's own frame, whose f_locals/f_globals are the REPL's namespaces. It binds no name
    in the REPL's namespace. The eval's `result` is the repr of the JSON text; decode it with
    `decode_snippet_result` (the text has no `'`, so the repr only doubles backslashes)."""
    if cursor_pos is None:
        cursor_pos = len(code)
    name, packed = _snippet_parts()
    loader = (
        "(lambda m: (exec(compile(__import__('zlib').decompress(__import__('base64').b64decode("
        f"'{packed}')), '<breakroom completer>', 'exec'), m.__dict__), m)[1])"
        f"(__import__('types').ModuleType('{name}'))"
    )
    return (
        f"(lambda sys: (sys.modules.get('{name}') or sys.modules.setdefault('{name}', {loader}))"
        f".snippet_reply({code!r}, {int(cursor_pos)}, sys._getframe(1)))(__import__('sys'))"
    )


def decode_snippet_result(result):
    """The reply dict from an eval's `result` text (the repr of the snippet's JSON string)."""
    if len(result) < 2 or result[0] != "'" or result[-1] != "'":
        raise ValueError(f"not a completion snippet result: {result[:80]!r}")
    return json.loads(result[1:-1].replace("\\\\", "\\"))
