"""Run a program under Breakroom, the `python -m pdb` habit:

    python -m breakroom [--break FILE:LINE]... [--stop-on-entry] script.py [args]
    python -m breakroom [--break FILE:LINE]... [--stop-on-entry] -m module [args]

The program runs with the client active: line breakpoints are armed before its first line
(`--break`, repeatable, and `BREAKROOM_BREAK="FILE:LINE,FILE:LINE"`), and an uncaught exception
pauses post-mortem in the frame that raised it (after the usual traceback), then the program
exits with status 1 as it would have. `--no-post-mortem` leaves uncaught exceptions alone.
`--stop-on-entry` (or `BREAKROOM_STOP_ON_ENTRY=1`) pauses at the program's first line.
The Python processes the program starts are debugged too; `--no-children` leaves them alone.
"""

import importlib.util
import os
import runpy
import sys
import traceback
import types

import breakroom

from . import children
from .lines import starts, stepping
from .pause import call
from .pause.post_mortem import pause_where_raised
from .process import current
from .protocol.constants import BREAKPOINT_LINE, PAUSE_ALWAYS, STEP_INTO, STOP_ENTRY

USAGE = "usage: python -m breakroom [--break FILE:LINE]... [--no-post-mortem] [--stop-on-entry] [--no-children] (script.py | -m module) [args]"


class UsageError(Exception):
    pass


class Options:
    def __init__(self):
        self.breaks = [b for b in os.environ.get("BREAKROOM_BREAK", "").split(",") if b.strip()]
        self.post_mortem = True
        self.stop_on_entry = os.environ.get("BREAKROOM_STOP_ON_ENTRY", "") not in ("", "0")
        self.follow_children = True


def parse(argv):
    """(Options, ("script" | "module", target), program args)."""
    options = Options()
    breaks = options.breaks
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            raise UsageError(__doc__)
        if arg in ("-b", "--break"):
            if i + 1 >= len(argv):
                raise UsageError(f"{arg} needs FILE:LINE")
            breaks.append(argv[i + 1])
            i += 2
        elif arg.startswith("--break="):
            breaks.append(arg.split("=", 1)[1])
            i += 1
        elif arg == "--no-post-mortem":
            options.post_mortem = False
            i += 1
        elif arg == "--stop-on-entry":
            options.stop_on_entry = True
            i += 1
        elif arg == "--no-children":
            options.follow_children = False
            i += 1
        elif arg == "-m":
            if i + 1 >= len(argv):
                raise UsageError("-m needs a module name")
            return options, ("module", argv[i + 1]), argv[i + 2 :]
        elif arg == "--":
            i += 1
            break
        elif arg.startswith("-"):
            raise UsageError(f"unknown option {arg}")
        else:
            break
    if i >= len(argv):
        raise UsageError("no program to run")
    return options, ("script", argv[i]), argv[i + 1 :]


def break_spec(text, default_file, number):
    """`FILE:LINE` (or `LINE`, in the script) as a line breakpoint's JSON. Its id, `break-N`,
    is the process's own: the server's breakpoints are `bp-N`, and the two never meet."""
    file, _, line = text.strip().rpartition(":")
    if not line.isdigit():
        raise UsageError(f"--break {text!r}: expected FILE:LINE")
    path = os.path.abspath(file or default_file or "")
    return {"kind": BREAKPOINT_LINE, "file": path, "line": int(line), "id": f"break-{number}"}


def arm(breaks, default_file):
    """Arms the `--break` breakpoints here, and hands them down: a child this program starts
    (debugged too, unless --no-children) arms them before its first line."""
    engine = current.line_engine()
    armed = []
    for number, text in enumerate(breaks, 1):
        try:
            spec = break_spec(text, default_file, number)
            if engine.armed(spec["id"]):  # inherited from a parent run the same way: armed already
                continue
            report = engine.add(spec)
        except (breakroom.BreakpointError, UsageError) as exc:
            print(f"breakroom: breakpoint {text}: {exc}", file=sys.stderr)
            continue
        armed.append(spec)
        moved = f" (moved from line {report['requested_line']}: no code there)" if report["moved"] else ""
        print(f"breakroom: breakpoint {report['id']} at {report['file']}:{report['line']}{moved}", file=sys.stderr)
    starts.hand_down_own(armed)
    return engine


def stop_at_first_line(path):
    """A step into the program's file, armed before it runs: it stops at the first line of its
    module (what runs first there), as a pause of kind `entry`."""
    if path is None:
        print("breakroom: --stop-on-entry: the module's file was not found", file=sys.stderr)
        return

    def on_stop(frame, extra, how):
        call.pause_in_frame(current.client(), frame, PAUSE_ALWAYS, stop={"kind": STOP_ENTRY})

    order = stepping.StepOrder(STEP_INTO)
    stepping.arm(order, None, on_stop, only_file=os.path.realpath(path))


def _module_file(name):
    """The file `-m name` runs (a package's `__main__.py`), or None."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(name + ".__main__")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.origin and os.path.exists(spec.origin) else None


def run_script(path, args):
    """Runs a script as `python script.py` would: as __main__, its directory first on sys.path,
    with hooks at its armed lines."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    sys.argv[:] = [path, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    with open(path, "rb") as f:
        data = f.read()
    code = current.line_engine().code_for_import(path, data, path)
    if code is None:
        code = compile(data, path, "exec", dont_inherit=True)
    exec(code, main.__dict__)


def run_module(name, args):
    sys.argv[:] = [name, *args]  # runpy puts the module's file in argv[0]
    sys.path[0] = os.getcwd()
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def _program_traceback(tb):
    """The traceback from the program's first frame: this runner's, runpy's and importlib's
    frames left out, as `python script.py` would show it."""
    runner_files = (os.path.dirname(os.path.abspath(__file__)), os.path.abspath(runpy.__file__))
    start = tb
    while start is not None:
        filename = start.tb_frame.f_code.co_filename
        if not (filename.startswith("<frozen") or os.path.abspath(filename).startswith(runner_files)):
            return start
        start = start.tb_next
    return tb


def main(argv=None):
    try:
        options, (how, target), args = parse(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"{exc}\n{USAGE}" if str(exc) != __doc__ else __doc__, file=sys.stderr)
        return 2
    post_mortem = options.post_mortem
    if post_mortem:
        breakroom.install_excepthook()  # other threads; the main thread's is caught below
    # Connecting loads the server's breakpoints (armed before the first line) and follows them.
    try:
        client = current.client()
    except ValueError as exc:  # a bad BREAKROOM_URL: said in one line, not a traceback
        print(f"breakroom: {exc}", file=sys.stderr)
        return 2
    client.ensure_connected()
    if options.follow_children:
        children.enable(client.transport.url, client.transport.token)
    try:
        arm(options.breaks, target if how == "script" else None)
        if options.stop_on_entry:
            stop_at_first_line(target if how == "script" else _module_file(target))
        if how == "script":
            run_script(target, args)
        else:
            run_module(target, args)
    except UsageError as exc:
        print(f"breakroom: {exc}", file=sys.stderr)
        return 2
    except SystemExit:
        raise
    except BaseException as exc:
        if not post_mortem or isinstance(exc, KeyboardInterrupt):
            raise
        tb = _program_traceback(exc.__traceback__)
        traceback.print_exception(type(exc), exc, tb)
        try:
            pause_where_raised(exc, tb)
        except Exception as err:
            print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
