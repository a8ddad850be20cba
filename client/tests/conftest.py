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
    def __init__(self, url, process):
        self.url = url
        self.process = process

    def request(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body if body is not None else {}, **kw)

    def paused(self):
        return self.get("/api/paused")[1]["paused"]

    def wait_for_pause(self, function_name, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for p in self.paused():
                if p["call_data"]["method_name"] == function_name:
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

    def resume(self, pause_id, **action):
        status, body = self.post(f"/api/paused/{pause_id}/continue", action or {"action": "continue"})
        assert status == 200, body
        return body


def start_server(*extra_args):
    home = tempfile.mkdtemp(prefix="breakroom-test-")
    proc = subprocess.Popen(
        [_binary(), "--port", "0", *extra_args],
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
        match = re.search(r"Server running on (http://\S+)", line)
        if match:
            return Server(match.group(1), proc)
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


class Program:
    """A Python program run with the Breakroom client against a server."""

    def __init__(self, source, server, env=None):
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_prog_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        self.process = subprocess.Popen(
            [sys.executable, self.path],
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
