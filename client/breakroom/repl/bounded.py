"""Reprs of any size of value, made in time proportional to what is shown (issue 52).

`repr()` of a ten-million-item list builds the whole text (and takes seconds) before anything
could cut it. Here the built-in containers are walked item by item until the text reaches its
bound, and what is left is counted, not shown: `[0, 1, 2, … 9,999,997 more]`. Other objects use
their own `repr`, cut to the bound (numpy and pandas already bound theirs); a string or bytes is
sliced before it is repr'd, so a 1 GB string is never copied whole.
"""

import collections

LIMIT = 100_000  # characters of an eval's answer (the REPL), as the book says
_CONTAINERS = (list, tuple, set, frozenset, dict, collections.deque)
# Above this many items (or characters), a value is not pickled for its CID either: the answer
# stays quick and small, and the REPL keeps the live value in its namespace anyway.
HUGE = 100_000


def is_huge(value):
    """Whether pickling the value (for its CID) would copy too much to be worth it."""
    try:
        if isinstance(value, (str, bytes, bytearray)):
            return len(value) > 10 * HUGE
        if isinstance(value, _CONTAINERS):
            return len(value) > HUGE
        nbytes = getattr(value, "nbytes", None)  # numpy arrays, pandas frames' values
        return isinstance(nbytes, int) and nbytes > 80 * HUGE
    except BaseException:  # an odd __len__
        return False


def bounded_repr(value, limit=LIMIT):
    """The value's repr, at most about `limit` characters; never raises."""
    out = _Writer(limit)
    try:
        _write(value, out, set())
    except _Full:
        pass
    except BaseException as exc:  # a broken __repr__ must not break the debugger
        return f"<unprintable {type(value).__name__} object: {exc.__class__.__name__}: {exc}>"
    return out.text()


class _Full(Exception):
    """The bound is reached: what was written so far is the answer."""


class _Writer:
    def __init__(self, limit):
        self.parts = []
        self.left = limit

    def write(self, text):
        if len(text) > self.left:
            self.parts.append(text[: max(self.left, 0)])
            self.parts.append(f"… [cut: {len(text) - max(self.left, 0):,} more characters]")
            self.left = -1
            raise _Full
        self.parts.append(text)
        self.left -= len(text)

    def text(self):
        return "".join(self.parts)


def _write(value, out, active):
    kind = type(value)
    if kind in (str, bytes, bytearray):
        # Sliced first: the repr of a huge string is made of the part shown only.
        room = max(out.left, 0)
        if len(value) <= room:
            out.write(repr(value))
            return
        out.parts.append(repr(value[:room])[:room])
        out.parts.append(f"… [cut: {len(value) - room:,} more characters]")
        out.left = -1
        raise _Full
    if not isinstance(value, _CONTAINERS) or kind.__repr__ not in _BUILTIN_REPRS:
        out.write(repr(value))
        return
    if id(value) in active:
        out.write("[...]" if isinstance(value, list) else "{...}" if isinstance(value, dict) else "(...)")
        return
    active.add(id(value))
    try:
        _write_container(value, out, active)
    finally:
        active.discard(id(value))


_BUILTIN_REPRS = {
    list.__repr__, tuple.__repr__, set.__repr__, frozenset.__repr__, dict.__repr__, collections.deque.__repr__,
}


def _write_container(value, out, active):
    if isinstance(value, dict):
        opening, closing, items = "{", "}", value.items()
    elif isinstance(value, list):
        opening, closing, items = "[", "]", value
    elif isinstance(value, tuple):
        opening, closing, items = "(", ",)" if len(value) == 1 else ")", value
    elif isinstance(value, collections.deque):
        opening, closing, items = "deque([", "])", value
    elif not value:
        out.write(f"{type(value).__name__}()")
        return
    else:
        opening, closing, items = ("{", "}", value) if type(value) is set else (f"{type(value).__name__}({{", "})", value)
    total = len(value)
    out.write(opening)
    for shown, item in enumerate(items):
        if shown:
            out.write(", ")
        # Stop while the "more" marker still fits: the answer says how much was left out.
        if out.left < 64:
            out.parts.append(f"… {total - shown:,} more")
            out.left = -1
            raise _Full
        if isinstance(value, dict):
            key, item = item
            _write(key, out, active)
            out.write(": ")
        _write(item, out, active)
    out.write(closing)
