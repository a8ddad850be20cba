"""Time travel's costs on real processes (issue 20), against the real server binary:

    python3 client/bench/checkpoints.py [--bin target/release/breakroom] [--continues 15]

1. Time the fork adds to Continue, for a 10 MB and a 500 MB process: Continue → next pause of a
   program that loops over a paused call, with checkpoints on minus off (medians).
2. Step back → the pause back: `POST /api/paused/{id}/step-back` answers once the woken line's
   pause exists at the server (the page is told at that moment over /api/live). Goal ≤ 100 ms.
3. Memory pinned by 16 snapshots of a 100 MB process that changes 1 % of it per step: the API's
   figure (each snapshot's private dirty memory, what dropping it alone frees), and all they
   hold together beyond the live program (their anonymous memory once the live line is gone,
   minus the program's own).

Prints figures; asserts nothing.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from conftest import Program, start_server  # noqa: E402

LOOP = """
    import breakroom
    MB = {mb}
    data = b"x" * (MB * 1024 * 1024)       # touched: resident, as a real program's heap is
    step_size = max(4096, len(data) // 100)
    buf = bytearray(data)
    del data

    @breakroom.breakpoint
    def step(i):
        # 1 % of the memory changes per step (a different 1 % each time)
        start = (i * step_size) % len(buf)
        buf[start:start + step_size] = bytes([i % 256]) * step_size
        return i

    for i in range(10_000):
        step(i)
"""


def kb_field(pid, name):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
    except FileNotFoundError:
        return 0
    return 0


def pause_of(server, pid, seen):
    deadline = time.time() + 60
    while time.time() < deadline:
        for p in server.paused():
            if p["call_data"]["process_pid"] == pid and p["id"] not in seen:
                seen.add(p["id"])
                return p
        time.sleep(0.001)
    raise RuntimeError("no pause")


def process_id_of(server, pid):
    for p in server.get("/api/processes")[1]["processes"]:
        if p["pid"] == pid:
            return p["id"]
    raise RuntimeError(f"no process for pid {pid}")


def continue_times(server, mb, checkpoints, n):
    env = {"BREAKROOM_CHECKPOINTS": "1", "BREAKROOM_CHECKPOINT_CAP": "4"} if checkpoints else {}
    program = Program(LOOP.format(mb=mb), server, env)
    pid, seen, times = program.process.pid, set(), []
    try:
        pause = pause_of(server, pid, seen)
        for _ in range(n):
            started = time.perf_counter()
            server.resume(pause["id"])
            pause = pause_of(server, pid, seen)
            times.append(time.perf_counter() - started)
    finally:
        if checkpoints:
            server.post(f"/api/processes/{process_id_of(server, pid)}/stop")
        program.kill()
    return times


def step_back_times(server, n):
    program = Program(LOOP.format(mb=10), server, {"BREAKROOM_CHECKPOINTS": "1"})
    pid, seen, times = program.process.pid, set(), []
    process_id = None
    try:
        pause = pause_of(server, pid, seen)
        process_id = process_id_of(server, pid)
        server.resume(pause["id"])
        pause = pause_of(server, pid, seen)
        for _ in range(n):
            started = time.perf_counter()
            status, back = server.post(f"/api/paused/{pause['id']}/step-back")
            times.append(time.perf_counter() - started)
            assert status == 200, back
            server.resume(back["pause_id"])
            pause = pause_of(server, back["pid"], seen)
    finally:
        if process_id:
            server.post(f"/api/processes/{process_id}/stop")
        program.kill()
    return times


def pinned_by_16(server, mb=100):
    program = Program(LOOP.format(mb=mb), server, {"BREAKROOM_CHECKPOINTS": "1", "BREAKROOM_CHECKPOINT_CAP": "16"})
    pid, seen = program.process.pid, set()
    try:
        pause = pause_of(server, pid, seen)
        process_id = process_id_of(server, pid)
        for _ in range(16):
            server.resume(pause["id"])
            pause = pause_of(server, pid, seen)
        timeline = server.get(f"/api/processes/{process_id}/timeline")[1]
        held = [c for c in timeline["checkpoints"] if c["status"] == "held"]
        live_anon = kb_field(pid, "Anonymous")
        program.process.kill()  # the snapshots now hold alone what they shared with the live line
        program.process.wait()
        together = sum(kb_field(c["pid"], "Pss_Anon") for c in held)
        huge = sum(kb_field(c["pid"], "AnonHugePages") for c in held)
        server.post(f"/api/processes/{process_id}/stop")
        return len(held), timeline["memory_bytes"], together - live_anon, live_anon, huge
    finally:
        program.kill()


def ms(values):
    values = sorted(values)
    return f"p50={statistics.median(values) * 1000:.1f} ms  max={values[-1] * 1000:.1f} ms (n={len(values)})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=None)
    parser.add_argument("--continues", type=int, default=15)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    try:
        for mb in (10, 500):
            off = continue_times(server, mb, False, args.continues)
            on = continue_times(server, mb, True, args.continues)
            added = statistics.median(on) - statistics.median(off)
            print(f"Continue → next pause, {mb} MB process: off {ms(off)}; on {ms(on)}; fork adds {added * 1000:.1f} ms")
        back = step_back_times(server, args.continues)
        print(f"Step back → pause back at the server: {ms(back)} (goal ≤ 100 ms)")
        n, api, together, live, huge = pinned_by_16(server)
        mib = lambda b: f"{b / 1048576:.1f} MiB"  # noqa: E731
        print(
            f"{n} snapshots of a 100 MB process changing 1 % per step: API memory_bytes (private dirty, sum) "
            f"{mib(api)}; all of them together beyond the live program {mib(together)} "
            f"(live program {mib(live)} anonymous; transparent huge pages in snapshots {mib(huge)})"
        )
    finally:
        server.process.kill()


if __name__ == "__main__":
    main()
