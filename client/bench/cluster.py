"""Several servers on one PostgreSQL (issue 35): the eval round trip when the browser's server is
not the one holding the program, next to the same eval through the holding server.

    python3 client/bench/cluster.py [--evals 2000] [--programs 30] [--threads 1] [--bin target/release/breakroom]

Starts a throwaway PostgreSQL cluster (as the tests do), three real servers on one database, and
a real paused Python program whose held poll is on server B. It times evals posted to B (same
server) and to A (A records the request, B hands it to the program, the answer comes back to A
through NOTIFY). Then `--programs` paused programs spread over the three servers, each with
`--threads` threads paused in one call each, every pause evaluated from a server that does not
hold it, round robin (`--programs 10 --threads 100`: 1,000 pauses in ten processes). Prints p50/p90/p99; asserts nothing (goal:
cross-server adds at most 1 ms at p50).
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import report, time_evals  # noqa: E402
from breakroom.protocol.transport import Transport  # noqa: E402
from conftest import FRAME, Program, pause_program, start_server  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402


THREADED = """
    import threading
    import breakroom

    def process(order_id):
        items = [1, 2, 3]
        total = sum(items)
        breakroom.set_trace()
        return total

    threads = [threading.Thread(target=process, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evals", type=int, default=2000)
    parser.add_argument("--programs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    cluster = PostgresCluster(durable=True).start()  # PostgreSQL as users run it: fsync on
    servers, programs = [], []
    try:
        url = cluster.fresh_database()
        servers = [start_server("--database-url", url) for _ in range(3)]
        a, b, _c = servers
        paused = pause_program(b, FRAME, "process", programs=programs)
        report("eval round trip, browser and program on the same server (B)", time_evals(b.url, paused.session_id, args.evals, 100))
        from_a = a.start_session(paused.pause_id)
        report("eval round trip, browser on A, program held on B       ", time_evals(a.url, from_a, args.evals, 100))
        paused.resume()

        # Many paused programs over three servers, each pause asked from another server.
        sessions = []
        for i in range(args.programs):
            holder, asker = servers[i % 3], servers[(i + 1) % 3]
            program = Program(THREADED.replace("THREADS", str(args.threads)), holder)
            programs.append(program)
            pid = program.process.pid
            deadline = time.time() + 60
            while True:
                mine = [p for p in holder.paused() if p["call_data"]["process_pid"] == pid]
                if len(mine) == args.threads:
                    break
                assert time.time() < deadline, f"{len(mine)} of {args.threads} threads paused"
                time.sleep(0.05)
            sessions += [(asker, asker.start_session(p["id"])) for p in mine]
        callers = {srv.url: Transport(srv.url) for srv in servers}
        times = []
        for round_ in range(max(1, args.evals // len(sessions))):
            for asker, session_id in sessions:
                started = time.perf_counter()
                body = callers[asker.url].post(f"/api/repl/{session_id}/eval", {"expr": "total * 7"})
                times.append(time.perf_counter() - started)
                assert body["output"] == "42", body
        times.sort()
        report(f"eval round trip, {len(sessions)} pauses ({args.programs} programs) over 3 servers, asked from another", times)
    finally:
        for program in programs:
            program.kill()
        for srv in servers:
            srv.process.kill()
            srv.process.wait()
        cluster.stop()


if __name__ == "__main__":
    main()
