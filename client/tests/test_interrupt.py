"""Pausing a running program from outside (DAP's `pause`, issue 31) and stopping a program at its
first line (`--stop-on-entry`), on Python 3.11 and on pyenv's 3.12 and 3.13 when installed:
real programs run with `python -m breakroom`, paused through the REST API."""

import os
import subprocess
import tempfile
import textwrap
import time

import pytest
from conftest import CLIENT_DIR
from test_stepping import INTERPRETERS


class Running:
    """A program run with `python -m breakroom`, known to the server as a process record."""

    def __init__(self, server, python, source, *flags):
        self.server = server
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_interrupt_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        with open(self.path) as f:
            self.lines = f.read().splitlines()
        self.process = subprocess.Popen(
            [python, "-m", "breakroom", *flags, self.path],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1"},
        )

    def line_of(self, marker):
        return next(n for n, text in enumerate(self.lines, 1) if text.rstrip().endswith("# " + marker))

    def process_id(self, timeout=15):
        """The server's record of this program: it exists before the program ever pauses."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for p in self.server.get("/api/processes")[1]["processes"]:
                if p["pid"] == self.process.pid and p["process_key"]:
                    return p["id"]
            assert self.process.poll() is None, self.process.communicate()
            time.sleep(0.02)
        raise AssertionError("the running program never became a process on the server")

    def pause(self, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for p in self.server.paused():
                if p["call_data"]["process_pid"] == self.process.pid:
                    return p
            assert self.process.poll() is None, self.process.communicate()
            time.sleep(0.02)
        raise AssertionError("the program never paused")

    def interrupt(self, **body):
        status, reply = self.server.post(f"/api/processes/{self.process_id()}/interrupt", body)
        assert status == 202, reply
        return reply

    def finish(self):
        if self.process.poll() is None:
            self.process.kill()
        out, err = self.process.communicate(timeout=10)
        os.unlink(self.path)
        return out, err


@pytest.fixture
def running(server):
    made = []

    def make(python, source, *flags):
        made.append(Running(server, python, source, *flags))
        return made[-1]

    yield make
    for r in made:
        r.finish()


LOOP = """\
    import time

    def tick(n):
        return n + 1  # TICK

    count = 0
    print("running", flush=True)
    while True:
        count = tick(count)  # LOOP
        time.sleep(0.002)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_running_loop_pauses_at_its_next_line_and_runs_on_after(server, running, python):
    r = running(python, LOOP)
    assert r.process.stdout.readline().strip() == "running"
    time.sleep(0.05)  # some rounds of the loop
    r.interrupt()
    pause = r.pause()
    assert pause["call_data"]["stop"]["kind"] == "interrupt"
    assert pause["call_data"]["thread"]["name"] == "MainThread"
    lines = {r.line_of("TICK"), r.line_of("LOOP"), r.line_of("LOOP") + 1, r.line_of("LOOP") - 1}
    assert pause["call_data"]["stop"]["line"] in lines, pause["call_data"]
    session = server.start_session(pause["id"])
    before = int(server.output(session, "count"))
    assert before > 0, "the loop ran before it was asked to pause"
    # The pause may be inside tick(), where a bare `count = -1000` makes a local of tick's frame
    # (as pdb would), so the module's global is set by name.
    server.eval(session, "globals()['count'] = -1000")
    server.resume(pause["id"])
    # Asked again: a new order, a new pause, and the loop went on from the value set.
    r.interrupt()
    again = r.pause()
    assert again["id"] != pause["id"]
    session = server.start_session(again["id"])
    assert -1000 <= int(server.output(session, "count")) < before, "the program ran on from the state the REPL set"
    server.resume(again["id"])


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_named_thread_pauses_and_the_main_thread_runs_on(server, running, python):
    r = running(
        python,
        """\
        import threading, time

        progress = {"worker": 0, "main": 0}

        def work():
            while True:
                progress["worker"] += 1  # WORKER
                time.sleep(0.002)

        worker = threading.Thread(target=work, name="worker", daemon=True)
        worker.start()
        print(worker.ident, flush=True)
        while True:
            progress["main"] += 1
            time.sleep(0.002)
        """,
    )
    ident = int(r.process.stdout.readline())
    reply = r.interrupt(thread=ident)
    assert reply["thread"] == ident
    pause = r.pause()
    data = pause["call_data"]
    assert (data["thread"]["name"], data["method_name"]) == ("worker", "work"), data
    assert r.line_of("WORKER") - 1 <= data["stop"]["line"] <= r.line_of("WORKER") + 1, data
    session = server.start_session(pause["id"])
    main_before = int(server.output(session, "progress['main']"))
    time.sleep(0.2)
    assert int(server.output(session, "progress['main']")) > main_before, "the main thread runs while the worker is paused"
    server.resume(pause["id"])


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_thread_blocked_in_sleep_pauses_when_the_call_returns(server, running, python):
    r = running(
        python,
        """\
        import time
        rounds = 0
        print("running", flush=True)
        while True:
            time.sleep(0.5)
            rounds += 1  # AFTER_SLEEP
        """,
    )
    assert r.process.stdout.readline().strip() == "running"
    time.sleep(0.1)  # in the sleep
    asked = time.time()
    r.interrupt()
    pause = r.pause()
    assert time.time() - asked < 5
    assert r.line_of("AFTER_SLEEP") - 2 <= pause["call_data"]["stop"]["line"] <= r.line_of("AFTER_SLEEP")
    server.resume(pause["id"])


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stop_on_entry_pauses_at_the_first_line_before_anything_runs(server, running, python):
    r = running(
        python,
        """\
        ran = "yes"  # FIRST
        print("ran", ran)
        """,
        "--stop-on-entry",
    )
    pause = r.pause()
    data = pause["call_data"]
    assert data["stop"]["kind"] == "entry"
    assert (data["method_name"], data["stop"]["line"]) == ("<module>", r.line_of("FIRST")), data
    session = server.start_session(pause["id"])
    assert "NameError" in server.output(session, "ran"), "nothing of the program ran yet"
    server.resume(pause["id"])
    out, _ = r.process.communicate(timeout=15)
    assert r.process.returncode == 0
    assert out.strip() == "ran yes"


