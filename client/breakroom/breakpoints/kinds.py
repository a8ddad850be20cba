"""Breakpoint kinds and deciding a hit (issue 18).

A `BreakpointSpec` is one breakpoint as the server's REST API shapes it:

    {"kind": "function", "function_name": ...}
    {"kind": "line", "file": ..., "line": ...}
    {"kind": "error", "exception_types": [...]}        # empty or missing: any exception

plus `condition`, `hit_condition`, `pattern`, `log_message`, `enabled` and `id` on each, and
(issue 34) `action` (`pause`, `log`, `snapshot`) with a snapshot's `expressions`, `capture`,
`max_hits`, `max_per_second`, `expires_at` and `where`. A log or snapshot breakpoint never stops
the program and is read-only: its condition, log template and expressions pass `read_only`'s
static check when set, and are evaluated under its guard (on the snapshot worker thread).
`spec.decide(...)` turns one arrival at the breakpoint into a `Decision`: pause, log, skip,
or a condition that raised. Deciding never raises for anything the user's expressions do.

Order of the checks (as a debugger's users know it from the Debug Adapter Protocol): disabled
breakpoints skip; then the condition (false skips); then the pattern (no match skips); only
then is the hit counted, and the hit condition is checked against that count; a logpoint then
logs instead of pausing.
"""

import ast
import itertools
import re
import threading

from ..protocol.constants import (
    BREAKPOINT_ERROR,
    BREAKPOINT_FUNCTION,
    BREAKPOINT_LINE,
    BREAKPOINT_LOG,
    BREAKPOINT_PAUSE,
    BREAKPOINT_SNAPSHOT,
)
from .. import redaction
from ..protocol.serialize import safe_repr
from ..snapshots import read_only

KINDS = (BREAKPOINT_FUNCTION, BREAKPOINT_LINE, BREAKPOINT_ERROR)
ACTIONS = (BREAKPOINT_PAUSE, BREAKPOINT_LOG, BREAKPOINT_SNAPSHOT)

# What one arrival does (a `Decision`): a breakpoint's actions, or one of the two outcomes that
# only deciding has.
PAUSE = BREAKPOINT_PAUSE
LOG = BREAKPOINT_LOG
SNAPSHOT = BREAKPOINT_SNAPSHOT
SKIP = "skip"
CONDITION_ERROR = "condition_error"
MAX_EXPRESSIONS = 20
MAX_EXPRESSION_CHARS = 1000
# A snapshot breakpoint's fields the client reads but does not decide with (see _snapshots).
SNAPSHOT_FIELDS = ("capture", "max_hits", "max_per_second", "expires_at", "where")

_ids = itertools.count(1)


class BreakpointError(ValueError):
    """A breakpoint the client cannot take: says what is wrong with it."""


class HitCondition:
    """`5` (the 5th hit only), `== 5`, `>= 5`, `> 5`, `<= 5`, `< 5`, `% 10` (every 10th)."""

    _FORM = re.compile(r"^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$")

    def __init__(self, text):
        match = self._FORM.match(str(text))
        if not match:
            raise BreakpointError(f"hit condition {text!r}: expected N, == N, >= N, > N, <= N, < N or % N")
        self.text = str(text).strip()
        self.op = match.group(1) or "=="
        self.n = int(match.group(2))
        if self.op == "%" and self.n == 0:
            raise BreakpointError("hit condition '% 0': every 0th hit means nothing")

    def holds(self, hits):
        op, n = self.op, self.n
        if op == "==":
            return hits == n
        if op == ">=":
            return hits >= n
        if op == ">":
            return hits > n
        if op == "<=":
            return hits <= n
        if op == "<":
            return hits < n
        return hits % n == 0


class Decision:
    """What one arrival at a breakpoint comes to: `action` is PAUSE, LOG, SKIP or
    CONDITION_ERROR; `message` is a logpoint's text, `error` a condition's exception;
    `hit_count` the breakpoint's count after this arrival (None when it did not count)."""

    __slots__ = ("action", "spec", "hit_count", "message", "error", "reason")

    def __init__(self, action, spec, hit_count, message=None, error=None, reason=""):
        self.action = action
        self.spec = spec
        self.hit_count = hit_count
        self.message = message
        self.error = error
        self.reason = reason  # why it matched or was skipped, for the event log

    def wire(self):
        """The `breakpoint_hit` / `log` event's fields."""
        body = {
            "breakpoint_id": self.spec.id,
            "kind": self.spec.kind,
            "action": self.action,
            "hit_count": self.hit_count,
            "reason": self.reason,
        }
        if self.message is not None:
            body["message"] = self.message
        if self.error is not None:
            body["error"] = redaction.text(self.error)  # a condition's exception may quote a value
        return body

    def __repr__(self):
        return f"Decision({self.action!r}, hit_count={self.hit_count}, reason={self.reason!r})"


