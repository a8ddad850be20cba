"""What one snapshot costs the program that takes it (issue 34), on this Python.

    python3 client/bench/snapshot_capture.py [--hits 2000]

A line snapshot breakpoint in a function with 20 locals (ints, strings, a list, a dict, a small
object with a Python `__repr__` and one without), with two watch expressions, hit `--hits`
times; each hit is timed on the program's thread from the line engine's callback to its return
(the worker's capture included, the sending not: that is another thread). Goal: p50 <= 1 ms.
A logpoint is timed the same way for scale. No server: snapshots go to a queue that is emptied.
The budget and max_hits are lifted so every hit captures.

With pandas and numpy installed, a snapshot of a frame holding data (a 5,000-row DataFrame, a
100,000-float array, a 300 x 40 array and a list of 50 dicts) is timed too, with its tables and
pictures (issue 52) and without them (`capture.rich_bytes` 0).
"""

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from breakroom.snapshots import take as _snapshots  # noqa: E402
from breakroom.lines.engine import LineBreakpoints  # noqa: E402

PROGRAM = '''
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


class Plain:
    def __init__(self):
        self.name = "plain"
        self.values = [1, 2, 3]


def work(n):
    a, b, c, d, e = n, n + 1, n + 2, n + 3, n + 4
    s1, s2, s3 = "alpha", "beta" * 10, "gamma" * 100
    f1, f2 = 1.5, 2.5
    items = list(range(50))
    table = {"k%d" % i: i for i in range(20)}
    point = Point(n, n)
    plain = Plain()
    flag = True
    nothing = None
    pair = (1, "two")
    tags = {"x", "y"}
    raw = b"bytes"
    total = a + b  # HIT
    return total


try:
    import numpy as np
    import pandas as pd
except ImportError:
    np = None
else:
    FRAME = pd.DataFrame({"order": range(5000), "price": [1.5] * 5000, "note": ["x"] * 5000})
    SIGNAL = np.sin(np.linspace(0, 20, 100_000))
    GRID = np.arange(300 * 40, dtype=float).reshape(300, 40)


def data_work(n):
    frame, signal, grid = FRAME, SIGNAL, GRID
    rows = [{"id": i, "name": str(i)} for i in range(50)]
    total = n + len(rows)  # DATA
    return total
'''


class Sink:
    """Stands for the sender: the program's thread only appends, as with the real queue."""

    def __init__(self):
        self.count = 0

    def put(self, snapshot):
        self.count += 1
        return True

    def call_soon(self, chore):
        chore()


def percentile(times, p):
    return times[min(len(times) - 1, int(len(times) * p))] * 1000


def measure(module, engine, line, record, hits, work="work"):
    spec_id = engine.add(record)["id"]
    times = []
    original = engine.hit

    def timed_hit(*args, **kwargs):
        started = time.perf_counter()
        original(*args, **kwargs)
        times.append(time.perf_counter() - started)

    engine.hit = timed_hit
    try:
        run = getattr(module, work)
        for n in range(hits):
            run(n)
    finally:
        engine.hit = original
        engine.remove(spec_id)
    return sorted(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hits", type=int, default=2000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="breakroom_snapbench_")
    path = os.path.join(folder, "snapbench_target.py")
    with open(path, "w") as f:
        f.write(PROGRAM)
    sys.path.insert(0, folder)
    module = importlib.import_module("snapbench_target")
    line = next(n for n, text in enumerate(PROGRAM.splitlines(), 1) if text.endswith("# HIT"))
    sink = Sink()
    _snapshots._sender = sink
    _snapshots.budget.set_share(1.0)  # measure every hit, not the quota
    engine = LineBreakpoints(pause=None)
    engine._record = lambda *a: None  # logpoints: no stderr printing in the figures
    hooks = getattr(engine, "_monitor", None) is not None
    print(f"Python {sys.version.split()[0]} ({'sys.monitoring' if hooks else 'code rewrite'}), {args.hits} hits each")
    snapshot = {"kind": "line", "file": path, "line": line, "action": "snapshot", "max_hits": 1000,
                "expressions": ["len(items)", "table.get('k3')"], "capture": {"frames": 1}}
    for label, record in (
        ("snapshot, 20 locals, 2 expressions", snapshot),
        ("snapshot, 20 locals, all frames (5)", {**snapshot, "capture": {}}),
        ("logpoint", {"kind": "line", "file": path, "line": line, "log_message": "total={a + b} items={len(items)}"}),
    ):
        times = measure(module, engine, line, {**record, "max_hits": 10 ** 9} if "action" in record else record, args.hits)
        print(f"{label}: p50={percentile(times, 0.5):.3f} ms  p90={percentile(times, 0.9):.3f} ms  "
              f"p99={percentile(times, 0.99):.3f} ms  max={times[-1] * 1000:.3f} ms")
    if module.np is not None:
        data_line = next(n for n, text in enumerate(PROGRAM.splitlines(), 1) if text.endswith("# DATA"))
        data = {"kind": "line", "file": path, "line": data_line, "action": "snapshot", "max_hits": 10 ** 9,
                "capture": {"frames": 1}}
        for label, record in (
            ("snapshot of data, tables and pictures", data),
            ("snapshot of data, rich_bytes 0", {**data, "capture": {"frames": 1, "rich_bytes": 0}}),
        ):
            times = measure(module, engine, data_line, record, max(1, args.hits // 10), work="data_work")
            print(f"{label}: p50={percentile(times, 0.5):.3f} ms  p90={percentile(times, 0.9):.3f} ms  "
                  f"p99={percentile(times, 0.99):.3f} ms  max={times[-1] * 1000:.3f} ms")
    print(f"snapshots queued: {sink.count}")
    engine.close()


if __name__ == "__main__":
    main()
