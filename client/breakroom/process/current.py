"""The process's one client and one line engine, and the breakpoint channel's entry points.

Many layers need them: a snapshot's sender and a child process need the client, a step to a
line needs the line engine, the client starts the breakpoint channel when it connects. Those
are defined above the layers that use them (the client reports pauses the channel asks for), so
this module imports none of them: `breakroom/__init__` hands it the makers once, at import, and
the import graph keeps no cycle. A module of the package is always imported after
`breakroom/__init__`, so the makers are there before anyone asks.
"""

import threading

lock = threading.Lock()
_client = None
_line_engine = None
_make_client = None
_make_line_engine = None
_channel = None  # the breakpoint channel's module: follow, catch_up, restart_in_fork_child...


def provide(make_client, make_line_engine, channel):
    """Called once by `breakroom/__init__`: how the client and the line engine are made, and the
    module that runs the server's breakpoint channel."""
    global _make_client, _make_line_engine, _channel
    _make_client, _make_line_engine, _channel = make_client, make_line_engine, channel


def client():
    """The process's client, made on first use (BREAKROOM_URL)."""
    global _client
    with lock:
        if _client is None:
            _client = _make_client(None)
        return _client


def existing_client():
    """The client if one was made, else None: a forked child asks without making one."""
    return _client


def replace_client(url):
    """A new client for `url` (None: BREAKROOM_URL), which the process uses from now on."""
    global _client
    with lock:
        _client = _make_client(url)
        return _client


def line_engine():
    """The process's line breakpoints (a `LineBreakpoints`), made on first use."""
    global _line_engine
    with lock:
        if _line_engine is None:
            _line_engine = _make_line_engine()
        return _line_engine


def channel():
    """The breakpoint channel's module (`breakroom.breakpoint_channel`)."""
    return _channel
