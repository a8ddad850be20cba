"""The completion snippet: one Python expression that an unchanged cideldill client (which only
evaluates) runs in the paused frame to complete there. It carries the completer's source
(`_static_read` and `_complete`, joined into one module without their relative import), and
evaluates to `_complete.snippet_reply`'s JSON text."""

import json
import os


def _own_source():
    """The completer's source as one module: `_static_read`'s, then `_complete`'s, without the
    relative import that joins them."""
    parts = []
    here = os.path.dirname(__file__)
    for path in (os.path.join(here, "_static_read.py"), os.path.join(here, "_complete.py")):
        with open(path, encoding="utf-8") as f:
            parts.append("".join(line for line in f if not line.startswith("from ._")))
    return "\n".join(parts)


_SNIPPET_PARTS = None


def _snippet_parts():
    """(module name, compressed source literal): the name changes with the source, so a process
    never reuses a completer from an older snippet."""
    global _SNIPPET_PARTS
    if _SNIPPET_PARTS is None:
        import base64
        import hashlib
        import zlib

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
