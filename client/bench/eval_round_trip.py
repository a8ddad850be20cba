"""Eval round trip through the real client: an HTTP caller posts `/api/repl/{id}/eval`, the
server hands it to a real paused Python program (this package's client), which evaluates it and
posts the result back.

    python3 client/bench/eval_round_trip.py [--evals 2000] [--bin target/release/breakroom]

The caller is this package's own kept-alive transport: with http.client as the caller, ~0.1 ms
of each figure would be http.client parsing the answer's headers.

Prints p50/p90/p99; asserts nothing (target: p50 ≤ 0.5 ms, p99 ≤ 2 ms on loopback).
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from breakroom._transport import Transport  # noqa: E402
from conftest import FRAME, pause_program, start_server  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evals", type=int, default=2000)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    try:
        paused = pause_program(server, FRAME, "process")
        caller = Transport(server.url)
        path = f"/api/repl/{paused.session_id}/eval"

        def one(expr):
            return caller.post(path, {"expr": expr})

        for _ in range(100):
            one("total")
        times = []
        for _ in range(args.evals):
            started = time.perf_counter()
            body = one("total * 7")
            times.append(time.perf_counter() - started)
            assert body["output"] == "42", body
        times.sort()
        pct = lambda p: times[min(len(times) - 1, int(len(times) * p))] * 1000  # noqa: E731
        print(
            f"eval round trip through the Python client, n={len(times)}: "
            f"p50={pct(0.5):.3f} ms  p90={pct(0.9):.3f} ms  p99={pct(0.99):.3f} ms  max={times[-1] * 1000:.3f} ms"
        )
        paused.program.kill()
    finally:
        server.process.kill()
        server.process.wait()


if __name__ == "__main__":
    main()
