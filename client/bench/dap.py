"""What the DAP adapter costs (issue 31), against the real server's --dap-port, on a real program.

    python3 client/bench/dap.py [--rounds 300] [--python python3]

1. REST eval round trip (`POST /api/repl/{id}/eval`), the figure DAP is held to.
2. DAP `evaluate` (repl context: it goes into the REPL session's transcript). Goal: p50 ≤ 1 ms
   above the REST figure.
3. DAP `stackTrace` + `scopes` + `variables` (what an editor sends at each stop), one after the
   other. Goal: p50 ≤ 1 ms above the REST eval figure.
4. `next` → its `stopped` event. Goal p50 ≤ 5 ms.
5. `stepBack` → its `stopped` event, with checkpoints on (each `next` before it takes one).
   Goal p50 ≤ 15 ms.
6. `pause` of a running program (`python -m breakroom`, a busy loop) → its `stopped` event:
   the order travels on the program's breakpoint channel and the thread stops at its next line.
"""

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "client"))

from breakroom.protocol.transport import Transport  # noqa: E402

PROGRAM = """
    import breakroom
    breakroom.checkpoints(True, cap=8)

    def work():
        values = list(range(20))
        i = 0
        breakroom.set_trace()
        while i < 10_000_000:  # ends by itself if the server goes away while it runs
            i += 1
            j = i

    work()
"""

RUNNING = """
    import time
    deadline = time.time() + 300  # ends by itself if the bench is killed
    i = 0
    while time.time() < deadline:
        i += 1
"""


class Dap:
    """A minimal DAP client over TCP: requests in, responses and events out."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.seq = 0
        self.events = []

    def _read(self):
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        while len(self.buf) < length:
            self.buf += self.sock.recv(65536)
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def request(self, command, **arguments):
        seq = self.send(command, **arguments)
        while True:
            message = self._read()
            if message.get("type") == "response" and message.get("request_seq") == seq:
                if not message.get("success"):
                    raise RuntimeError(f"{command}: {message.get('message')}")
                return message.get("body") or {}
            if message.get("type") == "event":
                self.events.append(message)

    def event(self, name):
        for i, message in enumerate(self.events):
            if message["event"] == name:
                return self.events.pop(i)
        while True:
            message = self._read()
            if message.get("type") == "event":
                if message["event"] == name:
                    return message
                self.events.append(message)


def start_server():
    binary = os.environ.get("BREAKROOM_BIN") or str(ROOT / "target" / "release" / "breakroom")
    home = tempfile.mkdtemp(prefix="breakroom-bench-")
    proc = subprocess.Popen(
        [binary, "--port", "0", "--dap-port", "0", "--data-dir", os.path.join(home, "data")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "CIDELDILL_HOME": home},
    )
    dap_port = None
    for line in proc.stdout:
        found = re.search(r"DAP on 127\.0\.0\.1:(\d+)", line)
        if found:
            dap_port = int(found.group(1))
        match = re.search(r"Server running on (http://\S+)", line)
        if match:
            return proc, match.group(1), dap_port
    raise RuntimeError("breakroom did not start")


def figures(name, samples, goal):
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{name}: p50={p50:.3f} ms  p99={p99:.3f} ms  ({len(ms)} rounds; {goal})")
    return p50


def _start(python, source, url, *run_with):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_bench_dap_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    return subprocess.Popen(
        [python, *run_with, path],
        env={**os.environ, "PYTHONPATH": str(ROOT / "client"), "BREAKROOM_URL": url},
        stdout=subprocess.DEVNULL,
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    server, url, dap_port = start_server()
    program = _start(args.python, PROGRAM, url)
    try:
        caller = Transport(url)
        pause = None
        for _ in range(600):
            paused = caller.get("/api/paused")["paused"]
            if paused:
                pause = paused[0]["id"]
                break
            time.sleep(0.02)
        version = subprocess.run([args.python, "--version"], capture_output=True, text=True).stdout.strip()
        print(f"{version}, {args.rounds} rounds, loopback, DAP over TCP (--dap-port)")

        session = caller.post("/api/repl/start", {"pause_id": pause})["session_id"]
        rest = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            caller.post(f"/api/repl/{session}/eval", {"expr": "i + 1"})
            rest.append(time.perf_counter() - t0)
        rest_p50 = figures("REST eval round trip", rest, "the reference")

        dap = Dap(dap_port)
        dap.request("initialize", adapterID="bench", linesStartAt1=True, columnsStartAt1=True)
        dap.request("attach")
        dap.request("configurationDone")
        thread = dap.event("stopped")["body"]["threadId"]

        def top_frame():
            return dap.request("stackTrace", threadId=thread)["stackFrames"][0]["id"]

        frame = top_frame()
        evaluate = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            dap.request("evaluate", expression="i + 1", frameId=frame, context="repl")
            evaluate.append(time.perf_counter() - t0)
        figures("DAP evaluate (repl)", evaluate, f"goal p50 <= {rest_p50 + 1:.3f} ms, REST + 1 ms")

        inspect = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            frame = top_frame()
            scopes = dap.request("scopes", frameId=frame)["scopes"]
            dap.request("variables", variablesReference=scopes[0]["variablesReference"])
            inspect.append(time.perf_counter() - t0)
        figures("DAP stackTrace + scopes + variables", inspect, f"goal p50 <= {rest_p50 + 1:.3f} ms, REST + 1 ms")

        steps = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            dap.request("next", threadId=thread)
            dap.event("stopped")
            steps.append(time.perf_counter() - t0)
        figures("DAP next -> stopped (checkpoints on)", steps, "goal p50 <= 5 ms")

        backs = []
        for _ in range(min(args.rounds, 100)):
            dap.request("next", threadId=thread)
            dap.event("stopped")
            t0 = time.perf_counter()
            dap.request("stepBack", threadId=thread)
            dap.event("stopped")
            backs.append(time.perf_counter() - t0)
        figures("DAP stepBack -> stopped", backs, "goal p50 <= 15 ms")

        pauses = []
        running = _start(args.python, RUNNING, url, "-m", "breakroom")
        try:
            running_thread = None
            while running_thread is None:  # the running program's thread, once it follows
                running_thread = next((t["id"] for t in dap.request("threads")["threads"] if f"pid {running.pid}" in t["name"]), None)
                time.sleep(0.02)
            for _ in range(min(args.rounds, 100)):
                t0 = time.perf_counter()
                dap.request("pause", threadId=running_thread)
                dap.event("stopped")
                pauses.append(time.perf_counter() - t0)
                dap.request("continue", threadId=running_thread)
        finally:
            running.kill()
        figures("DAP pause of a running loop -> stopped", pauses, "the next line it reaches")
    finally:
        # Stopping its record ends the snapshots and the lines woken from them too.
        for p in caller.get("/api/processes").get("processes", []):
            caller.post(f"/api/processes/{p['id']}/stop", {})
        program.kill()
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
