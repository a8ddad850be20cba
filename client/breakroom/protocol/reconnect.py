"""Riding out the server's absence (issue 32): a crash, an upgrade, `kill -9`, a laptop's sleep.

- A paused call keeps waiting: its poll is tried again with backoff (50 ms, doubling, up to 2 s)
  for a grace period (`BREAKROOM_RECONNECT_GRACE`, default 120 s). A server that answers but
  does not hold the pause (it restarted) is told the pause again, as a new pause linked to the
  old one (`stop.reconnected_from`); past the grace period the call runs on, with one line.
- A running program that found the server unreachable asks again at a later call, at most
  every 2 s (between those, a call costs one clock read), then registers its functions again
  and reloads the server's breakpoints.
- Given several addresses (`servers`), a server that stops answering is left for the next
  address at once; the waits above start once every address has failed.
"""

import os
import sys
import time

FIRST_DELAY = 0.05
MAX_DELAY = 2.0
# A running program asks an absent server again at most this often.
RECHECK_EVERY = 2.0
DEFAULT_GRACE = 120.0

# What a paused call's wait answers when the server does not hold its pause: report it again.
LOST = "breakroom-lost"


def grace():
    text = os.environ.get("BREAKROOM_RECONNECT_GRACE", "")
    if not text:
        return DEFAULT_GRACE
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value >= 0:
        return value
    print(f"breakroom: ignoring BREAKROOM_RECONNECT_GRACE={text!r}: not a number of seconds", file=sys.stderr)
    return DEFAULT_GRACE


class Absence:
    """One paused call's wait for its server to come back."""

    def __init__(self, url):
        self.url = url
        self.since = None
        self.delay = FIRST_DELAY
        self.grace = None

    def wait(self, moved=False):
        """Sleeps before the next try; False once the grace period is over (said once). With
        `moved` (the client moved to an address not tried yet), the next try is at once."""
        if moved:
            return True
        now = time.monotonic()
        if self.since is None:
            self.since, self.grace = now, grace()
            print(
                f"breakroom: lost the Breakroom server at {self.url}; the paused call waits up to "
                f"{self.grace:g} s for it to come back (BREAKROOM_RECONNECT_GRACE)",
                file=sys.stderr,
            )
        left = self.grace - (now - self.since)
        if left <= 0:
            print(
                f"breakroom: the Breakroom server at {self.url} did not come back within {self.grace:g} s; "
                "the paused call runs on",
                file=sys.stderr,
            )
            return False
        time.sleep(min(self.delay, left))
        self.delay = min(self.delay * 2, MAX_DELAY)
        return True

    def over(self):
        """The server answered: the next absence starts from the shortest delay."""
        self.since = None
        self.delay = FIRST_DELAY


_warned = False


def warn_unavailable(url, detail):
    """One clear line, once per process, instead of a traceback per call."""
    global _warned
    if _warned:
        return
    _warned = True
    print(
        f"breakroom: cannot reach the Breakroom server at {url} ({detail}); "
        "calls run without pausing. Start it with `breakroom` or set BREAKROOM_URL.",
        file=sys.stderr,
    )
