"""Several servers on one PostgreSQL (issue 35): the eval round trip when the browser's server is
not the one holding the program, next to the same eval through the holding server.

    python3 client/bench/cluster.py [--evals 2000] [--programs 30] [--bin target/release/breakroom]

Starts a throwaway PostgreSQL cluster (as the tests do), three real servers on one database, and
a real paused Python program whose held poll is on server B. It times evals posted to B (same
server) and to A (A records the request, B hands it to the program, the answer comes back to A
through NOTIFY). Then `--programs` paused programs spread over the three servers, each evaluated
from a server that does not hold it, round robin. Prints p50/p90/p99; asserts nothing (goal:
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
from breakroom._transport import Transport  # noqa: E402
from conftest import FRAME, pause_program, start_server  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evals", type=int, default=2000)
    parser.add_argument("--programs", type=int, default=30)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    cluster = PostgresCluster().start()
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

        # Many paused programs over three servers, each asked from another server.
        sessions = []
        for i in range(args.programs):
            holder = servers[i % 3]
            p = pause_program(holder, FRAME, "process", programs=programs)
            asker = servers[(i + 1) % 3]
            sessions.append((asker, asker.start_session(p.pause_id)))
        callers = {srv.url: Transport(srv.url) for srv in servers}
        times = []
        for round_ in range(max(1, args.evals // len(sessions))):
            for asker, session_id in sessions:
                started = time.perf_counter()
                body = callers[asker.url].post(f"/api/repl/{session_id}/eval", {"expr": "total * 7"})
                times.append(time.perf_counter() - started)
                assert body["output"] == "42", body
        times.sort()
        report(f"eval round trip, {len(sessions)} paused programs over 3 servers, asked from another", times)
    finally:
        for program in programs:
            program.kill()
        for srv in servers:
            srv.process.kill()
            srv.process.wait()
        cluster.stop()


if __name__ == "__main__":
    main()
