"""How long a line breakpoint added from the server takes to pause a program whose main thread
is busy: a script's top-level loop that never sleeps, run by `python -m breakroom`, started
plain and attached by pid (`--attach`), or started with the child hook on its path as `breakroom
run` starts it (`--hook`: the client imports itself and calls in on a thread of its own beside
the loop; the time from the start to the process being listed is printed too). The real server,
the real client, with some of the standard library imported as programs do. The breakpoint channel's thread arms the line; beside a thread that
holds the GIL, every moment it gives up the GIL (a syscall resolving a file name) costs it the
program's switch interval.

    python3 client/bench/arm_beside_busy.py [--python python3.12] [--tries 10] [--attach | --hook]

Prints each try, then the percentiles from the add to the pause being listed.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import report  # noqa: E402
from conftest import CLIENT_DIR, start_server  # noqa: E402

PROGRAM = """\
import asyncio, ctypes, decimal, email.parser, http.client, json, logging, unittest  # a program's usual imports
print("ready", flush=True)
n = 0
while True:
    n += 1  # ARMED
"""
LINE = 1 + PROGRAM.splitlines().index("    n += 1  # ARMED")
# Under the hook, the client calls in while the program runs: one whose loop starts at once (no
# imports first, during which the client's own import goes on) is where that is slowest.
AT_ONCE = PROGRAM.replace(PROGRAM.splitlines()[0], "import sys  # the loop at once")


def one_try(server, python, path, attach, hook, called_in):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BREAKROOM", "PYTHON"))}
    env["PYTHONUNBUFFERED"] = "1"
    if attach:
        command = [python, path]
    elif hook:
        env.update(PYTHONPATH=str(CLIENT_DIR), BREAKROOM_URL=server.url, BREAKROOM_FOLLOW_CHILDREN="1")
        command = [python, path]
    else:
        env.update(PYTHONPATH=str(CLIENT_DIR), BREAKROOM_URL=server.url)
        command = [python, "-m", "breakroom", path]
    spawned = time.monotonic()
    program = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    ready = threading.Event()
    threading.Thread(target=lambda: [ready.set() for line in program.stdout if line.startswith("ready")], daemon=True).start()
    try:
        if not ready.wait(30):
            raise SystemExit("the program did not start")
        if attach:
            status, answer = server.post("/api/processes/attach", {"pid": program.pid}, timeout=90)
            assert status in (200, 202), answer
        if attach or hook:
            deadline = time.monotonic() + 120
            while not [p for p in server.get("/api/processes")[1]["processes"] if p.get("pid") == program.pid]:
                if time.monotonic() > deadline:
                    raise SystemExit("the program never called in")
                time.sleep(0.005)
            called_in.append(time.monotonic() - spawned)
        time.sleep(0.5)  # its client has connected and the loop is under way
        started = time.monotonic()
        status, bp = server.post("/api/breakpoints", {"kind": "line", "file": path, "line": LINE})
        assert status == 200, bp
        while time.monotonic() - started < 120:
            paused = [p for p in server.paused() if p["call_data"]["process_pid"] == program.pid]
            if paused:
                took = time.monotonic() - started
                server.request("DELETE", f"/api/breakpoints/{bp['id']}")
                server.resume(paused[0]["id"])
                return took
            time.sleep(0.005)
        raise SystemExit("no pause within 120 s")
    finally:
        program.kill()
        program.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--tries", type=int, default=10)
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--attach", action="store_true", help="start it plain and attach by pid")
    how.add_argument("--hook", action="store_true", help="start it with the child hook, as `breakroom run` does")
    args = parser.parse_args()
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_arm_busy_")
    with os.fdopen(fd, "w") as f:
        f.write(AT_ONCE if args.hook else PROGRAM)
    server = start_server("--eval-timeout", "10")
    try:
        times, called_in = [], []
        for i in range(args.tries):
            times.append(one_try(server, args.python, path, args.attach, args.hook, called_in))
            said = f", called in {called_in[-1] * 1000:.0f} ms after its start" if args.hook else ""
            print(f"try {i + 1}: paused {times[-1] * 1000:.0f} ms after the add{said}", flush=True)
        how = "attached by pid" if args.attach else "the child hook" if args.hook else "python -m breakroom"
        if args.hook:
            report(f"{args.python}, {how}: start -> called in", sorted(called_in))
        report(f"{args.python}, {how}: add -> paused", sorted(times))
    finally:
        server.process.terminate()
        server.process.wait(5)
        os.unlink(path)


if __name__ == "__main__":
    main()
