"""Completion round trip through a real paused program: an HTTP caller posts
`/api/repl/{id}/complete`, the server hands the request to the paused Python program (this
package's client answers it in its waiting loop; an unchanged cideldill client, played by
`client/tests/cideldill_driver.py`, evaluates the completion snippet), and the reply comes back.

    python3 client/bench/complete_round_trip.py [--requests 1000] [--bin target/release/breakroom]

Inputs cycle through names, attributes, a dict key and a keyword. Prints p50/p90/p99 per client;
asserts nothing (goal: p50 ≤ 10 ms).
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import report  # noqa: E402
from breakroom.protocol.transport import Transport  # noqa: E402
from cideldill_driver import ProtocolDriver  # noqa: E402
from conftest import FRAME, pause_program, start_server  # noqa: E402

# (code, a match it must include): FRAME's locals are items, total, label, order_id.
INPUTS_FRAME = [("tot", "total"), ("label.up", "upper"), ("ite", "items"), ("items.app", "append"), ("whi", "while")]
INPUTS_DRIVER = [("tot", "total"), ("order", "order_id"), ("items.app", "append"), ("whi", "while")]


def time_completions(server_url, session_id, inputs, requests, warmup):
    caller = Transport(server_url)
    path = f"/api/repl/{session_id}/complete"
    for i in range(warmup):
        caller.post(path, {"code": inputs[i % len(inputs)][0]})
    times = []
    for i in range(requests):
        code, expected = inputs[i % len(inputs)]
        started = time.perf_counter()
        body = caller.post(path, {"code": code})
        times.append(time.perf_counter() - started)
        assert expected in body["matches"], (code, body)
    return sorted(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    try:
        paused = pause_program(server, FRAME, "process")
        times = time_completions(server.url, paused.session_id, INPUTS_FRAME, args.requests, warmup=50)
        report("completion round trip, Breakroom client", times)
        paused.program.kill()

        driver = ProtocolDriver(server.url, "bench_snippet")
        driver.start()
        session = server.start_session(driver.pause_id)
        times = time_completions(server.url, session, INPUTS_DRIVER, args.requests, warmup=50)
        report("completion round trip, eval-only client (snippet)", times)
        server.resume(driver.pause_id)
    finally:
        server.process.kill()
        server.process.wait()


if __name__ == "__main__":
    main()
