"""What attaching by pid costs (issue 33), with the real server binary and real programs:

    python3 client/bench/attach.py [--runs 15] [--python python3]

1. Attach → first pause listed: a plain program (no Breakroom anywhere) runs; a line breakpoint
   on its `tick` function is set on the server; the time from `POST /api/processes/attach` until
   `/api/paused` lists its pause. Once for a busy main thread (the pending-call route) and once
   for a main thread asleep in `time.sleep` (the blocked-thread route).
2. The attach request alone (until the client has called in), for both.
3. A process start's added cost with the child hook: a one-line program started (until its line
   runs, and until it has exited), with no PYTHONPATH; with the client's directory on PYTHONPATH
   (the hook imported, following off); and with `BREAKROOM_FOLLOW_CHILDREN=1` (the hook starts
   its thread, which calls in; at exit the program waits for it, so the child is listed).

The programs and the server are the ones `client/tests/test_attach.py` uses.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import CLIENT_DIR, start_server  # noqa: E402
from test_attach import SCENARIOS, TICK_LINE, Target  # noqa: E402


def p50_p90(values):
    values = sorted(values)
    return statistics.median(values), values[min(len(values) - 1, int(len(values) * 0.9))]


def attach_to_first_pause(server, python, scenario, runs):
    to_pause, attach_only = [], []
    for _ in range(runs):
        target = Target(python, SCENARIOS[scenario])
        try:
            target.wait_for_line("tick")
            status, bp = server.post("/api/breakpoints", {"kind": "line", "file": target.path, "line": TICK_LINE})
            assert status == 200, bp
            started = time.perf_counter()
            status, answer = server.post("/api/processes/attach", {"pid": target.pid})
            attach_only.append(time.perf_counter() - started)
            assert status == 202, answer
            pause = server.wait_for_pause("tick", timeout=15, pid=target.pid)
            to_pause.append(time.perf_counter() - started)
            server.request("DELETE", f"/api/breakpoints/{bp['id']}")
            server.resume(pause["id"])
        finally:
            target.kill()
    return to_pause, attach_only


def start_cost(python, server_url, runs):
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("BREAKROOM", "PYTHON"))}
    variants = {
        "no hook": plain,
        "hook, not following": {**plain, "PYTHONPATH": str(CLIENT_DIR)},
        "hook, following": {
            **plain,
            "PYTHONPATH": str(CLIENT_DIR),
            "BREAKROOM_FOLLOW_CHILDREN": "1",
            "BREAKROOM_URL": server_url,
        },
    }
    to_first_line = {name: [] for name in variants}
    whole = {name: [] for name in variants}
    for _ in range(runs):
        for name, env in variants.items():
            started, wall = time.perf_counter(), time.time()
            done = subprocess.run([python, "-c", "import time; print(time.time())"], env=env, check=True, capture_output=True, text=True)
            whole[name].append(time.perf_counter() - started)
            to_first_line[name].append(float(done.stdout) - wall)
    return to_first_line, whole


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    server = start_server("--eval-timeout", "10")
    try:
        version = subprocess.run([args.python, "-V"], capture_output=True, text=True).stdout.strip()
        print(f"{version}, {args.runs} runs each, loopback, this machine")
        for scenario in ("busy_loop", "sleep"):
            to_pause, attach_only = attach_to_first_pause(server, args.python, scenario, args.runs)
            (p50, p90), (a50, a90) = p50_p90(to_pause), p50_p90(attach_only)
            print(f"attach -> first pause listed ({scenario}): p50 {p50 * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms")
            print(f"attach request alone ({scenario}):       p50 {a50 * 1000:.0f} ms, p90 {a90 * 1000:.0f} ms")
        to_first_line, whole = start_cost(args.python, server.url, args.runs * 2)
        for label, timings in (("start -> first line", to_first_line), ("start -> exit (a one-line program)", whole)):
            base = statistics.median(timings["no hook"])
            for name, values in timings.items():
                median = statistics.median(values)
                print(f"{label}, {name:<20} p50 {median * 1000:.1f} ms (+{(median - base) * 1000:.1f} ms)")
    finally:
        server.process.terminate()
        server.process.wait(5)


if __name__ == "__main__":
    main()
