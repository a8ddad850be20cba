"""Fixtures: the real breakroom binary on a free port, and real Python programs paused at it."""

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "client"


def _binary():
    path = os.environ.get("BREAKROOM_BIN") or str(ROOT / "target" / "release" / "breakroom")
    if not os.path.exists(path):
        pytest.exit(f"{path} is missing: build it first (cargo leptos build --release)", returncode=2)
    return path


class Server:
    def __init__(self, url, process, context=None):
        self.url = url
        self.process = process
        self.context = context  # an https server's: ssl settings trusting the test CA

    def request(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.context) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body if body is not None else {}, **kw)

    def paused(self):
        return self.get("/api/paused")[1]["paused"]

    def wait_for_pause(self, function_name, timeout=10, pid=None):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for p in self.paused():
                if p["call_data"]["method_name"] == function_name and pid in (None, p["call_data"]["process_pid"]):
                    return p
            time.sleep(0.02)
        raise AssertionError(f"{function_name} never paused; paused: {self.paused()}")

    def start_session(self, pause_id):
        status, body = self.post("/api/repl/start", {"pause_id": pause_id})
        assert status == 200, body
        return body["session_id"]

    def eval(self, session_id, expr, timeout=30):
        status, body = self.post(f"/api/repl/{session_id}/eval", {"expr": expr}, timeout=timeout)
        assert status == 200, (status, body)
        return body

    def output(self, session_id, expr):
        """The text a user sees for `expr`: its result, or its error."""
        return self.eval(session_id, expr)["output"]

    def session(self, session_id):
        status, body = self.get(f"/api/repl/{session_id}")
        assert status == 200, body
        return body["session"]

    def close(self, session_id):
        status, body = self.post(f"/api/repl/{session_id}/close")
        assert status == 200, body

    def resume(self, pause_id, **action):
        status, body = self.post(f"/api/paused/{pause_id}/continue", action or {"action": "continue"})
        assert status == 200, body
        return body


def answer_fields(body):
    """An eval's answer as cideldill's protocol has it: Breakroom's `index` (the entry's place in
    the transcript) and `timestamp` are checked, then left out."""
    body = dict(body)
    assert isinstance(body.pop("index"), int), body
    assert body.pop("timestamp") > 1e9, body
    return body


def start_server(*extra_args, data_dir=None, context=None):
    """The real binary on a free port, with its history in `data_dir` (a fresh one by default).
    `context`: the ssl settings for a server started with --tls-cert."""
    home = tempfile.mkdtemp(prefix="breakroom-test-")
    data_dir = data_dir or os.path.join(home, "data")
    proc = subprocess.Popen(
        [_binary(), *([] if "--port" in extra_args else ["--port", "0"]), "--data-dir", str(data_dir), *extra_args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "CIDELDILL_HOME": home},
    )
    deadline = time.time() + 20
    seen = ""
    while time.time() < deadline:
        line = proc.stdout.readline()
        seen += line
        match = re.search(r"Server running on (https?://\S+)", line)
        if match:
            srv = Server(match.group(1), proc, context)
            srv.data_dir = str(data_dir)
            srv.home = home
            srv.started_with = seen  # what it printed up to its address
            return srv
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError(f"breakroom did not start: {seen}")


@pytest.fixture(scope="session")
def server():
    srv = start_server("--eval-timeout", "10")
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


@pytest.fixture(scope="session")
def postgres_cluster():
    """One throwaway PostgreSQL cluster for the session; `fresh_database()` gives each test its own."""
    from postgres_cluster import PostgresCluster

    cluster = PostgresCluster().start()
    yield cluster
    cluster.stop()


class Program:
    """A Python program run with the Breakroom client against a server."""

    def __init__(self, source, server, env=None, run_with_breakroom=False):
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_prog_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        self.process = subprocess.Popen(
            [sys.executable, *(["-m", "breakroom"] if run_with_breakroom else []), self.path],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "PYTHONPATH": str(CLIENT_DIR),
                "BREAKROOM_URL": server.url,
                "PYTHONUNBUFFERED": "1",
                **(env or {}),
            },
        )

    def finish(self, timeout=15):
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


class PausedProgram:
    """A program paused at the server: its process, its pause and a REPL session on it."""

    def __init__(self, server, program, pause):
        self.server = server
        self.program = program
        self.pause = pause
        self.pause_id = pause["id"]
        self.session_id = server.start_session(self.pause_id)

    def new_session(self):
        return self.server.start_session(self.pause_id)

    def output(self, expr, session_id=None):
        return self.server.output(session_id or self.session_id, expr)

    def eval(self, expr, session_id=None, timeout=30):
        return self.server.eval(session_id or self.session_id, expr, timeout=timeout)

    def resume(self, **action):
        return self.server.resume(self.pause_id, **action)

    def finish(self, timeout=15):
        return self.program.finish(timeout)


@pytest.fixture
def run_program(server):
    programs = []

    def run(source, env=None):
        p = Program(source, server, env)
        programs.append(p)
        return p

    yield run
    for p in programs:
        p.kill()


def pause_program(server, source, function_name, env=None, programs=None, timeout=10):
    program = Program(source, server, env)
    if programs is not None:
        programs.append(program)
    try:
        pause = server.wait_for_pause(function_name, timeout=timeout, pid=program.process.pid)
    except AssertionError:
        program.process.kill()
        out, err = program.process.communicate()
        raise AssertionError(f"{function_name} never paused; stdout: {out!r}; stderr: {err}")
    return PausedProgram(server, program, pause)


@pytest.fixture
def paused(server):
    """paused(source, function_name, env=None): runs a program and waits until it pauses."""
    programs = []

    def run(source, function_name, env=None, on=None):
        return pause_program(on or server, source, function_name, env, programs)

    yield run
    for p in programs:
        p.kill()


# A function paused in its own frame (set_trace): frame locals, globals, and what the program
# does with them after it resumes.
FRAME = """
    import breakroom

    LIMIT = 100

    def process(order_id):
        items = [1, 2, 3]
        total = sum(items)
        label = "order"
        breakroom.set_trace()
        print("after:", total, items, label)
        return total

    process(7)
"""

# A method paused by the decorator: its arguments by name, `self` among them.
METHOD = """
    import breakroom

    class Cart:
        def __init__(self):
            self.items = [3, 4]

        @breakroom.breakpoint
        def checkout(self, discount, note="none"):
            return sum(self.items) - discount

    print("checkout:", Cart().checkout(5))
"""


@pytest.fixture(scope="module")
def frame_pause(server):
    """One FRAME program shared by a module's read-only tests (each makes its own session)."""
    paused = pause_program(server, FRAME, "process")
    yield paused
    paused.program.kill()
