"""The server addresses a program is given, and the one it talks to now (failover).

    BREAKROOM_URL=http://10.0.0.5:5174,http://10.0.0.6:5174
    BREAKROOM_URL=https://debug.example.com:5174   (BREAKROOM_CA_FILE: the CA to trust, if not the system's)

Each entry is an http:// or https:// URL. The client talks to the first that answers. When the
one in use stops answering (connection refused or reset, a timeout), the next in the list is used
from then on (round robin, wrapping): a paused call tells its pause there, the breakpoint channel
follows that server, queued snapshots go there. Nothing moves back to an address that comes
back while the one in use answers.

One `Servers` per distinct list, shared by the process's transports (the client's, the
breakpoint channel's, the snapshot sender's), so they all move together.
"""

import os
import sys
import threading
import urllib.parse

DEFAULT_URL = "http://127.0.0.1:5174"
# With several addresses, a connection attempt gives up after this long, so an address that
# swallows packets (a host that went away) does not hold the program for a whole request timeout.
CONNECT_TIMEOUT = 2.0
# With several addresses, a server silent this long is taken for hung (a stopped process still
# accepts connections, so only silence tells): the server holds a poll at most 5 s.
SILENCE_TIMEOUT = 6.0


class Server:
    """One address: where to connect and what to put in the request line and Host header."""

    __slots__ = ("url", "host", "port", "base_path", "host_header", "tls")

    def __init__(self, url, host, port, base_path, host_header, tls=False):
        self.url = url
        self.host = host
        self.port = port
        self.base_path = base_path
        self.host_header = host_header
        self.tls = tls  # https: the connection is wrapped in TLS (transport.py)

    def __repr__(self):
        return f"Server({self.url!r})"


def parse_one(text, position=None):
    """One entry as a `Server`; ValueError naming the entry when it is not an http:// or
    https:// URL. `position`: (its number, how many) in a list."""
    url = text.strip().rstrip("/")
    try:
        parsed = urllib.parse.urlsplit(url)
        port = parsed.port
    except ValueError:  # a port that is not a number, or out of range
        parsed, port = None, None
    if parsed is None or parsed.scheme not in ("http", "https", "") or not parsed.hostname:
        if position is None:
            raise ValueError(f"BREAKROOM_URL must be an http:// or https:// URL, not {url!r}")
        number, count = position
        raise ValueError(
            f"BREAKROOM_URL entry {number} of {count}, {text.strip()!r}, is not an http:// or https:// URL"
        )
    host = parsed.hostname
    tls = parsed.scheme == "https"
    bracketed = f"[{host}]" if ":" in host else host
    # The Host the server checks: the name this client connects to.
    host_header = bracketed if port is None else f"{bracketed}:{port}"
    return Server(url, host, port or (443 if tls else 80), parsed.path.rstrip("/"), host_header, tls)


def parse(spec):
    """`spec` (a comma-separated string, or a list of strings) as a tuple of `Server`s. Blank
    entries (a trailing comma) are skipped; none at all is the default address."""
    if isinstance(spec, (list, tuple)):
        entries = [str(e) for e in spec]
    else:
        entries = str(spec).split(",")
    entries = [e for e in entries if e.strip()]
    if len(entries) == 1:
        return (parse_one(entries[0]),)
    return tuple(parse_one(e, (i, len(entries))) for i, e in enumerate(entries, 1)) or (parse_one(DEFAULT_URL),)


class Servers:
    """The list and which entry is in use. `generation` counts the moves: a part of the client
    that keeps state on the server (registered functions, a breakpoints version, sent values)
    compares it to the one it saw and starts over when it changed."""

    def __init__(self, entries):
        self.entries = entries
        self.url = ",".join(s.url for s in entries)  # the whole list, as children inherit it
        self.several = len(entries) > 1
        self.connect_timeout = CONNECT_TIMEOUT if self.several else None
        self.silence_timeout = SILENCE_TIMEOUT if self.several else None
        self._lock = threading.Lock()
        # (index in use, generation, addresses failed in a row since one last answered): one
        # tuple, so a reader never sees half a move.
        self._state = (0, 0, 0)

    def __len__(self):
        return len(self.entries)

    def current(self):
        """(index, Server, generation) of the address in use."""
        index, generation, _ = self._state
        return index, self.entries[index], generation

    @property
    def generation(self):
        return self._state[1]

    def describe(self):
        """The addresses, for messages: `http://a` or `http://a or http://b`."""
        return " or ".join(s.url for s in self.entries)

    def answered(self):
        """A request got an answer: every address is worth a try again after the next failure."""
        if self._state[2]:
            with self._lock:
                index, generation, _ = self._state
                self._state = (index, generation, 0)

    def failed(self, index, detail=""):
        """The address at `index` did not answer. If it is still the one in use, the next in the
        list is from now on (once, however many threads saw it fail). True when the address now
        in use has not failed since an address last answered: it is worth asking at once."""
        if not self.several:
            return False
        with self._lock:
            current, generation, misses = self._state
            if current == index:
                current, generation, misses = (index + 1) % len(self.entries), generation + 1, misses + 1
                self._state = (current, generation, misses)
                moved = True
            else:
                moved = False
        if moved and misses <= len(self.entries):
            # Said once per move, while there is somewhere new to go (not each round of a wait
            # for a list that is all down).
            print(
                f"breakroom: the Breakroom server at {self.entries[index].url} stopped answering"
                f"{f' ({detail})' if detail else ''}; using {self.entries[current].url}",
                file=sys.stderr,
            )
        return misses < len(self.entries)

    def _after_fork(self):
        self._lock = threading.Lock()  # a lock some other thread held at the fork stays held


_shared = {}


def shared(spec):
    """The process's `Servers` for this list (parsed, so a bad entry raises here)."""
    entries = parse(spec)
    key = tuple(s.url for s in entries)
    servers = _shared.get(key)
    if servers is None:
        servers = _shared.setdefault(key, Servers(entries))
    return servers


def _reset_after_fork():
    for servers in list(_shared.values()):
        servers._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
