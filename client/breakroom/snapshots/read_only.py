"""Read-only by construction (issue 34): what a snapshot or log breakpoint evaluates may look at
the program, never change it.

Two layers, because each misses what the other sees:

* `check(text, part)`: a static look at the expression's syntax tree, when the breakpoint is set.
  No assignment, `del`, `import`, `lambda`, `yield`, `await` or `:=`; calls only to pure builtins
  by bare name and to pure methods of builtin types by attribute name. It cannot know what `x.y`
  or `a == b` will run.
* `guarded_eval(code, ...)`: at the hit, a profile function that raises on the first Python
  function the expression would enter (a property, a `__len__`, `__eq__`, `__format__` written in
  Python, a user function shadowing `len`...). Code compiled by `compile_read_only` carries the
  pseudo-filename FILENAME, so our own comprehensions and generator expressions are let through.

The profile function only fires in a thread that is not itself inside a trace or monitoring
callback (CPython suspends those events there), so callers run guarded evaluations on the
snapshot worker thread (`offthread`), never inside the line engine's callback.
"""

import ast
import os
import sys

FILENAME = "<breakroom read-only>"

# Builtins that neither change their arguments nor reach outside the process. Deliberately not:
# next/iter (advance a program's iterator), map/filter (call what they are given), print/open/
# input/exec/eval/compile/setattr/delattr/globals/locals/vars/breakpoint/__import__.
SAFE_BUILTINS = frozenset(
    "abs all any ascii bin bool bytes callable chr complex dict divmod enumerate float format frozenset "
    "getattr hasattr hash hex id int isinstance issubclass len list max min oct ord pow range repr "
    "reversed round set slice sorted str sum tuple type zip".split()
)

# Methods of builtin types that return something new and change nothing. A user class with a
# Python method of one of these names is stopped at the hit by the runtime guard.
SAFE_METHODS = frozenset(
    # dict / list / tuple / set / frozenset
    "get keys values items copy count index issubset issuperset isdisjoint union intersection "
    "difference symmetric_difference "
    # str / bytes
    "startswith endswith find rfind rindex lower upper casefold title capitalize swapcase strip lstrip "
    "rstrip split rsplit splitlines partition rpartition join replace format format_map zfill center "
    "ljust rjust expandtabs encode decode removeprefix removesuffix isalpha isalnum isascii isdecimal "
    "isdigit isidentifier islower isnumeric isprintable isspace istitle isupper hex "
    # numbers / datetime
    "bit_length bit_count conjugate as_integer_ratio is_integer isoformat strftime timestamp "
    "total_seconds weekday isoweekday date time utcoffset".split()
)

# Keyword arguments that name a function the builtin calls (`sorted(x, key=...)`): only what is
# itself allowed, so `key=log.append` cannot mutate through the back door.
_CALLBACK_KEYWORDS = ("key", "default")

_REFUSED = {
    ast.NamedExpr: "`:=` assigns",
    ast.Lambda: "lambda is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.Await: "await is not allowed",
}
_STATEMENTS = {
    ast.Assign: "assignment",
    ast.AugAssign: "assignment",
    ast.AnnAssign: "assignment",
    ast.Delete: "del",
    ast.Import: "import",
    ast.ImportFrom: "import",
}


class NotReadOnly(ValueError):
    """An expression refused by the static check; the text names the part and the reason."""


class Blocked(BaseException):
    """Raised by the guard inside a guarded evaluation: a BaseException so that code cannot catch
    it with `except Exception` (nothing of the program should run, but a C type's slot might)."""


def _why_not(tree):
    """The first reason `tree` (an expression) is not read-only, or None."""
    for node in ast.walk(tree):
        for kind, reason in _REFUSED.items():
            if isinstance(node, kind):
                return reason
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)) and not isinstance(node.ctx, ast.Load):
            if not (isinstance(node, ast.Name) and _is_comprehension_target(tree, node)):
                return "assignment is not allowed"
        if isinstance(node, ast.Call):
            reason = _call_reason(node)
            if reason:
                return reason
    return None


def _is_comprehension_target(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            if any(n is name for n in ast.walk(node.target)):
                return True
    return False


def _call_reason(call):
    func = call.func
    if isinstance(func, ast.Name):
        if func.id not in SAFE_BUILTINS:
            return f"calls {func.id}(), which is not a pure builtin"
    elif isinstance(func, ast.Attribute):
        if func.attr not in SAFE_METHODS:
            return f"calls {_text(func)}(), which is not a pure method of a builtin type"
    else:
        return f"calls {_text(func)}: only pure builtins and methods may be called"
    for keyword in call.keywords:
        if keyword.arg in _CALLBACK_KEYWORDS and not _is_safe_callable(keyword.value):
            return f"passes {keyword.arg}={_text(keyword.value)}, which is not a pure builtin or method"
    return None


def _is_safe_callable(node):
    if isinstance(node, ast.Name):
        return node.id in SAFE_BUILTINS or node.id == "None"
    if isinstance(node, ast.Attribute):
        return node.attr in SAFE_METHODS
    return isinstance(node, ast.Constant)


def _text(node, limit=80):
    try:
        text = ast.unparse(node)
    except Exception:
        text = type(node).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check(text, part):
    """Raises NotReadOnly("<part> '<text>': <why>") unless `text` is one read-only expression.
    A SyntaxError is left to the caller's compile (it says it better)."""
    try:
        module = ast.parse(text, mode="exec")
    except SyntaxError:
        return
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        raise NotReadOnly(f"{part} {_cut(text)!r}: {type(exc).__name__}") from None
    if len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):
        statement = module.body[0] if module.body else None
        what = _STATEMENTS.get(type(statement), "a statement")
        raise NotReadOnly(f"{part} {_cut(text)!r}: {what} is not allowed, only an expression")
    reason = _why_not(module.body[0].value)
    if reason:
        raise NotReadOnly(f"{part} {_cut(text)!r}: {reason}")


def check_log_message(message):
    """Each `{…}` part of a log template, checked on its own so the refusal names it."""
    try:
        tree = ast.parse("f" + repr(message), mode="eval")
    except SyntaxError:
        return
    except (ValueError, RecursionError, MemoryError) as exc:
        raise NotReadOnly(f"log_message {_cut(message)!r}: {type(exc).__name__}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue):
            reason = _why_not(node.value)
            if reason:
                raise NotReadOnly(f"log_message part {{{_text(node.value)}}}: {reason}")


def _cut(text, limit=120):
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compile_read_only(text, mode="eval"):
    """Code the guard recognises as ours (its comprehensions run, nothing else of Python)."""
    return compile(text, FILENAME, mode)


def _guard(frame, event, arg):
    if event == "call":
        code = frame.f_code
        if code.co_filename != FILENAME:
            raise Blocked(f"would run {code.co_qualname} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})")
    return None


def guarded_eval(code, globals_, locals_, convert=None):
    """eval(code) with no Python function of the program allowed to start; `convert` (e.g. bool)
    runs under the same guard, since `__bool__` is the program's code too. Raises Blocked with
    `would run C.p (app.py:12)`, or whatever the expression raised. The previous profile
    function (a profiler's, say) is put back whatever happens."""
    previous = sys.getprofile()
    sys.setprofile(_guard)
    try:
        value = eval(code, globals_, locals_)
        if convert is not None:
            value = convert(value)
        return value
    finally:
        sys.setprofile(previous)
