"""What a snapshot breakpoint costs the program it is in (issue 34), with the real server binary
and real programs run by `python -m breakroom`:

    python3 client/bench/snapshots.py [--python python3] [--hits 1000] [--seconds 5] [--rounds 3]

1. The time a hit adds: a function with 20 locals (ints, strings, a list, a dict, an object) is
   called in a loop, 5 ms apart (as requests come), and each call is timed in the program. With a snapshot breakpoint on its
   return line (every call captured: max_hits 1000, no rate limit, the time budget raised to 100 %
   so none is skipped) against the same loop with no breakpoint: the added time is the difference
   at p50 and p99. The snapshots' own `capture_ms` (the time the program waited, as the client
   measured it) is printed beside it.
2. The cost of an arrival at a breakpoint past its rate limit (the common case at a hot line):
   in one process, batches of 20,000 calls of the armed function and of its twin (the same
   source in another module, never armed) take turns; the fastest batch of each. Taking turns
   in one process keeps the machine's drift (other builds on the cores) out of the difference,
   which separate runs of a few seconds each could not.
3. Throughput: the same function plus other work per iteration (6 JSON round trips, ~45 µs, a
   very hot loop; then 100, ~0.7 ms, a request handler's order of work), for --seconds; with a
   snapshot breakpoint hit on every iteration and limited to 10 captures a second (the default
   1 % time budget), against none. Rounds alternate.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import CLIENT_DIR, start_server  # noqa: E402

# The function with the breakpoint lives in a module of its own, as a handler does: the main
# script's own frame is running (a breakpoint in that file would also trace its running frame).
HANDLER = """\
    class Order:
        def __init__(self, n):
            self.n, self.items, self.note = n, list(range(n % 7)), "order"

    def handle(i):
        a, b, c, d, e = i, i + 1, i * 2, i % 7, -i
        s1, s2, s3 = f"id-{i}", "x" * 40, str(i) * 3
        f1, f2 = i / 3, 1.5
        xs, ys = list(range(10)), (1, 2, 3)
        m = {"k": i, "v": [1, 2, 3]}
        order = Order(i)
        flag, none, big = i % 2 == 0, None, 10 ** 20
        t0, t1, t2 = "a", "b", "c"
        return a + b  # SNAP
"""

PROGRAM = """\
    import json, os, sys, time
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_handler import handle
    from bench_twin import handle as twin  # the same source, never armed

    def other_work(i, rounds):
        for _ in range(rounds):
            json.loads(json.dumps({"id": i, "items": list(range(20)), "name": "n" * 30}))

    mode, amount, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    for i in range(200):  # warm up (and the breakpoint armed from the first sync)
        handle(i)

    class Timings:  # a class holds them: a snapshot leaves classes out of the module's frame
        times = []

    for i in range(200):
        twin(i)

    if mode == "arrivals":
        # The cost of one arrival at the line: the armed function and its twin take turns, the
        # fastest batch of each (the least disturbed by the machine); past its rate limit,
        # every arrival is one that is only counted.
        best = {"per_call": float("inf"), "twin_per_call": float("inf")}
        for _ in range(int(amount)):
            for name, function in (("per_call", handle), ("twin_per_call", twin)):
                t = time.perf_counter()
                for i in range(20000):
                    function(i)
                best[name] = min(best[name], (time.perf_counter() - t) / 20000)
        print(json.dumps(best), flush=True)
    elif mode == "hits":
        for i in range(int(amount)):
            t = time.perf_counter()
            handle(i)
            Timings.times.append(time.perf_counter() - t)
            time.sleep(0.005)  # one request's hit at a time, as a server's requests come
        print(json.dumps({"times": Timings.times}), flush=True)
    else:
        # Per second of the process's CPU time (every thread: the capture's worker and the
        # sender too), which a busy neighbour on the machine does not stretch as it does the clock.
        n, end = 0, time.perf_counter() + amount
        started = time.process_time()
        while time.perf_counter() < end:
            handle(n)
            other_work(n, rounds)
            n += 1
        print(json.dumps({"per_s": n / (time.process_time() - started)}), flush=True)
    time.sleep(1.5)  # the sender's last snapshots
