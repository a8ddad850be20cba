"""Error breakpoints for exceptions nobody caught (issue 18): the server's enabled `error`
breakpoints, as `BreakpointSpec`s, decide whether an uncaught exception pauses post-mortem.
A breakpoint with `exception_types` matches only those types (or subclasses); its condition is
evaluated in the frame that raised; a logpoint logs instead of pausing. Each decision that
counts is reported like a line breakpoint's hit.
"""

import sys
import threading

from ..protocol.constants import BREAKPOINT_ERROR, EVENT_BREAKPOINT_HIT, EVENT_LOG
from .kinds import CONDITION_ERROR, LOG, PAUSE, BreakpointError, BreakpointSpec, arguments_text

# What makes two records the same breakpoint here (hit counts and last hits change often).
_DEFINING = ("exception_types", "condition", "hit_condition", "pattern", "log_message")


class UncaughtErrors:
    def __init__(self, report):
        self._report = report  # (event, body): to the server
        self._specs = {}  # id -> (defining fields, BreakpointSpec)
        self._refused = {}
        self._lock = threading.Lock()

    def apply(self, records):
        """Takes the enabled error breakpoints among `records`; whether there is any."""
        specs = {}
        for record in records:
            if not (isinstance(record, dict) and record.get("kind") == BREAKPOINT_ERROR and record.get("enabled") and record.get("id")):
                continue
            bp_id = str(record["id"])
            key = tuple(repr(record.get(k)) for k in _DEFINING)
            kept = self._specs.get(bp_id)
            if kept is not None and kept[0] == key:
                specs[bp_id] = kept
                continue
            try:
                specs[bp_id] = (key, BreakpointSpec.from_dict(record))
            except BreakpointError as exc:
                if self._refused.get(bp_id) != str(exc):
                    self._refused[bp_id] = str(exc)
                    print(f"breakroom: breakpoint {bp_id} not set here: {exc}", file=sys.stderr)
        with self._lock:
            self._specs = specs
        return bool(specs)

    def pauses(self, exc, tb):
        """Whether an uncaught `exc` pauses: decided by each matching breakpoint in the frame
        that raised; hits and log messages are reported."""
        with self._lock:
            specs = [spec for _, spec in self._specs.values() if spec.matches_exception(exc)]
        if not specs or tb is None:
            return False
        while tb.tb_next is not None:
            tb = tb.tb_next
        frame = tb.tb_frame
        pause = False
        for spec in specs:
            decision = spec.decide(frame.f_globals, frame.f_locals, arguments=lambda: arguments_text(frame))
            if decision.action not in (PAUSE, LOG, CONDITION_ERROR):
                continue
            body = decision.wire()
            # The server counts the hit: its count also has the errors of wrapped calls.
            body.update(
                hit_count=None,
                reason=f"uncaught {type(exc).__name__}; {decision.reason}",
                file=frame.f_code.co_filename,
                line=tb.tb_lineno,
                function=frame.f_code.co_name,
            )
            if decision.action == LOG:
                print(f"breakroom log [{spec.id}] uncaught {type(exc).__name__}: {decision.message}", file=sys.stderr)
                self._report(EVENT_LOG, body)
            else:
                self._report(EVENT_BREAKPOINT_HIT, body)
                pause = True
        return pause
