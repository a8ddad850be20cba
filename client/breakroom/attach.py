"""The client started inside a running program by `breakroom attach PID` (issue 33).

The server's injected code calls `start` on a thread of its own, once per process. From then on
the program is like one started under Breakroom: it calls in (and is listed as attached), the
server's line and error breakpoints reach it (also in code already running), `breakpoint()`
pauses at Breakroom unless the program chose its own hook, and, unless told not to, the Python
processes it starts are debugged too.
"""

import os
import subprocess  # noqa: F401  (children imports it when following: imported here, see below)
import sys
import threading

# Imported with this module, on the interrupted thread, which holds the GIL: on a thread of
# their own next to a busy main thread, each import would wait for its turn (seconds).
import breakroom

from . import children
from .process import switch_interval


def start(url, token, follow_children):
    os.environ["BREAKROOM_URL"] = url
    if token:
        os.environ["BREAKROOM_TOKEN"] = token
    if follow_children:
        children.enable(url, token)
    # `breakpoint()` comes here, unless the program set its own hook or PYTHONBREAKPOINT.
    if sys.breakpointhook is sys.__breakpointhook__ and not os.environ.get("PYTHONBREAKPOINT"):
        sys.breakpointhook = breakroom.set_trace
        if follow_children:
            os.environ["PYTHONBREAKPOINT"] = "breakroom.set_trace"
    client = breakroom.configure(url)
    # A busy main thread holds the GIL for its whole switch interval (5 ms) each time this
    # thread waits for it: calling in and arming the breakpoints take hundreds of such turns.
    # Shorter turns while that happens only; the program's own setting comes back after. Held
    # as a pause holds it: a breakpoint armed meanwhile may pause a thread before this ends,
    # and the interval stays short until that pause is over too.
    with switch_interval.Held():
        if not client.ensure_connected():
            print(f"breakroom: attached, but the server at {url} cannot be reached", file=sys.stderr)


def start_in_background(url, token, follow_children):
    """What the injected code calls: the client is imported (this module is), the rest runs on
    a thread of its own so the interrupted thread goes back to the program at once."""

    def run():
        try:
            start(url, token, follow_children)
        except Exception as exc:
            print(f"breakroom: attach failed: {exc!r}", file=sys.stderr)

    threading.Thread(target=run, name="breakroom-attach", daemon=True).start()
