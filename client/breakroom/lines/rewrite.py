"""Line breakpoints as code: a module's source recompiled with a hook call at each armed line.

Python 3.11 has no cheap per-line event (sys.monitoring is 3.12+) and a global sys.settrace
costs every call of the program. So a line breakpoint is compiled in, as pydevd's frame-eval
mode does with bytecode: the module's source is parsed, a statement `__breakroom_line__(LINE)`
is inserted before the statement at LINE with LINE as its own line number (so every line
number, traceback and f_lineno stays what it was), the module is compiled again, and the
function whose code holds the hook is found in the new module code by (co_qualname,
co_firstlineno). Functions that do not hold a hook keep their code and pay nothing.

Where a line's hook goes:
- a line without code (blank, comment, `else:`, docstring) moves to the next line with code,
  as the compiler's own line table says;
- a statement's first line: before that statement (the outermost one starting there:
  `if a: b` pauses before `if`);
- a loop header (`for`, `while`) or an `except`/`case` line: at the top of its body, so the
  breakpoint fires on each pass (with the loop variable set) or when the handler is entered;
- a continuation line of a multi-line statement: before that statement, which is reported as
  the line the breakpoint moved to.
"""

import ast
import dis

from ..snapshots import gates
from ..snapshots.gates import CLOCK_NAME, GATES_NAME, NEXT_NAME, SKIPS_NAME

HOOK_NAME = "__breakroom_line__"
# In an `async def`, the hook is awaited: `await __breakroom_line_async__(LINE)`. A pause there
# suspends the coroutine's task only (issue 51): the event loop runs its other tasks meanwhile.
ASYNC_HOOK_NAME = "__breakroom_line_async__"
HOOK_NAMES = (HOOK_NAME, ASYNC_HOOK_NAME)
# Before every statement of an `async def` Breakroom rewrote: `if __breakroom_steps__: await
# __breakroom_step_async__(LINE)`, so a step over stops at the next line with its task suspended
# (issue 51). While no coroutine steps, it costs one builtin lookup.
STEP_HOOK_NAME = "__breakroom_step_async__"
STEPS_NAME = "__breakroom_steps__"
# Raised by an inline condition that holds, so that the false case runs no call at all.
HIT_NAME = "__BreakroomConditionHeld__"

# What runs before a function's first line: not a place a breakpoint can stop.
_PROLOGUE_END = "RESUME"


class NoCodeThere(ValueError):
    """A line at or after which the file has no code."""


def _codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield from _codes(const)


def lines_with_code(module_code, nested=True):
    """Every line the compiler put an instruction on (in the nested codes too, unless not
    `nested`), function prologues left out."""
    lines = set()
    for code in _codes(module_code) if nested else [module_code]:
        past_prologue = code.co_name == "<module>"
        for ins in dis.get_instructions(code):
            if not past_prologue:
                past_prologue = ins.opname == _PROLOGUE_END
                continue
            line = ins.positions.lineno if ins.positions else None
            if line:
                lines.add(line)
    return lines


class _Anchor:
    """Where a hook for a line goes: `body.insert(index, hook)`."""

    def __init__(self, first_line, depth, body, index, in_async=False):
        self.first_line = first_line
        self.depth = depth
        self.body = body
        self.index = index
        self.in_async = in_async  # directly in an `async def`'s body: the hook is awaited


def _anchors(body, depth, found, in_async=False):
    for index, stmt in enumerate(body):
        decorators = getattr(stmt, "decorator_list", None) or []
        first_line = min([stmt.lineno] + [d.lineno for d in decorators])
        end_line = getattr(stmt, "end_lineno", None) or stmt.lineno
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            anchor = _Anchor(first_line, depth, stmt.body, 0, in_async)
        else:
            anchor = _Anchor(first_line, depth, body, index, in_async)
        anchor.end_line = end_line
        found.append(anchor)
        # A function's body is its own: awaited hooks in an `async def`'s, plain ones elsewhere.
        if isinstance(stmt, ast.AsyncFunctionDef):
            inner = True
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            inner = False
        else:
            inner = in_async
        for field in ("body", "orelse", "finalbody"):
            child = getattr(stmt, field, None)
            if isinstance(child, list) and child and isinstance(child[0], ast.stmt):
                _anchors(child, depth + 1, found, inner)
        for handler in getattr(stmt, "handlers", None) or []:
            header = _Anchor(handler.lineno, depth + 1, handler.body, 0, in_async)
            header.end_line = handler.lineno
            found.append(header)
            _anchors(handler.body, depth + 2, found, in_async)
        for case in getattr(stmt, "cases", None) or []:
            header = _Anchor(case.pattern.lineno, depth + 1, case.body, 0, in_async)
            header.end_line = case.pattern.lineno
            found.append(header)
            _anchors(case.body, depth + 2, found, in_async)


