"""Breakroom's child hook (issue 33): the Python processes a debugged program starts are
debugged too.

Imported at every interpreter's start, from one of two places: `sitecustomize.py` beside the
client (`PYTHONPATH=client`, as a debugged program passes it on) or `breakroom-hook.pth` in
site-packages (the wheel and `pip install ./client`, issue 53). Python imports a module once, so
the two never both run it. It costs a process almost nothing: it imports no part of the client.
With `BREAKROOM_FOLLOW_CHILDREN=1` it starts one thread that imports the client and calls in (the
process is then listed under its parent), and hooks `fork` so a forked child does the same.
"""

import os
import sys

BREAKROOM_HOOK = True  # the client checks this: forks are followed here, once


# The switch interval while the client imports itself (`switch_interval.SHORT`, which takes
# over once imported): beside a CPU-bound thread of the program, the connecting thread waits
# out the program's whole interval (5 ms) after every file read and socket call, and calling in
# took 5 to over 60 seconds instead of a tenth of one.
CONNECT_SWITCH_INTERVAL = 0.0001


def _connect(forked):
    import _thread

    _connecting[0] = _thread.get_ident()
    programs = sys.getswitchinterval()
    if programs > CONNECT_SWITCH_INTERVAL:
        sys.setswitchinterval(CONNECT_SWITCH_INTERVAL)
    ours = sys.getswitchinterval()  # as CPython keeps it (microseconds: not quite the constant)
    held = False
    try:
        from breakroom import children
        from breakroom.process import switch_interval

        # Held as a pause holds it: a breakpoint may pause a thread before this ends, and the
        # program's own interval comes back when both are over.
        # (One the program set meanwhile is its own.)
        switch_interval.hold(programs if sys.getswitchinterval() == ours else None)
        held = True
        try:
            children.connect_child(forked)
        finally:
            switch_interval.release()
    except BaseException as exc:
        try:
            print(f"breakroom: this child process is not followed: {exc!r}", file=sys.stderr)
        except BaseException:
            pass
    finally:
        # Inherited breakpoints stop being watched for even if the server could not be reached.
        starts = sys.modules.get("breakroom.lines.starts")
        if starts is not None:
            try:
                starts.channel_answered()
            except BaseException:
                pass
        if not held and sys.getswitchinterval() == ours:
            sys.setswitchinterval(programs)  # the client could not be imported
        _done.release()


def _start(forked=False):
    """Calls in on a thread of its own; the program does not wait for it (at exit, it does, a
    little, so a short-lived child is still listed)."""
    global _done
    import _thread

    _done = _thread.allocate_lock()
    _done.acquire()
    _thread.start_new_thread(_connect, (forked,))


def _wait_at_exit():
    if _done.acquire(timeout=2.0):
        _done.release()


def _before_fork():
    """A fork while the client is still being imported would copy a half-imported package into
    the child, with no thread left to finish it: the fork waits for the client first."""
    import _thread

    if _done is not None and _thread.get_ident() != _connecting[0] and _done.acquire(timeout=2.0):
        _done.release()


def _after_fork_in_child():
    children = sys.modules.get("breakroom.children")
    if children is not None:
        children.after_fork_in_child()  # the client knows Breakroom's own forks (checkpoints)
    else:
        _start(forked=True)


# Python children this process starts before its client has called in: `(pid, args, env)`,
# judged by the client once it is there (`breakroom.children`), which then watches spawns itself.
early_spawns = []
EARLY_SPAWNS_KEPT = 100


class _SubprocessWatch:
    """Finds nothing itself: when `subprocess` is imported, its `Popen` is wrapped to note the
    children started until the client takes over. Costs an import one name comparison."""

    def find_spec(self, name, path=None, target=None):
        if name != "subprocess":
            return None
        sys.meta_path.remove(self)
        finder = sys.modules.get("_frozen_importlib_external")
        spec = finder.PathFinder.find_spec(name, path) if finder else None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute_module = spec.loader.exec_module

        def exec_and_watch(module):
            execute_module(module)
            execute_child = module.Popen._execute_child

            def _execute_child(self, args, *rest, **kwargs):
                execute_child(self, args, *rest, **kwargs)
                if len(early_spawns) < EARLY_SPAWNS_KEPT:
                    early_spawns.append((self.pid, args, rest[5] if len(rest) > 5 else kwargs.get("env")))

            _execute_child.breakroom_wrapped = execute_child
            module.Popen._execute_child = _execute_child

        spec.loader.exec_module = exec_and_watch
        return spec


def _inherit():
    """The parent's line breakpoints, armed before the program's first line: the client is
    imported here then (a child of a program without line breakpoints does not pay for it)."""
    try:
        from breakroom.lines import starts

        starts.inherit_from_parent()
    except BaseException as exc:
        try:
            print(f"breakroom: inherited breakpoints not armed: {exc!r}", file=sys.stderr)
        except BaseException:
            pass


_done = None
_connecting = [None]  # the connecting thread's ident
if os.environ.get("BREAKROOM_FOLLOW_CHILDREN") == "1" and os.environ.get("BREAKROOM_URL"):
    import atexit

    if "subprocess" not in sys.modules:
        sys.meta_path.insert(0, _SubprocessWatch())
    if os.environ.get("BREAKROOM_INHERITED_BREAKPOINTS") or os.environ.get("BREAKROOM_INHERITED_OWN_BREAKPOINTS"):
        _inherit()
    _start()
    atexit.register(_wait_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
