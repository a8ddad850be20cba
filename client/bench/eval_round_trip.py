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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import report, time_evals  # noqa: E402
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
        times = time_evals(server.url, paused.session_id, args.evals, warmup=100)
        report("eval round trip through the Python client", times)
        paused.program.kill()
    finally:
        server.process.kill()
        server.process.wait()


if __name__ == "__main__":
    main()
