"""Child processes (issue 33): a debugged program's children are debugged too.

    BREAKROOM_FOLLOW_CHILDREN=1   set by `breakroom run`, `python -m breakroom` and attach

A new interpreter it starts (`subprocess`, `os.system`, multiprocessing's spawn and forkserver)
inherits `PYTHONPATH` with the client's directory, where `sitecustomize.py` imports the hook
(`breakroom_hook`, also imported by the `.pth` file of an installed client), which calls in on a
thread of its own. A fork calls in from the at-fork hook, before the child runs on. The server files
each under its nearest debugged ancestor. Breakroom's own forks (time-travel checkpoints) are not
children. A child that cannot follow (started with `env=` that drops these variables, or with
`python -I`/`-E`/`-S`) is reported by its parent as not followed.
"""

import contextlib
import os
import sys
import threading

from .process import current, record
from .repl import evaluation

FOLLOW = "BREAKROOM_FOLLOW_CHILDREN"
# Interpreter options under which the child hook is never imported.
BLIND_OPTIONS = {"-I": "isolated mode", "-E": "-E (PYTHON* variables ignored)", "-S": "-S (no site module)"}

_state = threading.local()  # .own_fork: Breakroom is forking a checkpoint on this thread
_hooked = [False]


def client_dir():
    """The directory holding `sitecustomize.py` and the `breakroom` package."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def following():
    return os.environ.get(FOLLOW) == "1"


def enable(url=None, token=None):
    """From now on the processes this one starts are debugged too (they inherit the variables)."""
    os.environ[FOLLOW] = "1"
    if url:
        os.environ["BREAKROOM_URL"] = url
    if token:
        os.environ["BREAKROOM_TOKEN"] = token
    here = client_dir()
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if here not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([here, *paths])
    if _hooked[0]:
        return
    _hooked[0] = True
    hook = sys.modules.get("breakroom_hook")
    if hasattr(os, "register_at_fork") and not getattr(hook, "BREAKROOM_HOOK", False):
        os.register_at_fork(after_in_child=after_fork_in_child)
    _watch_spawns()


def connect_child(forked=False):
    """A child of a debugged program calls in (from `breakroom_hook`, on its own thread)."""
    if forked:
        record.mark_forked()
    enable()  # its own children follow too
    current.client().ensure_connected()


@contextlib.contextmanager
def own_fork():
    """Around Breakroom's own `fork()` (a checkpoint): the child is not a child of the program."""
    _state.own_fork = True
    try:
        yield
    finally:
        _state.own_fork = False


def after_fork_in_child():
    """In a forked child of a debugged process: it is a process of its own from now on."""
    if getattr(_state, "own_fork", False):
        return
    record.mark_forked()
    client = current.existing_client()
    if client is None or not client.available:
        # The parent had not called in yet: the child does it the way a new interpreter does.
        threading.Thread(target=connect_child, args=(True,), name="breakroom-child", daemon=True).start()
        return
    client.transport.forget_connections()
    evaluation.forget_eval_threads()
    try:
        current.channel().restart_in_fork_child(client)
    except Exception as exc:
        print(f"breakroom: this forked child is not followed: {exc}", file=sys.stderr)


def _blind_spot(args, env):
    """Why a Python child started with these arguments and environment cannot follow, or None."""
    if isinstance(args, (str, bytes)) or not args:
        return None  # a shell command line: its programs are not known here
    program = os.path.basename(os.fsdecode(args[0]))
    if not program.startswith("python"):
        return None
    if env is not None and (env.get(FOLLOW) != "1" or client_dir() not in env.get("PYTHONPATH", "")):
        return "started with env= that drops Breakroom's variables (BREAKROOM_FOLLOW_CHILDREN, PYTHONPATH): pass env={**os.environ, ...}"
    for arg in args[1:]:
        arg = os.fsdecode(arg)
        if not arg.startswith("-") or arg in ("-c", "-m"):
            break
        for option, why in BLIND_OPTIONS.items():
            if arg == option or (arg.startswith("-") and not arg.startswith("--") and option[1] in arg[1:]):
                return f"python {option}: {why} never loads Breakroom's child hook"
    return None


def _watch_spawns():
    """Tells the server of Python children started where the hook cannot reach them (those
    `breakroom_hook` noted before the client was there, and all from now on)."""
    import subprocess  # lazy: only a process that follows its children pays for this import

    execute = subprocess.Popen._execute_child
    execute = getattr(execute, "breakroom_wrapped", execute)
    hook = sys.modules.get("breakroom_hook")
    for pid, args, env in list(getattr(hook, "early_spawns", ())):
        _judge(pid, args, env)

    def _execute_child(self, args, *rest, **kwargs):
        execute(self, args, *rest, **kwargs)
        _judge(self.pid, args, rest[5] if len(rest) > 5 else kwargs.get("env"))

    subprocess.Popen._execute_child = _execute_child


def _judge(pid, args, env):
    try:
        why = _blind_spot(args, env)
        if why:
            argv = [os.fsdecode(a) for a in args]
            threading.Thread(target=_report, args=(pid, argv, why), daemon=True).start()
    except Exception:
        pass  # never the program's problem


def _report(pid, argv, why):
    client = current.client()
    try:
        client.transport.post("/api/processes/not-followed", {**client.identity(), "pid": pid, "argv": argv, "reason": why})
    except Exception:
        pass
