"""Run a program under Breakroom, the `python -m pdb` habit:

    python -m breakroom [--break FILE:LINE]... script.py [args]
    python -m breakroom [--break FILE:LINE]... -m module [args]

The program runs with the client active: line breakpoints are armed before its first line
(`--break`, repeatable, and `BREAKROOM_BREAK="FILE:LINE,FILE:LINE"`), and an uncaught exception
pauses post-mortem in the frame that raised it (after the usual traceback), then the program
exits with status 1 as it would have. `--no-post-mortem` leaves uncaught exceptions alone.
"""

import os
import runpy
import sys
import traceback
import types

USAGE = "usage: python -m breakroom [--break FILE:LINE]... [--no-post-mortem] (script.py | -m module) [args]"


class UsageError(Exception):
    pass


def parse(argv):
    """(breaks, post_mortem, ("script" | "module", target), program args)."""
    breaks = [b for b in os.environ.get("BREAKROOM_BREAK", "").split(",") if b.strip()]
    post_mortem = True
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
            post_mortem = False
            i += 1
        elif arg == "-m":
            if i + 1 >= len(argv):
                raise UsageError("-m needs a module name")
            return breaks, post_mortem, ("module", argv[i + 1]), argv[i + 2 :]
        elif arg == "--":
            i += 1
            break
        elif arg.startswith("-"):
            raise UsageError(f"unknown option {arg}")
        else:
            break
    if i >= len(argv):
        raise UsageError("no program to run")
    return breaks, post_mortem, ("script", argv[i]), argv[i + 1 :]


def break_spec(text, default_file):
    """`FILE:LINE` (or `LINE`, in the script) as a line breakpoint's JSON."""
    file, _, line = text.strip().rpartition(":")
    if not line.isdigit():
        raise UsageError(f"--break {text!r}: expected FILE:LINE")
    return {"kind": "line", "file": os.path.abspath(file or default_file or ""), "line": int(line)}


def arm(breaks, default_file):
    import breakroom

    engine = breakroom.line_breakpoints()
    for text in breaks:
        try:
            report = engine.add(break_spec(text, default_file))
        except (breakroom.BreakpointError, UsageError) as exc:
            print(f"breakroom: breakpoint {text}: {exc}", file=sys.stderr)
            continue
        moved = f" (moved from line {report['requested_line']}: no code there)" if report["moved"] else ""
        print(f"breakroom: breakpoint {report['id']} at {report['file']}:{report['line']}{moved}", file=sys.stderr)
    return engine


def run_script(path, args):
    """Runs a script as `python script.py` would: as __main__, its directory first on sys.path,
    with hooks at its armed lines."""
    import breakroom

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
    code = breakroom.line_breakpoints().code_for_import(path, data, path)
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
        breaks, post_mortem, (how, target), args = parse(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"{exc}\n{USAGE}" if str(exc) != __doc__ else __doc__, file=sys.stderr)
        return 2
    import breakroom

    if post_mortem:
        breakroom.install_excepthook()  # other threads; the main thread's is caught below
    # Connecting loads the server's breakpoints (armed before the first line) and follows them.
    breakroom._get_client().ensure_connected()
    try:
        arm(breaks, target if how == "script" else None)
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
            breakroom._pause_where_raised(exc, tb)
        except Exception as err:
            print(f"breakroom: post-mortem pause failed: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
