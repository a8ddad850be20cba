"""Line breakpoints through `sys.monitoring` (Python 3.12 and later).

PEP 669 gives per-code-object line events: a LINE event is turned on only for the code objects
that hold an armed line, running frames included, and every other line of those codes is
switched off after its first event (`DISABLE`). No code is rewritten.

Not exercised by the tests on this machine (Python 3.11): `available` is False there.
"""

import sys

available = sys.version_info >= (3, 12)


class MonitoredLines:
    """LINE events for chosen (code, line) pairs; `on_line(frame, line)` for each one reached."""

    def __init__(self, on_line):
        self._on_line = on_line
        self._armed = {}  # code -> lines armed in it
        mon = sys.monitoring
        self._mon = mon
        self.tool = None
        for tool in (mon.DEBUGGER_ID, 4, 5):  # another debugger may hold DEBUGGER_ID
            try:
                mon.use_tool_id(tool, "breakroom")
            except ValueError:
                continue
            self.tool = tool
            break
        if self.tool is None:
            raise RuntimeError("sys.monitoring: no free tool id for breakroom")
        mon.register_callback(self.tool, mon.events.LINE, self._line)

    def _line(self, code, line):
        lines = self._armed.get(code)
        if not lines or line not in lines:
            return self._mon.DISABLE  # this location only; set() below restarts them
        self._on_line(sys._getframe(1), line)
        return None

    def set(self, armed):
        """Replaces what is armed: {code: lines}."""
        mon = self._mon
        for code in set(self._armed) - set(armed):
            mon.set_local_events(self.tool, code, 0)
        self._armed = {code: set(lines) for code, lines in armed.items() if lines}
        for code in self._armed:
            mon.set_local_events(self.tool, code, mon.events.LINE)
        mon.restart_events()  # locations DISABLEd earlier may be armed lines now

    def close(self):
        self.set({})
        self._mon.register_callback(self.tool, self._mon.events.LINE, None)
        self._mon.free_tool_id(self.tool)
