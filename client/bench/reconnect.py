"""What riding out a server restart costs (issue 32), with the real server binary:

    python3 client/bench/reconnect.py [--programs 50] [--python python3]

1. Restart → all pauses listed: `--programs` real programs paused at a real server (10 threads
   per process), the server killed with SIGKILL and started again on the same data directory;
   the time from its start ("Server running") until `/api/paused` lists every pause again.
2. The per-call cost while the server is down: a wrapped function called in a loop, against a
   plain function, with no server at the URL (the client asks again at most every 2 s).
3. Server back → first pause: a program calls a wrapped function every 100 ms while the server
   is down for 5 s; the time from the server's start until its call is paused again.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "client" / "tests"))

from conftest import start_server  # noqa: E402  (the tests' way of starting the real binary)

WORKERS = """
    import threading, breakroom

    @breakroom.breakpoint
    def work(i):
        return i

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
"""

RUNNING = """
    import time, breakroom

    @breakroom.breakpoint
    def tick(n):
        return n

    n = 0
    while True:
        tick(n)
        n += 1
        time.sleep(0.1)
"""

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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(python, source, url, **env):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_bench_reconnect_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    return subprocess.Popen(
        [python, path],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "client"), "BREAKROOM_URL": url, **env},
    )


def wait_paused(server, pids, count, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if sum(p["call_data"]["process_pid"] in pids for p in server.paused()) >= count:
            return time.time()
        time.sleep(0.005)
    raise RuntimeError(f"fewer than {count} pauses listed")


def restart_to_all_listed(python, programs):
    port, data = free_port(), tempfile.mkdtemp(prefix="breakroom-bench-")
    server = start_server("--port", str(port), data_dir=data)
    url = f"http://127.0.0.1:{port}"
    procs = [run(python, WORKERS.replace("THREADS", "10"), url) for _ in range(programs // 10)]
    pids = {p.pid for p in procs}
    try:
        wait_paused(server, pids, len(procs) * 10)
        server.process.kill()
        server.process.wait()
        time.sleep(1.0)
        started = time.time()
        server = start_server("--port", str(port), data_dir=data)
        listed = wait_paused(server, pids, len(procs) * 10)
        return listed - started, len(procs) * 10
    finally:
        for p in procs:
            p.kill()
        server.process.kill()


def call_cost(python):
    proc = run(python, CALL_COST.replace("N", "1000000"), f"http://127.0.0.1:{free_port()}")
    out, _ = proc.communicate(timeout=120)
    figures = {}
    for line in out.splitlines():
        name, ns = line.split()
        figures[name] = float(ns)  # the second run of each: warmed up
    return figures["plain"], figures["wrapped"]


def back_to_first_pause(python):
    port, data = free_port(), tempfile.mkdtemp(prefix="breakroom-bench-")
    server = start_server("--port", str(port), data_dir=data)
    server.post("/api/behavior", {"behavior": "go"})
    proc = run(python, RUNNING, f"http://127.0.0.1:{port}")
    try:
        time.sleep(1.5)
        server.process.kill()
        server.process.wait()
        time.sleep(5)
        started = time.time()
        server = start_server("--port", str(port), data_dir=data)
        server.post("/api/behavior", {"behavior": "stop"})
        return wait_paused(server, {proc.pid}, 1) - started
    finally:
        proc.kill()
        server.process.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=50, help="paused calls (10 threads per process)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    version = subprocess.run([args.python, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}, loopback, {args.rounds} rounds each")
    times = sorted(restart_to_all_listed(args.python, args.programs)[0] for _ in range(args.rounds))
    print(f"server start -> all {args.programs} pauses listed again: median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")
    plain, wrapped = call_cost(args.python)
    print(f"a wrapped call while the server is down: {wrapped:.0f} ns (a plain call {plain:.0f} ns; +{wrapped - plain:.0f} ns)")
    firsts = sorted(back_to_first_pause(args.python) for _ in range(args.rounds))
    print(f"server start -> the running program's first pause: median {firsts[len(firsts) // 2]:.2f} s, max {firsts[-1]:.2f} s")


if __name__ == "__main__":
    main()
