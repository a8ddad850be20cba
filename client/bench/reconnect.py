"""What riding out a server restart costs (issue 32), with the real server binary:

    python3 client/bench/reconnect.py [--programs 50] [--python python3]

1. Restart → all pauses listed: `--programs` real programs paused at a real server (10 threads
   per process), the server killed with SIGKILL and started again on the same data directory;
   the time from its start ("Server running") until `/api/paused` lists every pause again.
2. The per-call cost while the server is down: a wrapped function called in a loop, against a
   plain function, with no server at the URL (the client asks again at most every 2 s).
3. Server back → first pause: a program calls a wrapped function every 100 ms while the server
   is down for 5 s; the time from the server's start until its call is paused again.

The programs and the restartable server are the ones `client/tests/test_reconnect.py` uses.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_reconnect import RUNNING, WORKERS, Restartable, _free_port, _run, _wait_paused  # noqa: E402

CALL_COST = """
    import time, breakroom

    @breakroom.breakpoint
    def wrapped(x):
        return x

    def plain(x):
        return x

    wrapped(0)  # finds the server out of reach
    for f in (plain, wrapped, plain, wrapped):
        t = time.perf_counter()
        for i in range(N):
            f(i)
        print(f.__name__, (time.perf_counter() - t) / N * 1e9)
"""


def restart_to_all_listed(python, programs):
    server = Restartable()
    procs = [_run(WORKERS.replace("THREADS", "10"), server.url, python) for _ in range(programs // 10)]
    pids = {p.pid for p in procs}
    try:
        _wait_paused(server.server, pids, len(procs) * 10, timeout=60)
        server.kill()
        time.sleep(1.0)
        started = time.time()
        _wait_paused(server.start(), pids, len(procs) * 10, timeout=60)
        return time.time() - started
    finally:
        for p in procs:
            p.kill()
        server.stop()


def call_cost(python):
    proc = _run(CALL_COST.replace("N", "1000000"), f"http://127.0.0.1:{_free_port()}", python)
    out, _ = proc.communicate(timeout=120)
    figures = {}
    for line in out.splitlines():
        name, ns = line.split()
        figures[name] = float(ns)  # the second run of each: warmed up
    return figures["plain"], figures["wrapped"]


def back_to_first_pause(python):
    server = Restartable()
    server.server.post("/api/behavior", {"behavior": "go"})
    proc = _run(RUNNING, server.url, python)
    try:
        time.sleep(1.5)
        server.kill()
        time.sleep(5)
        started = time.time()
        server.start().post("/api/behavior", {"behavior": "stop"})
        _wait_paused(server.server, {proc.pid}, 1, timeout=60)
        return time.time() - started
    finally:
        proc.kill()
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=50, help="paused calls (10 threads per process)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    version = subprocess.run([args.python, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}, loopback, {args.rounds} rounds each")
    times = sorted(restart_to_all_listed(args.python, args.programs) for _ in range(args.rounds))
    print(f"server start -> all {args.programs} pauses listed again: median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")
    plain, wrapped = call_cost(args.python)
    print(f"a wrapped call while the server is down: {wrapped:.0f} ns (a plain call {plain:.0f} ns; +{wrapped - plain:.0f} ns)")
    firsts = sorted(back_to_first_pause(args.python) for _ in range(args.rounds))
    print(f"server start -> the running program's first pause: median {firsts[len(firsts) // 2]:.2f} s, max {firsts[-1]:.2f} s")


if __name__ == "__main__":
    main()
