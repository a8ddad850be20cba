"""What a breakpoint costs a loop that is already running at a script's top level (issue 46),
and what is left after it is removed: the real server, a real program run by `python -m
breakroom` on this Python (or --python).

    python3 client/bench/running_frames.py [--python python3.12] [--windows 8] [--coroutine]

With --coroutine the same loop is an `async def` worker's, begun before the breakpoint, awaiting
`asyncio.sleep(0)` at each pass (so its frame waits between passes, off every thread's stack).

The program's top-level `while True:` does a few µs of work an iteration and prints its rate
every 0.25 s of its own CPU time, per second of that time (a busy neighbour on the machine does not
stretch that as it does the clock). Phases, each --windows windows after two settling ones:
1. nothing armed;
2. a line breakpoint in the loop whose condition is false (armed, never pausing: the cost
   between hits: 3.11 traces the module's frame, 3.12+ gets a LINE event on that line);
3. a snapshot breakpoint on that line, max 1 a second (its arrivals go through the gate);
4. removed again. Goal: 0 % after disarming.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import CLIENT_DIR, start_server  # noqa: E402

PROGRAM = """\
import json, time
n = 0
count, started = 0, time.process_time()
while True:
    n += 1  # ARMED
    x = sorted(str(i) for i in range(150))
    count += 1
    if count % 500 == 0:
        now = time.process_time()
        if now - started >= 0.25:
            print(json.dumps({"rate": count / (now - started)}), flush=True)
            count, started = 0, now
"""

COROUTINE = """\
import asyncio, json, time

async def worker():
    n = 0
    count, started = 0, time.process_time()
    while True:
        n += 1  # ARMED
        x = sorted(str(i) for i in range(150))
        count += 1
        if count % 500 == 0:
            now = time.process_time()
            if now - started >= 0.25:
                print(json.dumps({"rate": count / (now - started)}), flush=True)
                count, started = 0, now
        await asyncio.sleep(0)

asyncio.run(worker())
"""


class Rates:
    def __init__(self, process):
        self.rates = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            if line.startswith("{"):
                with self.cond:
                    self.rates.append(json.loads(line)["rate"])
                    self.cond.notify_all()

    def next_windows(self, count, settle=4):
        """The median rate of `count` windows printed from now on, after `settle` more."""
        with self.cond:
            start = len(self.rates) + settle
            if not self.cond.wait_for(lambda: len(self.rates) >= start + count, timeout=120):
                raise SystemExit("the loop stopped printing")
            return statistics.median(self.rates[start : start + count])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--windows", type=int, default=8)
    parser.add_argument("--coroutine", action="store_true", help="the loop in an async def worker")
    args = parser.parse_args()
    source = COROUTINE if args.coroutine else PROGRAM
    line = 1 + source.splitlines().index(next(t for t in source.splitlines() if t.endswith("# ARMED")))
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_bench_running_")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    server = start_server()
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True).stdout.strip()
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    program = subprocess.Popen([args.python, "-m", "breakroom", path], env=env, stdout=subprocess.PIPE, text=True)
    try:
        rates = Rates(program)
        plain = rates.next_windows(args.windows)
        status, bp = server.post("/api/breakpoints", {"kind": "line", "file": path, "line": line, "condition": "n < 0"})
        assert status == 200, bp
        armed = rates.next_windows(args.windows)
        server.request("DELETE", f"/api/breakpoints/{bp['id']}")
        status, snap = server.post("/api/breakpoints", {"kind": "line", "file": path, "line": line, "action": "snapshot",
                                                        "max_per_second": 1, "max_hits": 1000})
        assert status == 200, snap
        gated = rates.next_windows(args.windows)
        server.request("DELETE", f"/api/breakpoints/{snap['id']}")
        after = rates.next_windows(args.windows)
        again = rates.next_windows(args.windows)  # a second look at the unarmed loop: the noise
    finally:
        program.kill()
        server.process.terminate()
        server.process.wait(10)

    def pct(rate):
        return 100 * (1 - rate / plain)

    shape = "an async def worker's loop" if args.coroutine else "a top-level loop"
    print(f"Python {version}, {shape} of ~{1e6 / plain:.1f} µs an iteration (CPU time), medians of {args.windows} windows")
    print(f"  nothing armed                          {plain:,.0f} iterations/s")
    print(f"  line breakpoint, condition false       {armed:,.0f} iterations/s  overhead {pct(armed):.1f} %")
    print(f"  snapshot breakpoint, max 1/s (gated)   {gated:,.0f} iterations/s  overhead {pct(gated):.1f} %")
    print(f"  after removing it                      {after:,.0f} iterations/s  overhead {pct(after):.1f} % (goal 0 %)")
    print(f"  unarmed again, later                   {again:,.0f} iterations/s  ({pct(again):.1f} %: the noise)")


if __name__ == "__main__":
    main()
