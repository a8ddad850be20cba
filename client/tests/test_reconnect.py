"""The server goes away and comes back (issue 32): paused programs wait and re-register their
pauses, running programs check again and pause where they should, no eval runs twice or is lost
through a connection that drops, and a SIGTERM lets programs wait for the next server. Real
server binary, real programs, a real TCP proxy written here; nothing mocked."""

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest
from conftest import CLIENT_DIR, start_server


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Restartable:
    """A server on a fixed port and data directory, killed and started again by the test."""

    def __init__(self):
        self.port = _free_port()
        self.data_dir = tempfile.mkdtemp(prefix="breakroom-restart-")
        self.server = None
        self.start()

    def start(self, *extra):
        self.server = start_server("--port", str(self.port), "--eval-timeout", "10", *extra, data_dir=self.data_dir)
        return self.server

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def kill(self):
        self.server.process.kill()
        self.server.process.wait()

    def stop(self):
        if self.server.process.poll() is None:
            self.server.process.kill()
            self.server.process.wait()


@pytest.fixture
def restartable():
    r = Restartable()
    yield r
    r.stop()


def _run(source, url, python=sys.executable, **env):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_reconnect_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    return subprocess.Popen(
        [python, path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": url, "PYTHONUNBUFFERED": "1", **env},
    )


def _run_node(source, url):
    """A Node program importing the JavaScript client from the repository."""
    fd, path = tempfile.mkstemp(suffix=".mjs", prefix="breakroom_reconnect_")
    client = CLIENT_DIR.parent / "client-js" / "breakroom.mjs"
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source).replace("CLIENT", client.as_uri()))
    return subprocess.Popen(
        ["node", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "BREAKROOM_URL": url}
    )


def _paused_of(server, pids):
    return [p for p in server.paused() if p["call_data"]["process_pid"] in pids]


def _wait_paused(server, pids, count, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = _paused_of(server, pids)
        if len(found) >= count:
            return found
        time.sleep(0.02)
    raise AssertionError(f"{len(_paused_of(server, pids))} of {count} pauses listed")


WORKERS = """
    import threading, breakroom

    @breakroom.breakpoint
    def work(i):
        return i * 3

    results = {}
    def run(i):
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(sorted(results.items()))
"""


def test_fifty_paused_calls_come_back_after_the_server_is_killed_and_restarted(restartable):
    processes = [_run(WORKERS.replace("THREADS", "10"), restartable.url) for _ in range(5)]
    pids = {p.pid for p in processes}
    before = _wait_paused(restartable.server, pids, 50, timeout=30)
    old_ids = {p["id"] for p in before}

    restartable.kill()
    time.sleep(1.0)  # programs find the server gone and keep waiting
    server = restartable.start()
    started = time.time()
    back = _wait_paused(server, pids, 50, timeout=15)
    took = time.time() - started
    assert took < 5, f"all 50 pauses listed {took:.2f} s after the restart"
    assert {p["call_data"]["stop"].get("reconnected_from") for p in back} == old_ids
    assert all(p["call_data"]["method_name"] == "work" for p in back)

    # Each evaluates in its own call, then resumes; the programs finish with exact results.
    for p in back:
        session = server.start_session(p["id"])
        i = int(server.output(session, "i"))
        assert server.output(session, "i * 3") == str(i * 3)
        server.resume(p["id"])
    for proc in processes:
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert out.strip() == str([(i, i * 3) for i in range(10)]), (out, err)


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


def test_a_running_program_pauses_again_soon_after_the_server_returns(restartable):
    server = restartable.server
    server.post("/api/behavior", {"behavior": "go"})  # ticks run on while the server is up
    proc = _run(RUNNING, restartable.url)
    try:
        deadline = time.time() + 15
        while "tick" not in server.get("/api/functions")[1].get("functions", []):
            assert time.time() < deadline, "tick never registered"
            time.sleep(0.05)
        restartable.kill()
        time.sleep(5)  # fifty calls with the server down: each runs without pausing
        assert proc.poll() is None
        server = restartable.start()
        server.post("/api/behavior", {"behavior": "stop"})
        back = time.time()
        pause = _wait_paused(server, {proc.pid}, 1, timeout=10)[0]
        took = time.time() - back
        assert took < 3, f"the first pause came {took:.2f} s after the server returned"
        assert pause["call_data"]["method_name"] == "tick"
        session = server.start_session(pause["id"])
        assert int(server.output(session, "n")) > 40, "the program ran on while the server was down"
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert err.count("cannot reach") == 1, err


class FlakyProxy:
    """TCP between the program and the server that cuts some connections mid-way (a held poll
    dies with its answer unsent or half sent) and delays the rest."""

    def __init__(self, target_port, cut_every=0.3):
        self.target_port = target_port
        self.cut_every = cut_every
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.cuts = 0
        self.running = True
        self.random = random.Random(32)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            lifetime = self.random.uniform(0.05, self.cut_every * 2)
            delay = self.random.uniform(0, 0.02)
            pair = (client, upstream)
            threading.Timer(lifetime, self._cut, args=(pair,)).start()
            threading.Thread(target=self._pump, args=(client, upstream, delay, pair), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, delay, pair), daemon=True).start()

    def _pump(self, source, sink, delay, pair):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                time.sleep(delay)
                sink.sendall(data)
        except OSError:
            pass
        self._cut(pair, counted=False)

    def _cut(self, pair, counted=True):
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                continue
            if counted:
                self.cuts += 1
            s.close()

    def close(self):
        self.running = False
        self.listener.close()