def _error_text(exc):
    return f"{type(exc).__name__}: {exc}"


def arguments_text(frame):
    """The repr a pattern is matched against, for a frame: its function's parameters as they
    are now, `name=repr, …` (a call's arguments by name)."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    local_vars = frame.f_locals
    return ", ".join(f"{name}={safe_repr(local_vars[name], 500)}" for name in code.co_varnames[:count] if name in local_vars)


class BreakpointSpec:
    """One breakpoint of any kind, with its options and its hit count."""

    def __init__(
        self,
        kind,
        *,
        function_name=None,
        file=None,
        line=None,
        exception_types=None,
        condition=None,
        hit_condition=None,
        pattern=None,
        log_message=None,
        enabled=True,
        id=None,
        action=None,
        expressions=None,
        extras=None,
    ):
        if kind not in KINDS:
            raise BreakpointError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
        self.kind = kind
        self.id = str(id) if id is not None else f"bp-{next(_ids)}"
        self.function_name = function_name
        self.file = file
        self.line = line
        self.exception_types = list(exception_types or [])
        if kind == BREAKPOINT_FUNCTION and not function_name:
            raise BreakpointError("a function breakpoint needs function_name")
        if kind == BREAKPOINT_LINE:
            if not file:
                raise BreakpointError("a line breakpoint needs file")
            if isinstance(line, bool) or not isinstance(line, int) or line < 1:
                raise BreakpointError(f"a line breakpoint needs a line number ≥ 1, not {line!r}")
        self.enabled = bool(enabled)
        if action is not None and action not in ACTIONS:
            raise BreakpointError(f"action {action!r}: expected one of {', '.join(ACTIONS)}")
        if action == LOG and not log_message:
            raise BreakpointError("a log breakpoint needs log_message")
        self._action = action  # as given; None: log with a log_message, else pause
        self.extras = {k: v for k, v in (extras or {}).items() if k in SNAPSHOT_FIELDS and v is not None}
        self.expressions, self._expression_codes = self._compile_expressions(expressions)
        self.hit_count = 0
        self.last_error = None  # the last condition error, shown on the breakpoint
        self.reported_error = None  # a read-only condition's error as last reported
        # Skips that do not count as hits are the common case: made once (hit_count None).
        self._disabled = Decision(SKIP, self, None, reason="disabled")
        self._condition_false = Decision(SKIP, self, None, reason="condition false")
        self._lock = threading.Lock()
        self._set_options(condition, hit_condition, pattern, log_message)

    @property
    def action(self):
        if self._action is not None:
            return self._action
        return LOG if self.log_message else PAUSE

    @property
    def read_only(self):
        """Log and snapshot breakpoints: they must not change the program (nor stop it)."""
        return self.action != PAUSE

    def _compile_expressions(self, expressions):
        if expressions is None:
            return [], []
        if not isinstance(expressions, list) or not all(isinstance(e, str) for e in expressions):
            raise BreakpointError("expressions must be a list of strings")
        if len(expressions) > MAX_EXPRESSIONS:
            raise BreakpointError(f"at most {MAX_EXPRESSIONS} expressions, not {len(expressions)}")
        codes = []
        for i, text in enumerate(expressions, 1):
            if len(text) > MAX_EXPRESSION_CHARS:
                raise BreakpointError(f"expression {i}: longer than {MAX_EXPRESSION_CHARS} characters")
            try:
                read_only.check(text, f"expression {i}")
                codes.append((text, read_only.compile_read_only(text)))
            except read_only.NotReadOnly as exc:
                raise BreakpointError(f"not read-only: {exc}") from None
            except (SyntaxError, ValueError) as exc:
                raise BreakpointError(f"expression {i} {text!r}: {getattr(exc, 'msg', exc)}") from None
        return list(expressions), codes

    def _set_options(self, condition, hit_condition, pattern, log_message):
        # Compiled once here, so a bad expression is refused when the breakpoint is set (with
        # nothing changed) and a hit costs one eval.
        condition, pattern, log_message = condition or None, pattern or None, log_message or None
        hit_condition = None if hit_condition in (None, "") else str(hit_condition).strip()
        guarded = (self._action or (LOG if log_message else PAUSE)) != PAUSE
        if guarded:  # refused before anything changes, naming the part
            try:
                if condition:
                    read_only.check(condition, "condition")
                if log_message:
                    read_only.check_log_message(log_message)
            except read_only.NotReadOnly as exc:
                raise BreakpointError(f"not read-only: {exc}") from None
        condition_code = _compile_expression(condition, "condition", guarded)
        hits = HitCondition(hit_condition) if hit_condition else None
        try:
            pattern_re = re.compile(pattern) if pattern else None
        except re.error as exc:
            raise BreakpointError(f"pattern {pattern!r}: {exc}") from None
        log_code = _compile_expression(_log_source(log_message), "log_message", guarded) if log_message else None
        self._log_rules = redaction.rules()
        self.condition, self.hit_condition, self.pattern, self.log_message = condition, hit_condition, pattern, log_message
        self._condition_code, self._hits, self._pattern_re, self._log_code = condition_code, hits, pattern_re, log_code

    # ---- the REST form ---------------------------------------------------------------------

    @classmethod
    def from_dict(cls, body):
        """A spec from the REST JSON (`POST /api/breakpoints`)."""
        if not isinstance(body, dict):
            raise BreakpointError("a breakpoint is a JSON object")
        fields = ("function_name", "file", "line", "exception_types", "condition", "hit_condition", "pattern", "log_message", "id",
                  "action", "expressions")
        options = {k: body[k] for k in fields if body.get(k) is not None}
        extras = {k: body[k] for k in SNAPSHOT_FIELDS if body.get(k) is not None}
        return cls(body.get("kind") or BREAKPOINT_FUNCTION, enabled=body.get("enabled", True), extras=extras, **options)

    def to_dict(self):
        """The REST JSON of this breakpoint, with its hit count and last condition error."""
        body = {"id": self.id, "kind": self.kind}
        if self.kind == BREAKPOINT_FUNCTION:
            body["function_name"] = self.function_name
        elif self.kind == BREAKPOINT_LINE:
            body.update(file=self.file, line=self.line)
        else:
            body["exception_types"] = list(self.exception_types)
        body.update(
            condition=self.condition,
            hit_condition=self.hit_condition,
            pattern=self.pattern,
            log_message=self.log_message,
            enabled=self.enabled,
            hit_count=self.hit_count,
        )
        if self._action is not None:
            body["action"] = self._action
        if self.expressions:
            body["expressions"] = list(self.expressions)
        body.update(self.extras)
        if self.last_error is not None:
            body["last_error"] = self.last_error
        return body

    def update(self, changes):
        """Applies a PATCH body: options and `enabled`; the kind and location stay."""
        options = {k: getattr(self, k) for k in ("condition", "hit_condition", "pattern", "log_message")}
        options.update({k: changes[k] for k in options if k in changes})
        if self._action == LOG and not options["log_message"]:
            raise BreakpointError("a log breakpoint needs log_message")
        counted_by = self.hit_condition
        self._set_options(**options)  # raises before anything changes if an option is bad
        if self.hit_condition != counted_by:
            self.hit_count = 0  # a new hit condition counts from the start, as the server does
        if "enabled" in changes:
            self.enabled = bool(changes["enabled"])

    def __repr__(self):
        where = {
            BREAKPOINT_FUNCTION: self.function_name,
            BREAKPOINT_LINE: f"{self.file}:{self.line}",
            BREAKPOINT_ERROR: self.exception_types,
        }[self.kind]
        return f"BreakpointSpec({self.id}, {self.kind} {where})"

    # ---- deciding a hit --------------------------------------------------------------------

    def decide(self, globals_, locals_, arguments=None, condition_held=False):
        """One arrival here, evaluated in `globals_`/`locals_`; `arguments` is the text a pattern
        is matched against (a callable producing it, so it is built only when needed);
        `condition_held`: the condition was evaluated already, compiled into the code."""
        if not self.enabled:
            return self._disabled
        if self._condition_code is not None and not condition_held:
            if self.read_only:
                return self._decide_read_only(globals_, locals_, arguments)
            try:
                holds = bool(eval(self._condition_code, globals_, locals_))
            except Exception as exc:  # the program goes on; the error is shown, not swallowed
                error = _error_text(exc)
                with self._lock:
                    self.hit_count += 1
                    self.last_error = error
                    count = self.hit_count
                return Decision(CONDITION_ERROR, self, count, error=error, reason=f"condition {self.condition!r} raised")
            if not holds:
                return self._condition_false
        return self._after_condition(globals_, locals_, arguments)

    def _decide_read_only(self, globals_, locals_, arguments):
        """The condition under the read-only guard. Blocked or raising, it counts as false: the
        error is kept (and reported) but a log or snapshot breakpoint never pauses."""
        try:
            holds = read_only.guarded_eval(self._condition_code, globals_, locals_, convert=bool)
        except (Exception, read_only.Blocked) as exc:
            error = str(exc) if isinstance(exc, read_only.Blocked) else _error_text(exc)
            self.last_error = error
            return Decision(CONDITION_ERROR, self, None, error=error, reason=f"condition {self.condition!r} failed")
        if not holds:
            return self._condition_false
        return self._after_condition(globals_, locals_, arguments)

    def _after_condition(self, globals_, locals_, arguments):
        if self._pattern_re is not None:
            text = arguments() if callable(arguments) else (arguments or "")
            if not self._pattern_re.search(text):
                return Decision(SKIP, self, None, reason="pattern did not match")
        with self._lock:
            self.hit_count += 1
            count = self.hit_count
        if self._hits is not None and not self._hits.holds(count):
            return Decision(SKIP, self, count, reason=f"hit {count} does not satisfy {self.hit_condition!r}")
        reason = self._why()
        action = self.action
        if action == SNAPSHOT:
            return Decision(SNAPSHOT, self, count, reason=reason)
        if action == LOG and self._log_code is not None:
            return Decision(LOG, self, count, message=self._interpolate(globals_, locals_), reason=reason)
        return Decision(PAUSE, self, count, reason=reason)

    def _why(self):
        parts = [self.kind]
        if self.condition:
            parts.append(f"condition {self.condition!r}")
        if self.pattern:
            parts.append(f"pattern {self.pattern!r}")
        if self.hit_condition:
            parts.append(f"hit condition {self.hit_condition!r}")
        return ", ".join(parts)

    def _interpolate(self, globals_, locals_):
        if self._log_rules is not redaction.rules():  # the rules changed since it was compiled
            guarded = (self._action or LOG) != PAUSE
            self._log_code = _compile_expression(_log_source(self.log_message), "log_message", guarded)
            self._log_rules = redaction.rules()
        return redaction.text(self._message(globals_, locals_))

    def _message(self, globals_, locals_):
        try:
            if self.read_only:
                return read_only.guarded_eval(self._log_code, globals_, locals_)
            return eval(self._log_code, globals_, locals_)
        except read_only.Blocked as exc:  # a part that would run the program's code
            return f"{self.log_message} <{exc}>"
        except Exception as exc:  # a broken message still logs, saying what broke
            return f"{self.log_message} <{_error_text(exc)}>"

    def matches_exception(self, exc):
        """An error breakpoint's type filter: no types means any exception; a type matches by
        its name or qualified name, or a base class's."""
        if not self.exception_types:
            return True
        wanted = set(self.exception_types)
        for cls in type(exc).__mro__:
            if cls.__name__ in wanted or f"{cls.__module__}.{cls.__qualname__}" in wanted:
                return True
        return False


def _log_source(log_message):
    """A log message as f-string source, with each `{…}` that names a secret (`{password}`,
    `{user.token}`, `{cfg['api_key']}`) replaced by `[redacted]`: never evaluated (issue 50)."""
    source = "f" + repr(log_message)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return source  # compiling it says what is wrong
    if not isinstance(tree.body, ast.JoinedStr):
        return source
    parts = tree.body.values
    changed = False
    for i, part in enumerate(parts):
        if isinstance(part, ast.FormattedValue) and redaction.expression_is_secret(part.value):
            parts[i] = ast.Constant(redaction.REDACTED)
            changed = True
    return ast.unparse(tree) if changed else source


def _compile_expression(source, what, guarded=False):
    if source is None:
        return None
    try:
        if guarded:  # the guard lets through only code compiled under its pseudo-filename
            return read_only.compile_read_only(source)
        return compile(source, f"<breakpoint {what}>", "eval")
    except SyntaxError as exc:
        raise BreakpointError(f"{what} {source!r}: {exc.msg}") from None
