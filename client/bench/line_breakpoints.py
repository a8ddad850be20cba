"""What line breakpoints cost a program that does not stop at them (issue 18), on this Python.

    python3 client/bench/line_breakpoints.py [--calls 300000] [--runs 15]

1. A CPU-bound, call-heavy loop with no breakpoint, with ten line breakpoints armed in OTHER
   functions of the same file, and (for scale) under a global sys.settrace that does nothing,
   which is what a tracing debugger costs. Goal: ten breakpoints within 5 % of none.
2. The per-call cost of a line breakpoint whose condition is false, against the same function
   without it.
3. A frame that was already running when a breakpoint was armed in its function (on a line it
   never reaches): it is traced until it returns, which is what that costs it.

No server is needed: nothing pauses. Each figure is the best of --runs runs (alternating, so
the machine's noise hits every variant alike); the median is printed too.
"""

import argparse
import importlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import breakroom  # noqa: E402

WORKLOAD = '''
def helper(x):
    return x * 3 + 1


def hot(n):
    total = 0
    for i in range(n):
        total += helper(i) % 7
    return total


def hot_armed_while_running(n, at_start):
    total = 0
    for i in range(n):
        if i == 0:
            at_start()
        if i < 0:
            total = -1  # UNREACHED
        total += helper(i) % 7
    return total


def checked(n):
    m = n + 1  # CHECKED
    return m


def run_checked(n):
    for i in range(n):
        checked(i)

'''
OTHER = '''
def other_{k}(x):
    y = x + {k}  # OTHER
    return y
'''


def line_of(path, marker, nth=0):
    with open(path) as f:
        return [n for n, text in enumerate(f, 1) if text.rstrip().endswith("# " + marker)][nth]


def timed(fn, *args):
    # CPU time of this process: on a shared, busy machine wall time mostly measures the others.
    started = time.process_time()
    fn(*args)
    return time.process_time() - started


def best_of(runs, variants):
    """{name: [seconds, …]} for variants {name: (setup, call, teardown)}, run alternately."""
    times = {name: [] for name in variants}
    for _ in range(runs):
        for name, (setup, call, teardown) in variants.items():
            setup()
            try:
                times[name].append(call())
            finally:
                teardown()
    return times


def describe(label, times, base=None):
    best, median = min(times), statistics.median(times)
    text = f"{label:<46} best {best * 1000:8.2f} ms  median {median * 1000:8.2f} ms"
    if base is not None:
        text += f"  ({(best / min(base) - 1) * 100:+.1f} % best, {(median / statistics.median(base) - 1) * 100:+.1f} % median)"
    print(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300_000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    n, runs = args.calls, args.runs

    folder = tempfile.mkdtemp(prefix="breakroom_bench_")
    path = os.path.join(folder, "bench_workload.py")
    with open(path, "w") as f:
        f.write(WORKLOAD + "".join(OTHER.format(k=k) for k in range(10)))
    sys.path.insert(0, folder)
    workload = importlib.import_module("bench_workload")
    engine = breakroom.line_breakpoints()
    nothing = lambda: None  # noqa: E731

    print(f"Python {sys.version.split()[0]}, {n:,} calls of the hot loop, best of {runs} runs")

    # 1. ten breakpoints elsewhere
    ids = []

    def arm_ten():
        for k in range(10):
            ids.append(engine.add({"kind": "line", "file": path, "line": line_of(path, "OTHER", k)})["id"])

    def disarm():
        while ids:
            engine.remove(ids.pop())

    def quiet_trace(frame, event, arg):
        return None

    times = best_of(
        runs,
        {
            "none": (nothing, lambda: timed(workload.hot, n), nothing),
            "ten": (arm_ten, lambda: timed(workload.hot, n), disarm),
            "settrace": (lambda: sys.settrace(quiet_trace), lambda: timed(workload.hot, n), lambda: sys.settrace(None)),
        },
    )
    describe("no breakpoint", times["none"])
    describe("ten line breakpoints in other functions", times["ten"], times["none"])
    describe("(for scale) a global sys.settrace doing nothing", times["settrace"], times["none"])

    # 2. a breakpoint whose condition never holds, in the called function
    def arm_checked():
        ids.append(engine.add({"kind": "line", "file": path, "line": line_of(path, "CHECKED"), "condition": "n < 0"})["id"])

    times = best_of(
        runs,
        {
            "plain": (nothing, lambda: timed(workload.run_checked, n), nothing),
            "condition": (arm_checked, lambda: timed(workload.run_checked, n), disarm),
        },
    )
    describe("calls of a function without breakpoint", times["plain"])
    describe("with a breakpoint whose condition is false", times["condition"], times["plain"])
    per_call = (min(times["condition"]) - min(times["plain"])) / n * 1e9
    per_call_median = (statistics.median(times["condition"]) - statistics.median(times["plain"])) / n * 1e9
    print(f"{'  per call, non-matching condition':<46} {per_call:8.0f} ns best, {per_call_median:.0f} ns median")

    # 3. a frame already running when its function gets a breakpoint
    def arm_unreached():
        ids.append(engine.add({"kind": "line", "file": path, "line": line_of(path, "UNREACHED")})["id"])

    times = best_of(
        runs,
        {
            "plain": (nothing, lambda: timed(workload.hot_armed_while_running, n, nothing), nothing),
            "traced": (nothing, lambda: timed(workload.hot_armed_while_running, n, arm_unreached), disarm),
        },
    )
    describe("a loop running its whole course untouched", times["plain"])
    describe("the same loop, armed (elsewhere in it) at its start", times["traced"], times["plain"])
    engine.close()


if __name__ == "__main__":
    main()