def test_interrupt_errors_name_the_problem(server, running):
    import sys

    status, body = server.post("/api/processes/no-such-process/interrupt", {})
    assert status == 404, body
    r = running(sys.executable, LOOP)
    process_id = r.process_id()
    status, body = server.post(f"/api/processes/{process_id}/interrupt", {"thread": "main"})
    assert (status, body["error"]) == (400, "invalid_thread"), body
    r.process.kill()
    r.process.wait()
    deadline = time.time() + 10
    while time.time() < deadline:
        status, body = server.post(f"/api/processes/{process_id}/interrupt", {})
        if status == 409:
            break
        time.sleep(0.05)
    assert (status, body["error"]) == (409, "process_ended"), body


def test_a_program_without_the_breakpoint_channel_cannot_be_interrupted(server, tmp_path):
    import sys

    prog = tmp_path / "plain.py"
    prog.write_text("import time\nwhile True:\n    time.sleep(0.01)\n")
    # Launched by the server: its record exists at once, with no channel behind it.
    status, launched = server.post(
        "/api/processes",
        {
            "command": [sys.executable, "-m", "breakroom", str(prog)],
            "env": {"PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_NO_BREAKPOINT_CHANNEL": "1"},
        },
    )
    assert status in (200, 201), launched
    process_id = launched["id"]
    try:
        status, body = server.post(f"/api/processes/{process_id}/interrupt", {})
        assert (status, body["error"]) == (409, "cannot_interrupt"), body
        assert "breakpoint channel" in body["message"]
    finally:
        server.post(f"/api/processes/{process_id}/stop")
