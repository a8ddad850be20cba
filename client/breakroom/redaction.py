"""What never leaves the program (issue 50): secrets are replaced by `[redacted]` before anything
is sent to the server.

Rules come from three places, all added together: the defaults below (unless the server says
`--no-default-redaction`), the server's rules (received on the breakpoint channel, `apply_policy`),
and the program's own (`breakroom.configure(redact_names=..., redact_values=...)`,
`BREAKROOM_REDACT_NAMES` / `BREAKROOM_REDACT_VALUES`, commas between rules).

* A name rule (case-insensitive, anywhere in the name) hides the value of a local, an argument,
  a dict key, an attribute, a keyword argument, or `KEY=value` text; the name stays visible.
* A value rule hides the matching part of any string. Card numbers count only when they pass
  the Luhn check.

The defaults are the server's (`debugger/src/policy/mod.rs`); `client/tests/test_redaction.py`
checks that the two lists agree. Rules use the regex dialect Rust, Python and JavaScript share.
"""

import ast
import fnmatch
import os
import re
import threading

from .protocol.serialize import safe_repr

REDACTED = "[redacted]"

DEFAULT_NAMES = (
    "password",
    "passwd",
    "secret",
    "token",
    "api_?key",
    "auth",
    "credential",
    "private_?key",
    "cookie",
    "session_?id",
    "ssn",
)
DEFAULT_VALUES = (
    r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bBearer\s+[A-Za-z0-9._~+/=-]+",
)
CARD_NUMBER = r"\b\d(?:[ -]?\d){12,18}\b"
# What each default value rule cannot match without (a cheap `in` test first: the regexes cost
# microseconds per hundred characters, and most text holds none of these).
DEFAULT_HINTS = (("eyJ",), ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"), ("-----BEGIN",), ("Bearer",))
KEY_VALUE = r"""([A-Za-z_][A-Za-z0-9_.-]*)(['"]?)(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s,;&)}\]]+)"""

NAME_CACHE = 4096
TEXT_CACHE = 4096
TEXT_CACHE_CHARS = 512  # longer texts are rarely seen twice; at most 2 MB remembered
# How deep, and how many items, a value is looked through for secrets before it is pickled.
SCAN_DEPTH = 4
SCAN_ITEMS = 1000

_card_re = re.compile(CARD_NUMBER)
_key_value_re = re.compile(KEY_VALUE)


def luhn(text):
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _split(text):
    """Rules separated by commas; a comma inside `{…}` or `[…]`, or escaped, is the rule's own
    (`\\d{2,4}`). The server splits the same way (policy::split_rules)."""
    rules, depth, escaped, start = [], 0, False, 0
    text = text or ""
    for i, c in enumerate(text):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        elif c == "," and depth <= 0:
            rules.append(text[start:i])
            start = i + 1
    rules.append(text[start:])
    return [r.strip() for r in rules if r.strip()]


class Rules:
    """Compiled rules. Built once per change; reading them is lock-free."""

    def __init__(self, names, values, cards, no_debug=()):
        self.names = tuple(names)
        self.values = tuple(values)
        self.cards = cards
        self.no_debug = tuple(no_debug)
        self.name_re = re.compile("|".join(f"(?:{r})" for r in self.names), re.IGNORECASE) if self.names else None
        self.value_re = re.compile("|".join(f"(?:{r})" for r in self.values)) if self.values else None
        # The default value rules are tried only where their hints are; others always.
        hinted = [(r, h) for r, h in zip(DEFAULT_VALUES, DEFAULT_HINTS) if r in self.values]
        hints = [h for _, h in hinted for h in h]
        self._hint_re = re.compile("|".join(re.escape(h) for h in hints)) if hints else None
        others = [r for r in self.values if r not in DEFAULT_VALUES]
        self._always_values = bool(others)
        self._names_seen = {}
        self._texts_seen = {}
        self._module_rules = tuple(r for r in self.no_debug if _is_module_rule(r))
        self._glob_rules = tuple(r for r in self.no_debug if not _is_module_rule(r))

    def name_matches(self, name):
        if type(name) is not str:
            return False
        # The same names come back at every hit and every panel: remembered (a dict lookup is
        # a tenth of the case-insensitive search), up to NAME_CACHE of them.
        hit = self._names_seen.get(name)
        if hit is not None:
            return hit
        hit = self.name_re is not None and self.name_re.search(name) is not None
        if len(self._names_seen) >= NAME_CACHE:
            self._names_seen.clear()
        self._names_seen[name] = hit
        return hit

    def text(self, text, known=()):
        """(text with its secrets replaced, how many were). `known`: strings the program holds
        under a secret's name, replaced wherever else they show (`args`, a list holding one)."""
        if type(text) is not str or not text:
            return text, 0
        if len(text) <= TEXT_CACHE_CHARS:
            # A loop's snapshots and a panel opened again show the same texts: remembered.
            done = self._texts_seen.get(text)
            if done is None:
                done = self._text(text)
                if len(self._texts_seen) >= TEXT_CACHE:
                    self._texts_seen.clear()
                self._texts_seen[text] = done
        else:
            done = self._text(text)
        if not known:
            return done
        text, count = done
        for secret in known:
            if secret in text:
                count += text.count(secret)
                text = text.replace(secret, REDACTED)
        return text, count

    def _text(self, text):
        count = 0
        hinted = self._hint_re is not None and self._hint_re.search(text)
        if self.value_re is not None and (self._always_values or hinted):
            if self.value_re.search(text):
                text, n = self.value_re.subn(REDACTED, text)
                count += n
        if self.cards and _card_re.search(text):
            hits = [0]

            def card(m):
                if luhn(m.group(0)):
                    hits[0] += 1
                    return REDACTED
                return m.group(0)

            text = _card_re.sub(card, text)
            count += hits[0]
        # KEY=value and 'key': value need one of these: most text is passed over without the
        # case-insensitive search, the costliest of the three.
        if self.name_re is not None and ("=" in text or ":" in text) and self.name_re.search(text):
            hits = [0]

            def pair(m):
                value = m.group(4)
                if REDACTED in value or not self.name_re.search(m.group(1)):
                    return m.group(0)
                hits[0] += 1
                quote = value[0] if value[:1] in ("'", '"') else ""
                return f"{m.group(1)}{m.group(2)}{m.group(3)}{quote}{REDACTED}{quote}"

            text = _key_value_re.sub(pair, text)
            count += hits[0]
        return text, count

    def blocked(self, filename, module=None):
        """The `--no-debug` rule a file (or its module) falls under, or None."""
        if not self.no_debug:
            return None
        for rule in self._glob_rules:
            if filename and fnmatch.fnmatchcase(filename, rule):
                return rule
        for rule in self._module_rules:
            if module and (module == rule or module.startswith(rule + ".")):
                return rule
            as_path = rule.replace(".", "/")
            if filename and (
                filename.endswith(f"/{as_path}.py") or f"/{as_path}/" in filename or filename == f"{as_path}.py"
            ):
                return rule
        return None


def _is_module_rule(rule):
    return bool(rule) and not rule.endswith(".py") and all(part.isidentifier() for part in rule.split("."))


# ---- the rules in force ------------------------------------------------------------------------------

_lock = threading.Lock()
_server = None  # the server's policy as last received: {"names", "values", "cards", "no_debug"}
_own_names = _split(os.environ.get("BREAKROOM_REDACT_NAMES"))
_own_values = _split(os.environ.get("BREAKROOM_REDACT_VALUES"))


def _build():
    server = _server
    if server is None:
        names, values, cards, no_debug = list(DEFAULT_NAMES), list(DEFAULT_VALUES), True, []
    else:
        names, values = list(server.get("names") or []), list(server.get("values") or [])
        cards, no_debug = bool(server.get("cards")), list(server.get("no_debug") or [])
    names += [r for r in _own_names if r not in names]
    values += [r for r in _own_values if r not in values]
    return Rules(names, values, cards, no_debug)


def _valid(rule):
    try:
        re.compile(rule)
        return "(?" not in rule.replace("(?:", "")
    except re.error:
        return False


_rules = _build()


def rules():
    return _rules


def apply_policy(policy):
    """The server's rules, from the breakpoint channel. A rule Python cannot read is skipped
    (the server checked them: this only guards against a server of another dialect)."""
    global _server, _rules
    if not isinstance(policy, dict):
        return
    clean = {
        "names": [r for r in policy.get("names") or [] if isinstance(r, str) and _valid(r)],
        "values": [r for r in policy.get("values") or [] if isinstance(r, str) and _valid(r)],
        "cards": policy.get("cards") is True,
        "no_debug": [r for r in policy.get("no_debug") or [] if isinstance(r, str)],
    }
    with _lock:
        if clean != _server:
            _server = clean
            _rules = _build()


def configure(names=None, values=None):
    """The program's own rules (`breakroom.configure(redact_names=..., redact_values=...)`):
    a regex or a list of them; commas separate several in one string."""
    global _rules
    added = {}
    for key, given in (("names", names), ("values", values)):
        if given is None:
            continue
        listed = [given] if isinstance(given, str) else list(given)
        rules_ = [r for item in listed for r in _split(item)]
        for rule in rules_:
            if not _valid(rule):
                raise ValueError(f"redact_{key} {rule!r}: not a regex in the dialect Rust, Python and JavaScript share")
        added[key] = rules_
    with _lock:
        _own_names.extend(r for r in added.get("names", ()) if r not in _own_names)
        _own_values.extend(r for r in added.get("values", ()) if r not in _own_values)
        _rules = _build()


# ---- applying them ----------------------------------------------------------------------------------


def text(value, known=()):
    """`value` (a str) with its secrets replaced."""
    return _rules.text(value, known)[0]


# Shorter strings are too likely to be found inside unrelated text.
KNOWN_MIN = 4


def known_secrets(*layers):
    """The strings held under a secret's name in these namespaces (a frame's locals, a
    session's names), so the same string is hidden wherever else it shows."""
    r = _rules
    found = []
    for layer in layers:
        if not layer:
            continue
        try:
            items = list(layer.items())
        except Exception:
            continue
        for name, value in items:
            if type(value) is str and len(value) >= KNOWN_MIN and r.name_matches(name):
                found.append(value)
                shown = repr(value)[1:-1]  # as a repr inside another repr shows it
                if shown != value:
                    found.append(shown)
    return found


def is_secret_name(name):
    return _rules.name_matches(name)


def expression_is_secret(node):
    """Whether an expression's AST names a secret: `password`, `user.password`, `cfg["api_key"]`."""
    r = _rules
    if isinstance(node, ast.Name):
        return r.name_matches(node.id)
    if isinstance(node, ast.Attribute):
        return r.name_matches(node.attr)
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and r.name_matches(key.value)
    return False


def source_is_secret(source):
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return expression_is_secret(tree.body)


_PLAIN = (int, float, complex, bool, type(None))


def scrub(value, depth=0, budget=None):
    """(a value safe to pickle, how many secrets were replaced): `value` itself when it holds
    none; else a copy of its dicts, lists and tuples with secrets replaced, or, for another
    object holding one, a placeholder with its redacted repr."""
    t = type(value)
    if t in _PLAIN:
        return value, 0
    if t is str:
        return _rules.text(value)
    budget = budget if budget is not None else [SCAN_ITEMS]
    if depth >= SCAN_DEPTH or budget[0] <= 0:
        return value, 0
    r = _rules
    if t is dict:
        out, count = {}, 0
        for k, v in list(value.items()):
            budget[0] -= 1
            if budget[0] <= 0:
                break
            if r.name_matches(k):
                out[k], count = REDACTED, count + 1
            else:
                out[k], n = scrub(v, depth + 1, budget)
                count += n
        return (out if count else value), count
    if t in (list, tuple):
        out, count = [], 0
        for v in value:
            budget[0] -= 1
            if budget[0] <= 0:
                break
            v2, n = scrub(v, depth + 1, budget)
            out.append(v2)
            count += n
        return ((t(out) if t is tuple else out) if count else value), count
    own = _instance_dict(value)
    if own:
        count = 0
        for k, v in list(own.items()):
            budget[0] -= 1
            if budget[0] <= 0:
                break
            if r.name_matches(k):
                count += 1
            else:
                count += scrub(v, depth + 1, budget)[1]
        if count:
            return placeholder(value), count
    return value, 0


def _instance_dict(value):
    try:
        own = object.__getattribute__(value, "__dict__")
    except Exception:
        return None
    return own if type(own) is dict else None


def placeholder(value):
    """What is pickled instead of an object holding a secret: its type and its redacted repr."""
    shown = _rules.text(safe_repr(value, 500))[0]
    return {
        "__breakroom_unpicklable__": True,
        "type": f"{type(value).__module__}.{type(value).__qualname__}",
        "repr": shown,
        "error": "redacted: it holds a secret",
    }


_NO_TEXT_TYPES = ("int", "float", "bool", "NoneType")


def panel(reply, expression_secret=False, known=()):
    """A variables-panel answer (`variables` or `expand`) with secrets replaced, and how many."""
    if not isinstance(reply, dict):
        return reply
    r = _rules
    count = 0
    for key in ("variables", "children"):
        rows = reply.get(key)
        if not isinstance(rows, list):
            continue
        for row in rows:
            if expression_secret or r.name_matches(row.get("name")):
                if row.get("repr") != REDACTED:
                    row["repr"] = REDACTED
                    count += 1
                row["expandable"] = False
                row.pop("count", None)
            elif row.get("type") not in _NO_TEXT_TYPES or len(row.get("repr") or "") > 12:
                row["repr"], n = r.text(row.get("repr"), known)
                count += n
    reply["redacted"] = count
    return reply


def path_is_secret(expression, path):
    """Whether a variables-panel path goes through a secret's name."""
    r = _rules
    for step in path or ():
        if isinstance(step, list) and len(step) == 2 and step[0] in ("var", "attr") and r.name_matches(step[1]):
            return True
    return bool(expression) and r.name_matches(expression) and source_is_secret(expression)


def blocked(filename, module=None):
    return _rules.blocked(filename, module)


def frame_blocked(frame):
    """The `--no-debug` rule a frame's code falls under, or None."""
    r = _rules
    if not r.no_debug:
        return None
    return r.blocked(frame.f_code.co_filename, frame.f_globals.get("__name__"))


HIDDEN = "hidden by policy"


def target_hidden(target):
    """Why evals and the variables panel show nothing of an eval target's frame (`--no-debug`),
    or None. A wrapped call's target has no frame: its function's file decides."""
    frame = getattr(target, "frame", None)
    if frame is not None:
        rule = frame_blocked(frame)
    else:
        rule = blocked((getattr(target, "globals", None) or {}).get("__file__"), (getattr(target, "globals", None) or {}).get("__name__"))
    return None if rule is None else f"{HIDDEN} (--no-debug {rule!r})"



def completions(reply):
    """A completion answer with secrets replaced: default values in signatures
    (`password='…'`) and keys that are themselves secret values."""
    r = _rules
    try:
        reply["matches"] = [r.text(m)[0] for m in reply["matches"]]
        for hint in reply["metadata"]["_jupyter_types_experimental"]:
            hint["text"] = r.text(hint["text"])[0]
            hint["signature"] = r.text(hint["signature"])[0]
    except (KeyError, TypeError):
        pass
    return reply
