"""The debug page's watch expressions (issue 45): evaluated at a pause as a snapshot breakpoint's
are, read-only by construction (`read_only.check` before, the guard while), on the snapshot
worker thread, within a deadline, and shown as snapshot values (bounded, secrets redacted).

The request is a REPL helper's (`kind = "watch"`, args `{"expressions": [...]}`); the answer is
`{"expressions": [{"expression", "value" | "error"}, ...], "truncated", "redacted"}`, one entry
per expression asked, in order."""

import time

from . import capture, offthread, read_only

# What one request may hold (the server refuses more); the same as a snapshot breakpoint's.
MAX_EXPRESSIONS = 20
# How long the program's thread waits for the whole list (each expression has its own, shorter,
# deadline inside `capture.expressions`).
WAIT_S = 2.0
# Smaller than a snapshot's: a sidebar shows a few levels, and a watch is re-read at every stop.
LIMITS = {"depth": 2, "items": 50, "string_bytes": 1024, "total_bytes": 65536, "rich_bytes": 0}


def reply(args, globals_, locals_):
    """The answer to a watch request in a frame with these globals and locals (the REPL
    session's names folded over the frame's locals). Raises ValueError on a malformed request."""
    texts = args.get("expressions")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("watch needs expressions, a list of strings")
    texts = texts[:MAX_EXPRESSIONS]
    checked = []  # (text, code or None, refusal or None), in the order asked
    for i, text in enumerate(texts, 1):
        try:
            read_only.check(text, f"watch expression {i}")
            checked.append((text, read_only.compile_read_only(text), None))
        except (read_only.NotReadOnly, SyntaxError, ValueError) as exc:
            checked.append((text, None, str(exc)))
    compiled = [(text, code) for text, code, refusal in checked if code is not None]

    def evaluate():
        taking = capture.Capture(capture.Limits(LIMITS), time.perf_counter() + WAIT_S)
        return taking, capture.expressions(taking, compiled, globals_, locals_)

    status, result = offthread.run(evaluate, WAIT_S + 0.5) if compiled else ("ok", (None, []))
    if status == "ok":
        taking, values = result
        found = {id(code): entry for (_, code), entry in zip(compiled, values)}
    else:
        taking, found = None, {}
    answers = []
    for text, code, refusal in checked:
        if refusal is not None:
            answers.append({"expression": text, "error": refusal})
        elif id(code) in found:
            answers.append(found[id(code)])
        elif status == "ok":  # the list was cut: no room left for this one
            answers.append({"expression": text, "error": "left out: the watch list is full"})
        else:
            answers.append({"expression": text, "error": "timed out" if status == "timeout" else str(result)})
    return {
        "expressions": answers,
        "truncated": bool(taking and taking.truncated),
        "redacted": taking.redacted if taking else 0,
    }


def scope(locals_, namespace):
    """The names a watch sees: the REPL session's own names over the frame's locals, as the
    REPL and the variables panel see them."""
    merged = dict(locals_)
    merged.update(namespace or {})
    return merged