"""


def run_program(server, python, path, mode, amount, env=None, work=0):
    done = subprocess.run(
        [python, "-m", "breakroom", path, mode, str(amount), str(work)],
        env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"the program failed: {done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--hits", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=40, help="batches of 20,000 calls per function")
    parser.add_argument("--hot-only", action="store_true", help="only the arrival past the rate and the 50 µs loop")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="breakroom_bench_snap_")
    path = os.path.join(folder, "main.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(PROGRAM))
    handler = os.path.join(folder, "bench_handler.py")
    for name in ("bench_handler.py", "bench_twin.py"):
        with open(os.path.join(folder, name), "w") as f:
            f.write(textwrap.dedent(HANDLER))
    line = next(n for n, t in enumerate(textwrap.dedent(HANDLER).splitlines(), 1) if t.endswith("# SNAP"))
    server = start_server()
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True).stdout.strip()
    try:
        if not args.hot_only:
            capture_cost(server, args, path, handler, line, version)
        hot_loops(server, args, path, handler, line)
    finally:
        server.process.terminate()
        server.process.wait(10)


def capture_cost(server, args, path, handler, line, version):
    base = run_program(server, args.python, path, "hits", args.hits)["times"]
    status, bp = server.post("/api/breakpoints", {"kind": "line", "file": handler, "line": line, "action": "snapshot", "max_hits": 1000})
    assert status == 200, bp
    hit = run_program(server, args.python, path, "hits", args.hits, {"BREAKROOM_SNAPSHOT_BUDGET": "1"})["times"]
    snaps = server.get(f"/api/snapshots?breakpoint_id={bp['id']}&limit=500")[1]["snapshots"]
    captured = [server.get(f"/api/snapshots/{s['snapshot_id']}")[1] for s in snaps[:200]]
    capture_ms = [c["capture_ms"] for c in captured if c.get("capture_ms") is not None]
    server.request("DELETE", f"/api/breakpoints/{bp['id']}")
    ms = lambda s: s * 1000  # noqa: E731
    print(f"Python {version}, {args.hits} calls of a function with 20 locals, every call captured")
    print(f"  call without breakpoint  p50 {ms(statistics.median(base)):.3f} ms  p99 {ms(pct(base, 0.99)):.3f} ms")
    print(f"  call with snapshot       p50 {ms(statistics.median(hit)):.3f} ms  p99 {ms(pct(hit, 0.99)):.3f} ms")
    print(f"  added by a hit           p50 {ms(statistics.median(hit) - statistics.median(base)):.3f} ms"
          f"  p99 {ms(pct(hit, 0.99) - pct(base, 0.99)):.3f} ms")
    if capture_ms:
        print(f"  capture_ms reported      p50 {statistics.median(capture_ms):.3f} ms  p99 {pct(capture_ms, 0.99):.3f} ms"
              f"  ({len(capture_ms)} snapshots read back)")


def hot_loops(server, args, path, handler, line):
    """An arrival past the rate limit, and a loop of ~50 µs with a snapshot hit every
    iteration (issue 46's gate): the loop's throughput between captures."""
    unarmed = run_program(server, args.python, path, "arrivals", args.batches)
    status, bp = server.post("/api/breakpoints", {"kind": "line", "file": handler, "line": line,
                                                  "action": "snapshot", "max_hits": 1000, "max_per_second": 1})
    armed = run_program(server, args.python, path, "arrivals", args.batches)
    server.request("DELETE", f"/api/breakpoints/{bp['id']}")
    # Unarmed, the two modules differ only by where they sit in memory: that difference is the
    # method's own error.
    error_us = (unarmed["per_call"] - unarmed["twin_per_call"]) * 1e6
    plain_call, gated_call = armed["twin_per_call"], armed["per_call"]
    added_us = (gated_call - plain_call) * 1e6
    print(f"one call of the function (fastest of {args.batches} batches of 20,000 each, taking turns with its twin):"
          f" {plain_call * 1e6:.3f} µs; with a snapshot breakpoint past its rate limit: {gated_call * 1e6:.3f} µs"
          f" (+{added_us:.3f} µs an arrival; the method's error, both unarmed: {error_us:+.3f} µs)")
    for iteration_us in (50, 1000):
        print(f"  so a loop of {iteration_us} µs an iteration keeps {100 * iteration_us / (iteration_us + added_us):.2f} %"
              " of its throughput between captures")
    for work, rate in ((6, 1),) if args.hot_only else ((6, 1), (100, 1), (100, 10)):
        plain, limited = [], []
        for _ in range(args.rounds):
            plain.append(run_program(server, args.python, path, "loop", args.seconds, work=work)["per_s"])
            status, bp = server.post("/api/breakpoints", {"kind": "line", "file": handler, "line": line,
                                                          "action": "snapshot", "max_hits": 1000, "max_per_second": rate})
            assert status == 200, bp
            limited.append(run_program(server, args.python, path, "loop", args.seconds, work=work)["per_s"])
            record = next(r for r in server.get("/api/breakpoints")[1]["items"] if r["id"] == bp["id"])
            server.request("DELETE", f"/api/breakpoints/{bp['id']}")
        per_iteration_us = 1e6 / statistics.median(plain)
        # Each round's pair ran back to back: their ratio is less at the mercy of the
        # machine's drift than the ratio of medians.
        ratios = sorted(b / a for a, b in zip(plain, limited))
        print(f"throughput, {work} JSON round trips per iteration (~{per_iteration_us:.0f} µs), {args.seconds:.0f} s,"
              f" {args.rounds} rounds, snapshot hit every iteration, max {rate}/s")
        print(f"  no breakpoint            {statistics.median(plain):.0f} iterations/s (median)")
        print(f"  snapshot breakpoint      {statistics.median(limited):.0f} iterations/s (median)")
        print(f"  paired ratio             median {100 * statistics.median(ratios):.1f} %"
              f"  (rounds: {', '.join(f'{100 * r:.1f}' for r in ratios)})")
        print(f"  last round: captured {record['captured']}, skipped_rate {record['skipped_rate']}, "
              f"skipped_quota {record['skipped_quota']}")


if __name__ == "__main__":
    main()
