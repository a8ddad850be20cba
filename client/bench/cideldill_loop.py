"""Eval round trip and idle cost of an unchanged cideldill client's pause loop (docs/src/protocol.md §5.6)
against the real server: `client/tests/cideldill_driver.py` plays the client in its own process
(new connection per request, poll → poll-repl → eval thread → repl-result, sleeping the server's
`poll_interval_ms`), and a browser-like caller on one kept-alive connection times its evals.

    python3 client/bench/cideldill_loop.py [--evals 500] [--idle 5] [--bin target/release/breakroom]

Prints p50/p90/p99 and the CPU the paused client and the server use while nobody evaluates;
asserts nothing (targets: p50 ≤ 3 ms, idle CPU ≈ 0). cideldill's own server: p50 110 ms.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
sys.path.insert(0, str(TESTS))

sys.path.insert(0, str(HERE.parent))

from _timing import report, time_evals  # noqa: E402
from conftest import start_server  # noqa: E402


def cpu_seconds(pid):
    """utime + stime of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evals", type=int, default=500)
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle pause to measure CPU over")
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    client = None
    try:
        client = subprocess.Popen(
            [sys.executable, str(TESTS / "cideldill_driver.py"), server.url, "bench_target"],
            stdout=subprocess.PIPE,
            text=True,
        )
        pause_id = json.loads(client.stdout.readline())["pause_id"]
        session = server.start_session(pause_id)
        times = time_evals(server.url, session, args.evals, warmup=20)
        report("cideldill client loop, eval round trip", times)

        time.sleep(0.2)  # let the last poll park
        client_before, server_before = cpu_seconds(client.pid), cpu_seconds(server.process.pid)
        time.sleep(args.idle)
        client_cpu = cpu_seconds(client.pid) - client_before
        server_cpu = cpu_seconds(server.process.pid) - server_before
        print(
            f"idle paused client over {args.idle:.0f} s: client CPU {client_cpu * 1000:.0f} ms "
            f"({client_cpu / args.idle * 100:.2f} %), server CPU {server_cpu * 1000:.0f} ms "
            f"({server_cpu / args.idle * 100:.2f} %)"
        )
        server.resume(pause_id)
        client.wait(10)
    finally:
        if client and client.poll() is None:
            client.kill()
        server.process.kill()
        server.process.wait()


if __name__ == "__main__":
    main()