def test_evals_through_connections_that_drop_run_once_and_none_is_lost(restartable):
    proxy = FlakyProxy(restartable.port)
    restartable.kill()  # again, answering to the proxy's address too
    server = restartable.start("--allow-host", f"127.0.0.1:{proxy.port}")
    proc = _run(
        """
        import breakroom
        ran = []
        breakroom.set_trace()
        print(ran)
        """,
        f"http://127.0.0.1:{proxy.port}",
    )
    try:
        pause = _wait_paused(server, {proc.pid}, 1, timeout=20)[0]
        session = server.start_session(pause["id"])
        pace = random.Random(7)
        for i in range(40):
            time.sleep(pace.uniform(0, 0.15))  # held polls live long enough to be cut
            status, body = server.post(f"/api/repl/{session}/eval", {"expr": f"ran.append({i}) or len(ran)"})
            if status != 200:
                proc.kill()
                raise AssertionError((i, status, body, proc.communicate()[1][-3000:]))
            assert body["output"] == str(i + 1), (i, body)
        assert server.output(session, "ran") == str(list(range(40)))
        assert proxy.cuts > 5, "the proxy cut held connections"
        assert [p["id"] for p in _paused_of(server, {proc.pid})] == [pause["id"]], "the pause stayed"
        server.resume(pause["id"])
        out, err = proc.communicate(timeout=20)
        assert out.strip() == str(list(range(40))), err
    finally:
        proxy.close()
        proc.kill()


def test_a_sigterm_answers_held_polls_and_the_next_server_gets_the_pauses_back(restartable):
    server = restartable.server
    proc = _run(
        """
        import breakroom
        value = 7
        breakroom.set_trace()
        print("value", value)
        """,
        restartable.url,
    )
    launched = server.post("/api/processes", {"command": [sys.executable, "-c", "import time; time.sleep(60)"]})[1]
    status, ran = server.post("/api/runtimes/restart-test/exec", {"command": "echo $$", "language": "bash"})
    assert status == 200 and ran["success"], ran
    runtime_pid = int(ran["stdout"].strip())
    try:
        first = _wait_paused(server, {proc.pid}, 1, timeout=20)[0]
        asked = time.time()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=10)
        assert time.time() - asked < 5, "the server stops within 5 s"
        # A launched process ends with the server that holds its output.
        deadline = time.time() + 5
        while _alive(launched["pid"]) and time.time() < deadline:
            time.sleep(0.05)
        assert not _alive(launched["pid"]), "the launched process was stopped with the server"
        while _alive(runtime_pid) and time.time() < deadline:
            time.sleep(0.05)
        assert not _alive(runtime_pid), "the runtime's bash ended with the server"
        time.sleep(1.0)
        assert proc.poll() is None, "the paused program waits for the next server"
        server = restartable.start()
        again = _wait_paused(server, {proc.pid}, 1, timeout=10)[0]
        assert again["call_data"]["stop"]["reconnected_from"] == first["id"]
        session = server.start_session(again["id"])
        server.eval(session, "value = 8")
        server.resume(again["id"])
        out, _ = proc.communicate(timeout=20)
        assert out.strip() == "value 8"
    finally:
        proc.kill()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (its parent, the server, is gone and init reaps it soon) counts as ended.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_past_the_grace_period_the_paused_call_runs_on_and_says_so(restartable):
    proc = _run(
        """
        import breakroom
        breakroom.set_trace()
        print("ran on")
        """,
        restartable.url,
        BREAKROOM_RECONNECT_GRACE="1.5",
    )
    _wait_paused(restartable.server, {proc.pid}, 1, timeout=20)
    restartable.kill()
    out, err = proc.communicate(timeout=20)
    assert out.strip() == "ran on"
    assert "did not come back within 1.5 s" in err, err


NODE_RUNNING = """
    import { withDebug } from 'CLIENT';
    const tick = withDebug(function tick(n) { return n; });
    let n = 0;
    for (;;) {
      await tick(n);
      n += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_a_running_node_program_pauses_again_after_the_server_returns(restartable):
    server = restartable.server
    server.post("/api/behavior", {"behavior": "go"})
    proc = _run_node(NODE_RUNNING, restartable.url)
    try:
        deadline = time.time() + 15
        while not any(p["pid"] == proc.pid for p in server.get("/api/processes")[1]["processes"]):
            assert time.time() < deadline and proc.poll() is None, "tick never called in"
            time.sleep(0.05)
        restartable.kill()
        time.sleep(3)  # thirty calls with the server down: each runs without pausing
        assert proc.poll() is None
        server = restartable.start()
        server.post("/api/behavior", {"behavior": "stop"})
        server.post("/api/breakpoints", {"function_name": "tick"})  # a JavaScript call pauses at one
        back = time.time()
        pause = _wait_paused(server, {proc.pid}, 1, timeout=10)[0]
        assert time.time() - back < 3
        assert pause["call_data"]["method_name"] == "tick"
        session = server.start_session(pause["id"])
        assert int(server.output(session, "n")) > 20, "the program ran on while the server was down"
        server.resume(pause["id"])
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert err.count("cannot reach") == 1, err
