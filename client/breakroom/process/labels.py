"""This process's labels (issue 34): `service=api,env=prod`, so a snapshot breakpoint can be aimed
at some processes of a fleet with `where`.

    BREAKROOM_LABELS="service=api,env=prod"      # read once, at first use
    breakroom.configure(labels={"service": "api"})

Labels are plain strings both sides. A bad part of the variable (no `=`, an empty key) is left out
and said once on stderr: a typo must not keep the program from starting, nor go unnoticed.
"""

import os
import sys
import threading

ENV = "BREAKROOM_LABELS"
MAX_LABELS = 64
MAX_TEXT = 200  # a key or a value, in characters: labels ride on every report

_lock = threading.Lock()
_labels = None  # None until first read: the environment, or what configure() set


def parse(text, warn=True):
    """{key: value} from `k=v,k2=v2`; spaces around keys and values are dropped. Bad parts are
    left out, with one warning on stderr naming them."""
    labels, bad = {}, []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or len(key) > MAX_TEXT or len(value) > MAX_TEXT or len(labels) >= MAX_LABELS:
            bad.append(part.strip())
            continue
        labels[key] = value
    if bad and warn:
        print(f"breakroom: {ENV}: ignored {', '.join(repr(b) for b in bad)} (expected key=value,key=value)", file=sys.stderr)
    return labels


def _clean(mapping):
    """A configure() dict as labels: str keys and values (others made str), bounded."""
    labels = {}
    for key, value in list(mapping.items())[:MAX_LABELS]:
        key, value = str(key).strip(), "" if value is None else str(value).strip()
        if key and len(key) <= MAX_TEXT and len(value) <= MAX_TEXT:
            labels[key] = value
    return labels


def current():
    """This process's labels (a copy: callers put it on the wire)."""
    global _labels
    with _lock:
        if _labels is None:
            _labels = parse(os.environ.get(ENV, ""))
        return dict(_labels)


def configure(labels):
    """Replaces the labels (`breakroom.configure(labels=...)`); None goes back to the variable."""
    global _labels
    if labels is not None and not isinstance(labels, dict):
        raise TypeError(f"labels must be a dict, not {type(labels).__name__}")
    with _lock:
        _labels = None if labels is None else _clean(labels)


def matches(where, labels=None):
    """Whether a breakpoint's `where` lets this process arm it: every key equals our label.
    No `where` (or not a dict: nothing we can judge) arms everywhere, as the server does."""
    if not where or not isinstance(where, dict):
        return True
    labels = current() if labels is None else labels
    return all(key in labels and labels[key] == str(value) for key, value in where.items())
