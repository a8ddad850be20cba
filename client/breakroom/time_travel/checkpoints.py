"""Time travel (issue 20): a checkpoint of the whole process by fork() when a pause is committed.

The child of the fork is the checkpoint: it blocks in a held poll to the server, holding the
program's memory as it was at the Continue (REPL changes included), while the parent runs on.
When the server wakes it (a step back, rewind, branch or switch), the checkpoint forks again, so
it can be used again, and the new child becomes the live line of the process: it reports the
same call again and pauses there, with the same state.

Only memory is rewound: files, sockets, databases and child processes are not. fork() keeps
only the calling thread, so a process running other threads is not checkpointed unless
`threads="allow"` (Breakroom's own threads are started again in the new line).
"""

import os
import signal
import sys
import threading
import time

from .. import children
from ..process import current
from ..protocol.transport import ServerError, ServerUnavailable
from ..repl import evaluation

DEFAULT_CAP = 16
# A server that stays away ends the checkpoint (a new server would not know it anyway).
MAX_SERVER_FAILURES = 3
_OWN_THREADS = "breakroom-"


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _env_cap():
    text = os.environ.get("BREAKROOM_CHECKPOINT_CAP", "").strip()
    if not text:
        return DEFAULT_CAP
    try:
        cap = int(text)
    except ValueError:
        cap = 0
    if cap > 0:
        return cap
    print(f"breakroom: ignoring BREAKROOM_CHECKPOINT_CAP={text!r}: not a positive whole number", file=sys.stderr)
    return DEFAULT_CAP


_settings = {"enabled": _env_flag("BREAKROOM_CHECKPOINTS"), "cap": _env_cap(), "threads": "refuse"}
# Checkpoints this process forked, reaped once they end (the server kills dropped ones).
_forks = set()


def configure(enabled=True, cap=None, threads="refuse"):
    """`breakroom.checkpoints(True, cap=16, threads="refuse")`."""
    if threads not in ("refuse", "allow"):
        raise ValueError(f"threads must be 'refuse' or 'allow', not {threads!r}")
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 1):
        raise ValueError(f"cap must be a positive int, not {cap!r}")
    _settings["enabled"] = bool(enabled)
    _settings["threads"] = threads
    if cap is not None:
        _settings["cap"] = cap
    return dict(_settings)


def enabled():
    return _settings["enabled"]


def refusal():
    """Why a checkpoint cannot be taken now, or None."""
    if not hasattr(os, "fork"):
        return "not supported: this platform has no os.fork()"
    if _settings["threads"] == "allow":
        return None
    me = threading.current_thread()
    others = [t.name for t in threading.enumerate() if t is not me and t.is_alive() and not t.name.startswith(_OWN_THREADS)]
    if others:
        names = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
        return (
            f"the process runs {len(others) + 1} threads (also {names}); fork() keeps only the calling thread, "
            "so a checkpoint could hang on a lock another thread held. "
            "breakroom.checkpoints(True, threads='allow') checkpoints anyway"
        )
    return None


def mode():
    """The call/start extension: whether this pause will be checkpointed, or why not."""
    return {"refusal": refusal()} if enabled() else None


def _reap():
    for pid in list(_forks):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _forks.discard(pid)


def take(client, pause_id, token=None):
    """Forks a checkpoint of the process at a committed pause. Returns None in the program, which runs on
    (also when the checkpoint is refused: the reason goes to the server), or a wake order in a
    new line woken from the checkpoint."""
    reason = refusal()
    if reason:
        _post(client, {"pause_id": pause_id, "refused": reason, "token": token})
        return None
    _reap()
    # Buffered output would otherwise be written again by every line woken from the checkpoint.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    read_end, write_end = os.pipe()
    with children.own_fork():
        pid = os.fork()
    if pid == 0:
        os.close(write_end)
        return _hold(client, read_end)
    os.close(read_end)
    checkpoint_id = ""
    try:
        reply = _post(client, {"pause_id": pause_id, "pid": pid, "cap": _settings["cap"], "token": token})
        checkpoint_id = (reply or {}).get("checkpoint_id") or ""
    finally:
        # The checkpoint starts holding only once the server knows it (or exits at once).
        os.write(write_end, checkpoint_id.encode("ascii", "replace") + b"\n")
        os.close(write_end)
    if checkpoint_id:
        _forks.add(pid)
    else:
        os.waitpid(pid, 0)
    return None


def _post(client, body):
    try:
        return client.transport.post("/api/checkpoints", {k: v for k, v in body.items() if v is not None})
    except (ServerError, ServerUnavailable) as exc:
        print(f"breakroom: checkpoint not recorded: {exc}", file=sys.stderr)
        return None


def _hold(client, read_end):
    """The checkpoint process: holds until woken, forks the new live line, never runs the
    program's code itself. Returns the wake order in the new line only."""
    try:
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the live program
        old_chld = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # woken lines are reaped by the kernel
        after_fork(client, follow=False)
        with os.fdopen(read_end, "rb") as pipe:
            checkpoint_id = pipe.readline().decode("ascii", "replace").strip()
        if not checkpoint_id:
            os._exit(0)
        failures = 0
        while True:
            try:
                reply = client.transport.get(f"/api/checkpoints/{checkpoint_id}/hold")
                failures = 0
            except ServerError:
                os._exit(0)  # dropped for the cap, or its process was stopped or forgotten
            except ServerUnavailable:
                failures += 1
                if failures >= MAX_SERVER_FAILURES:
                    os._exit(0)
                time.sleep(1.0)
                continue
            wake = reply.get("wake") if isinstance(reply, dict) else None
            if not isinstance(wake, dict) or not wake.get("token"):
                continue
            with children.own_fork():
                woken = os.fork() == 0
            if woken:
                signal.signal(signal.SIGINT, old_int)
                signal.signal(signal.SIGCHLD, old_chld)
                after_fork(client, follow=True)
                _forks.clear()
                if wake.get("process_id"):
                    os.environ["BREAKROOM_PROCESS_ID"] = str(wake["process_id"])
                return wake
    except BaseException:
        os._exit(1)


_channel_forgotten = [False]  # this process (a checkpoint) had a breakpoint channel before its fork


def after_fork(client, follow):
    """A forked child shares its parent's sockets: it must open its own connections, and (a
    live line, `follow`) start again the threads fork() did not copy: eval workers start on
    demand, the breakpoint channel here."""
    client.transport.forget_connections()
    evaluation.forget_eval_threads()
    channel = current.channel()
    # A checkpoint forgets the channel without following; the lines woken from it follow again.
    if channel.forget_after_fork():
        _channel_forgotten[0] = True
    if _channel_forgotten[0] and follow:
        try:
            channel.follow(client)
        except Exception as exc:
            print(f"breakroom: server breakpoints will not reach this line: {exc}", file=sys.stderr)
