"""One call, paused before it runs: the page tests skip it, raise in it, or run it."""
import sys

import breakroom


@breakroom.breakpoint
def greet(name):
    return f"hello {name}"


try:
    print("result", repr(greet(sys.argv[1] if len(sys.argv) > 1 else "ada")))
except Exception as exc:  # the page may make the call raise
    print("raised", type(exc).__name__, exc)