class ModuleSource:
    """One source file: its syntax tree, the lines with code, and its compiled forms."""

    def __init__(self, source, filename):
        self.source = source
        self.filename = filename
        self.original_code = compile(source, filename, "exec", dont_inherit=True)
        self.code_lines = lines_with_code(self.original_code)

    def resolve(self, line):
        """The line a breakpoint asked for at `line` lands on (see the module's docstring)."""
        at_or_after = [n for n in self.code_lines if n >= line]
        if not at_or_after:
            raise NoCodeThere(f"{self.filename}: no code at or after line {line}")
        anchors = []
        _anchors(ast.parse(self.source, self.filename).body, 0, anchors)
        return _place(anchors, min(at_or_after), self.filename)[0]

    def compile_with_hooks(self, lines, conditions=None):
        """The module's code with a hook before the statement of each of `lines` (lines that
        `resolve` returned). `conditions` ({line: [expression, …]}) compiles those lines'
        conditions into the function itself, so that a false one costs what the expression
        costs:

            try:
                if (c1) or (c2): raise __BreakroomConditionHeld__
            except Exception:          # held, or raised: the hook decides and reports
                __breakroom_line__(LINE)

        When that would give a function another free variable (a condition naming an
        enclosing function's variable the function does not use), the code could not be
        swapped in: those lines fall back to the plain hook."""
        conditions = dict(conditions or {})
        code = self._compile(lines, conditions)
        if conditions and not self._same_free_variables(code):
            code = self._compile(lines, {})
        return code

    def _compile(self, lines, conditions):
        tree = ast.parse(self.source, self.filename)
        anchors = []
        _anchors(tree.body, 0, anchors)
        placements = [(*_place(anchors, n, self.filename)[::-1], 0) for n in set(lines)]
        placements += [(anchor, anchor.first_line, 1) for anchor in anchors if anchor.in_async]
        # Inserting shifts later indexes of the same body: insert from the back. At one place,
        # the step hook goes before the breakpoint's (inserted last, it ends up first).
        placements.sort(key=lambda p: (-p[0].index, -p[1], p[2]))
        for anchor, line, step in placements:
            if step:
                hook = _step_hook_statement(line)
            else:
                hook = _hook_statement(line, conditions.get(line), self.filename, anchor.in_async)
            anchor.body.insert(anchor.index, hook)
        return compile(tree, self.filename, "exec", dont_inherit=True)

    def _same_free_variables(self, code):
        before = {code_key(c): c.co_freevars for c in _codes(self.original_code)}
        return all(before.get(code_key(c), c.co_freevars) == c.co_freevars for c in _codes(code))


def _place(anchors, target, filename):
    """(line, anchor) for a line with code: the outermost statement starting there, else the
    innermost statement it continues (whose first line it moves to)."""
    starting = [a for a in anchors if a.first_line == target]
    if starting:
        return target, min(starting, key=lambda a: a.depth)
    covering = [a for a in anchors if a.first_line <= target <= a.end_line]
    if not covering:
        raise NoCodeThere(f"{filename}: no statement at line {target}")
    anchor = max(covering, key=lambda a: a.depth)
    return anchor.first_line, anchor


def _hook_statement(line, conditions=None, filename=None, in_async=False):
    """The hook for `line`, behind its gate (snapshots.gates): while the gate is closed the line
    costs a clock read and a counted skip, and no call into the engine."""
    hook = _bare_hook_statement(line, conditions, in_async)
    if filename is not None:
        slot = gates.shared().slot((filename, line))
        stmt = ast.parse(
            f"if {GATES_NAME}[{slot}] <= {CLOCK_NAME}():\n    pass\n"
            f"else:\n    {NEXT_NAME}({SKIPS_NAME}[{slot}])\n"
        ).body[0]
        stmt.body = [hook]
        hook = stmt
    for node in ast.walk(hook):  # every part of the hook is on the breakpoint's own line
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return hook


def _step_hook_statement(line):
    stmt = ast.parse(f"if {STEPS_NAME}:\n    await {STEP_HOOK_NAME}({line})\n").body[0]
    for node in ast.walk(stmt):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return stmt


def _bare_hook_statement(line, conditions, in_async=False):
    call = ast.Call(func=ast.Name(id=ASYNC_HOOK_NAME if in_async else HOOK_NAME, ctx=ast.Load()),
                    args=[ast.Constant(line)], keywords=[])
    hook = ast.Expr(ast.Await(call) if in_async else call)
    if conditions:
        # Each condition parsed on its own (as the breakpoint compiled it), so a comment or a
        # newline in one cannot reach into the statement around it.
        tests = [ast.parse(c.strip(), mode="eval").body for c in conditions]
        test = tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.Or(), values=tests)
        stmt = ast.parse(f"try:\n    if _: raise {HIT_NAME}\nexcept Exception:\n    pass\n").body[0]
        stmt.body[0].test = test
        stmt.handlers[0].body = [hook]
    else:
        stmt = hook
    return stmt


def code_key(code):
    return (getattr(code, "co_qualname", code.co_name), code.co_firstlineno)


def codes_by_key(module_code):
    """Every function's code in a module's code, by (qualified name, first line)."""
    return {code_key(c): c for c in _codes(module_code) if c.co_name != "<module>"}


def hooked_keys(module_code):
    """The keys of the codes that hold a hook, and of the codes around them (whose constants
    make the closures that would otherwise get the old code)."""
    keys = set()

    def visit(code):
        holds = HOOK_NAME in code.co_names or ASYNC_HOOK_NAME in code.co_names
        for const in code.co_consts:
            if hasattr(const, "co_code") and visit(const):
                holds = True
        if holds and code.co_name != "<module>":
            keys.add(code_key(code))
        return holds

    visit(module_code)
    return keys
