"""What a live event costs the lists that follow it part by part (issue 45), against reading the
list whole, as the pages did: bytes and server time per event, through the real server.

- `/snapshots` on a snapshot's arrival: the whole list of 100 (`snapshots_html`) against what
  came since its newest row (`snapshot_list_news`, one new snapshot).
- `/call-tree` on a call: every process's summary (`processes_html`, a GROUP BY over every
  recorded call, with the debugger's state held) against the calling process's row alone
  (`call_tree_process_row`, by the calls' index).
- `/repls` on a listed session's closing: its page of 50 sessions (`sessions_html`) against the
  closed session's row alone (`session_row`).

    python3 client/bench/list_parts.py [--repeat 200] [--processes 20] [--calls 2500] [--sessions 200] [--bin target/release/breakroom]

Prints figures; asserts only that each answer is what the page would get.
"""

import argparse
import http.client
import json
import os
import sys
import time
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import report  # noqa: E402
from conftest import start_server  # noqa: E402


class Caller:
    """One kept-alive connection, as a page's fetches use."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.origin = url
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port)

    def send(self, method, path, body, content_type):
        headers = {"Content-Type": content_type, "Origin": self.origin}
        self.conn.request(method, path, body=body, headers=headers)
        reply = self.conn.getresponse()
        data = reply.read()
        assert reply.status in (200, 201), (path, reply.status, data[:300])
        return data

    def json(self, path, body):
        return json.loads(self.send("POST", path, json.dumps(body), "application/json"))

    def rpc(self, name, form):
        return self.send("POST", f"/rpc/{name}", urllib.parse.urlencode(form), "application/x-www-form-urlencoded")


def measure(label, repeat, call):
    """Times `repeat` calls after 10 untimed ones; prints the time and the reply's size."""
    for _ in range(10):
        size = len(call())
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        size = len(call())
        times.append(time.perf_counter() - started)
    report(f"{label} ({size:,} B)", sorted(times))


def snapshots(caller, repeat):
    bp = caller.json("/api/breakpoints", {"kind": "line", "file": "/srv/worker.py", "line": 42,
                                          "action": "snapshot", "max_hits": 1000})["id"]
    ids = []
    for n in range(101):
        snap = {
            "breakpoint_id": bp, "process_pid": 4242, "process_start_time": 1.5, "taken_at": 1000.0 + n,
            "file": "/srv/worker.py", "line": 42, "function": "handle",
            "frames": [{"file": "/srv/worker.py", "line": 42, "function": "handle", "locals": [
                {"name": "order", "value": {"type": "dict", "repr": repr({"id": n, "items": list(range(12)), "note": "x" * 40})}},
                {"name": "user", "value": {"type": "str", "repr": f"'user-{n}'"}},
                {"name": "total", "value": {"type": "int", "repr": str(n * 7)}},
            ]}],
            "expressions": [
                {"expression": "len(order['items'])", "value": {"type": "int", "repr": "12"}},
                {"expression": "order['note']", "value": {"type": "str", "repr": repr("x" * 40)}},
            ],
        }
        ids.append(caller.json("/api/snapshots", snap)["snapshot_id"])
    form = {"breakpoint_id": "", "process_id": "", "before": "", "limit": ""}
    print("/snapshots, 100 shown, on a snapshot's arrival:")
    measure("  whole list (snapshots_html)", repeat, lambda: caller.rpc("snapshots_html", form))
    measure("  since the newest row (snapshot_list_news, 1 new)", repeat,
            lambda: caller.rpc("snapshot_list_news", {**form, "after": ids[-2]}))


def call_list(caller, repeat, processes, calls):
    started = time.perf_counter()
    for p in range(processes):
        for _ in range(calls):
            caller.json("/api/call/start", {
                "method_name": "handle", "args": [], "kwargs": {},
                "call_site": {"timestamp": 1.0, "stack_trace": []},
                "process_pid": 5000 + p, "process_start_time": 1.5, "signature": "()",
            })
    print(f"/call-tree, {processes} processes with {calls:,} calls each "
          f"({processes * calls:,} calls, recorded in {time.perf_counter() - started:.0f} s), on a call:")
    measure("  every process's summary (processes_html)", repeat, lambda: caller.rpc("processes_html", {}))
    measure("  the calling process's row (call_tree_process_row)", repeat,
            lambda: caller.rpc("call_tree_process_row", {"process_key": "1.500000+5000"}))


def session_list(caller, repeat, sessions):
    """`sessions` paused calls with a session each, all but the newest closed."""
    caller.json("/api/breakpoints", {"function_name": "serve"})
    for n in range(sessions):
        caller.json("/api/call/start", {
            "method_name": "serve", "args": [], "kwargs": {},
            "call_site": {"timestamp": 1.0, "stack_trace": []},
            "process_pid": 7000 + n, "process_start_time": 2.5, "signature": "()",
        })
    paused = json.loads(caller.send("GET", "/api/paused", None, "application/json"))["paused"]
    ids = [caller.json("/api/repl/start", {"pause_id": p["id"]})["session_id"] for p in paused]
    assert len(ids) == sessions, (len(ids), sessions)
    for session_id in ids[:-1]:
        caller.json(f"/api/repl/{session_id}/close", {})
    form = {"search": "", "status": "", "from": "", "to": "", "page": "1"}
    print(f"/repls, {sessions} sessions (a page of 50 shown), on a listed session's closing:")
    measure("  the page of sessions (sessions_html)", repeat, lambda: caller.rpc("sessions_html", form))
    measure("  the closed session's row (session_row)", repeat,
            lambda: caller.rpc("session_row", {"session_id": ids[0]}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--calls", type=int, default=2500)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    try:
        caller = Caller(server.url)
        snapshots(caller, args.repeat)
        call_list(caller, args.repeat, args.processes, args.calls)
        session_list(caller, args.repeat, args.sessions)
    finally:
        server.process.terminate()


if __name__ == "__main__":
    main()
