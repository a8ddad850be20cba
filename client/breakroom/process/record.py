"""Who this process is, as the server files it: identity (pid and start time) and the record
that links its calls, hits and snapshots to the server's process (host, argv, labels, parent,
role, BREAKROOM_PROCESS_ID)."""

import os
import socket
import sys
import time

from . import labels

# Processes multiprocessing starts for itself, not for the program's code.
HELPER_MARKS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")

_forked = [False]  # this process is a fork of a debugged one, not a new interpreter


def mark_forked():
    """This process is a fork of a debugged one (its own process from now on)."""
    _forked[0] = True


def forked():
    return _forked[0]


def start_time(_cache={}):
    pid = os.getpid()
    if pid not in _cache:
        _cache[pid] = time.time()
    return _cache[pid]


def identity():
    return {"process_pid": os.getpid(), "process_start_time": start_time()}


def role():
    """`helper` for multiprocessing's own processes (started as one: their forks are workers)."""
    if _forked[0]:
        return None
    argv = getattr(sys, "orig_argv", sys.argv)
    return "helper" if any(mark in arg for arg in argv for mark in HELPER_MARKS) else None


def process_fields():
    """What the server files a child under: its parent pid, and its role when it is a helper."""
    fields = {"parent_pid": os.getppid()}
    helper = role()
    if helper:
        fields["role"] = helper
    return fields


def process_record():
    """Breakroom extensions of call/start that link the call to the server's process record:
    BREAKROOM_PROCESS_ID (set when the server launched this program), the host (a pid means
    nothing on another machine) and argv (the name of a process that connected by itself)."""
    record = {"hostname": socket.gethostname(), "argv": [str(a) for a in sys.argv], **process_fields()}
    # This process's labels (issue 34), so the server can list and aim at processes by them.
    record["labels"] = labels.current()
    process_id = os.environ.get("BREAKROOM_PROCESS_ID")
    if process_id:
        record["process_id"] = process_id
    return record
