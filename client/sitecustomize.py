"""Breakroom's child hook on `PYTHONPATH` (issue 33): a debugged program passes the client's
directory on to the processes it starts, and Python imports the first `sitecustomize` on its
path at start. The hook itself is `breakroom_hook` (also imported by `breakroom-hook.pth` of an
installed client); then this runs the `sitecustomize` it hides (Debian ships one), as Python
would have.
"""

import os
import sys

import breakroom_hook  # noqa: F401  (the hook runs on import)

BREAKROOM_HOOK = True  # kept for programs that looked for it here


def _hidden_sitecustomize():
    """Runs the next `sitecustomize` on the path, the one this module hides."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    # importlib's own frozen modules, already loaded: nothing is imported to look.
    finder, bootstrap = sys.modules.get("_frozen_importlib_external"), sys.modules.get("_frozen_importlib")
    spec = finder.PathFinder.find_spec("sitecustomize", rest) if finder and bootstrap else None
    if spec is None or spec.loader is None:
        return
    module = bootstrap.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # what site.py does with a failing sitecustomize
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(exc).__name__}: {exc}", file=sys.stderr)


_hidden_sitecustomize()
