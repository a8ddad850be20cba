"""How long `complete()` takes on a realistic paused frame, in-process (no server, no HTTP).

    python3 client/bench/completion.py [--runs 2000]

The frame: a request handler's locals (a request object with a headers dict, a 200-key config,
10,000 records, a database-ish object with methods), the globals of a real module (the
stdlib's `json.decoder` plus `os`), builtins. Each input is one a user would type. Also times
the snippet path an unchanged cideldill client takes: the eval of `completion_snippet(...)` in
the frame, cold (first, compiles the carried source) and warm (the completer is cached).

Prints p50/p99 per input and over all, wall clock and the thread's CPU time (on a loaded
machine the wall-clock p99 is mostly the scheduler); asserts nothing (goal: far under the 10 ms round trip).
"""

import argparse
import json.decoder
import os
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from breakroom.repl.complete import complete, completion_snippet, decode_snippet_result  # noqa: E402


class Database:
    def __init__(self):
        self.connection_string = "postgres://localhost/app"
        self.pool_size = 10

    @property
    def cursor(self):
        raise RuntimeError("a completion must not open cursors")

    def fetch_orders(self, customer_id, limit=100, *, include_cancelled=False):
        return []

    def fetch_customer(self, customer_id):
        return None


def frame():
    request = types.SimpleNamespace(
        method="POST",
        path="/orders",
        headers={f"X-Header-{i}": str(i) for i in range(40)} | {"Content-Type": "json", "Content-Length": "12"},
        body=b"{}",
        user=types.SimpleNamespace(id=7, name="ada", roles=["admin"]),
    )
    frame_locals = {
        "request": request,
        "config": {f"setting_{i}": i for i in range(200)},
        "records": [{"id": i, "total": i * 3} for i in range(10_000)],
        "db": Database(),
        "order_id": 7,
        "total": 6,
    }
    frame_globals = dict(vars(json.decoder))
    frame_globals["os"] = os
    return [{}, frame_locals, frame_globals]


INPUTS = [
    "re",  # names across layers and builtins
    "request.he",  # attribute
    "request.user.na",  # chained attributes
    "request.headers['Content",  # dict keys
    "config['setting_1",  # dict keys, 200 keys
    "db.",  # all attributes, a property among them not called
    "db.fetch_orders(7, inc",  # keyword parameters
    "os.path.jo",  # a module chain
    "",  # everything
]


def percentiles(times):
    times = sorted(times)
    pick = lambda p: times[min(len(times) - 1, int(len(times) * p))] * 1000  # noqa: E731
    return pick(0.5), pick(0.99)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    layers = frame()
    everything, everything_cpu = [], []
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    # On a busy machine the p99 is the scheduler's time slice, not the completer.
    print(f"complete(), {args.runs} runs per input (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load}):")
    for code in INPUTS:
        for _ in range(50):
            complete(code, None, layers)
        times, cpu_times = [], []
        for _ in range(args.runs):
            started, cpu_started = time.perf_counter(), time.thread_time()
            reply = complete(code, None, layers)
            times.append(time.perf_counter() - started)
            cpu_times.append(time.thread_time() - cpu_started)
        everything += times
        everything_cpu += cpu_times
        p50, p99 = percentiles(times)
        cpu_p50, cpu_p99 = percentiles(cpu_times)
        print(
            f"  {code!r:28} {len(reply['matches']):4} matches  p50={p50:.3f} ms  p99={p99:.3f} ms"
            f"   (CPU p50={cpu_p50:.3f} ms  p99={cpu_p99:.3f} ms)"
        )
    p50, p99 = percentiles(everything)
    cpu_p50, cpu_p99 = percentiles(everything_cpu)
    print(f"  all inputs: p50={p50:.3f} ms  p99={p99:.3f} ms   (CPU p50={cpu_p50:.3f} ms  p99={cpu_p99:.3f} ms)")

    # The cideldill path: eval of the snippet, with the frame's globals and locals.
    frame_globals, frame_locals = layers[2], layers[1]
    snippet = completion_snippet("request.he")
    started = time.perf_counter()
    value = eval(compile(snippet, "<repl>", "eval"), frame_globals, frame_locals)
    cold = time.perf_counter() - started
    assert decode_snippet_result(repr(value))["matches"] == ["headers"]
    times = []
    for _ in range(args.runs // 4):
        started = time.perf_counter()
        repr(eval(compile(completion_snippet("request.he"), "<repl>", "eval"), frame_globals, frame_locals))
        times.append(time.perf_counter() - started)
    p50, p99 = percentiles(times)
    print(
        f"snippet eval ({len(snippet)} characters, as a cideldill client runs it): cold {cold * 1000:.3f} ms, "
        f"warm p50={p50:.3f} ms  p99={p99:.3f} ms"
    )


if __name__ == "__main__":
    main()
