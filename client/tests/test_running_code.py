"""Code that is already running (issue 46), on every interpreter present: a script's top-level
`while True:` reached by a line breakpoint, a snapshot and a logpoint, under `python -m
breakroom`, `breakroom run` and attach by pid; disarmed again when the breakpoint goes; and 50
step overs beside a CPU-bound thread, with the program's switch interval given back."""

import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest
from conftest import CLIENT_DIR, _binary
from test_attach import INTERPRETERS, server  # noqa: F401  (the module's own server)

# A worker script's shape: its loop at the top level, never returning. Every 20,000 passes it
# prints its count and whether its own frame is still watched: f_trace or its thread's C trace
# function (3.11), sys.monitoring events on its code (3.12+).
WATCHED = """\
import ctypes, sys, time

def watched(frame=None):
    frame = frame or sys._getframe(1)
    if sys.version_info >= (3, 12):
        tools = [t for t in range(6) if sys.monitoring.get_tool(t) is not None]
        return any(sys.monitoring.get_local_events(t, frame.f_code) for t in tools)
    # The client imports itself on a thread of its own: the module may be there half-imported.
    discovered = getattr(sys.modules.get("breakroom.lines.running_frames"), "discovered", None)
    found = discovered() if discovered is not None else None
    thread_traced = False
    if found is not None:
        get = ctypes.pythonapi.PyThreadState_Get
        get.restype = ctypes.c_void_p
        thread_traced = bool((ctypes.c_void_p * (found[1] + 1)).from_address(get())[found[1]])
    return frame.f_trace is not None or thread_traced
"""
LOOP = WATCHED + """
print("ready", flush=True)
n = 0
while True:
    n += 1  # LOOP
    if n % 20000 == 0:
        print("tick", n, watched(), flush=True)
"""
LOOP_LINE = 1 + LOOP.splitlines().index("    n += 1  # LOOP")

# An `async def` worker's loop and a generator's, begun before the breakpoint and suspended
# (at an await, at a yield) between passes: their frames run no thread's stack when it is armed.
SUSPENDING = {
    "coroutine": WATCHED + """
import asyncio

async def worker():
    n = 0
    while True:
        n += 1  # LOOP
        if n % 2000 == 0:
            print("tick", n, watched(), flush=True)
        await asyncio.sleep(0)

print("ready", flush=True)
asyncio.run(worker())
""",
    "generator": WATCHED + """
def numbers():
    n = 0
    while True:
        n += 1  # LOOP
        yield n

passes = numbers()
print("ready", flush=True)
for n in passes:
    if n % 20000 == 0:
        print("tick", n, watched(passes.gi_frame), flush=True)
""",
}


class Program:
    """The loop, started one of three ways, its output read as it comes."""

    def __init__(self, server, python, how, source=LOOP, before_start=None):
        self.pid = None
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_running_")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.chmod(self.path, 0o644)
        if before_start is not None:
            before_start(self.path)
        plain = {k: v for k, v in os.environ.items() if not k.startswith(("BREAKROOM", "PYTHON"))}
        client = {**plain, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1"}
        if how == "run":
            command, env = [_binary(), "run", "--", python, self.path], {**plain, "BREAKROOM_URL": server.url}
        elif how == "module":
            command, env = [python, "-m", "breakroom", self.path], client
        else:
            command, env = [python, self.path], plain
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines, self.errors = [], []
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.errors), daemon=True).start()
        try:
            self.wait_for("ready")
            self.pid = self.pid_of_loop(server)
            if how == "attach":
                status, answer = server.post("/api/processes/attach", {"pid": self.pid}, timeout=90)
                assert status in (200, 202), answer
        except BaseException:  # the fixture never gets it: it would run on after the tests
            self.kill()
            raise

    def pid_of_loop(self, server):
        if self.process.args[0] != _binary():
            return self.process.pid
        # `breakroom run` asks the server to launch it: the loop is the server's child.
        launched = [p for p in server.get("/api/processes")[1]["processes"] if p["command"][-1:] == [self.path]]
        assert len(launched) == 1, launched
        return launched[0]["pid"]

    @staticmethod
    def _read(stream, into):
        for raw in stream:
            into.append(raw.decode(errors="replace").rstrip("\n"))

    def wait_for(self, prefix, after=0, timeout=60, where=None):
        where = self.lines if where is None else where
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in where[after:]:
                if line.startswith(prefix):
                    return line
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"no {prefix!r} line; output: {self.lines[-10:]} {self.errors[-10:]}")

    def ticks_after(self, seen, count=2):
        """`count` tick lines printed after the first `seen` lines: [(n, watched)]."""
        found = []
        while len(found) < count:
            line = self.wait_for("tick", after=seen)
            seen = self.lines.index(line, seen) + 1
            _, n, watched = line.split()
            found.append((int(n), watched == "True"))
        return found

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        if self.pid is not None and self.pid != self.process.pid:  # launched by the server: its own child
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass


@pytest.fixture
def programs(server):
    made = []

    def make(python, how, source=LOOP, before_start=None):
        program = Program(server, python, how, source, before_start)
        made.append(program)
        return program

    yield make
    for program in made:
        program.kill()


def paused_here(server, pid, timeout=60, program=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for p in server.paused():
            if p["call_data"]["process_pid"] == pid:
                return p
        time.sleep(0.02)
    said = f"; its output: {program.lines[-3:]} {program.errors[-10:]}" if program is not None else ""
    said += f"; breakpoints: {server.get('/api/breakpoints')[1].get('items')}"
    raise AssertionError(f"process {pid} never paused; paused: {server.paused()}{said}")


def add(server, body):
    status, reply = server.post("/api/breakpoints", body)
    assert status == 200, reply
    return reply["id"]


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("how", ["module", "run", "attach"])
def test_a_breakpoint_in_a_top_level_loop_pauses_it_and_removing_it_stops_watching(server, programs, python, how):
    program = programs(python, how)
    pauses_armed_and_disarmed(server, program, "<module>", LOOP_LINE)


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("how", ["module", "attach"])
@pytest.mark.parametrize("shape", list(SUSPENDING))
def test_a_breakpoint_in_a_suspended_generator_or_coroutine_s_loop_pauses_it_and_goes(server, programs, python, how, shape):
    source = SUSPENDING[shape]
    program = programs(python, how, source)
    line = 1 + source.splitlines().index("        n += 1  # LOOP")
    pauses_armed_and_disarmed(server, program, {"coroutine": "worker", "generator": "numbers"}[shape], line)


def pauses_armed_and_disarmed(server, program, function, line):
    """A line breakpoint added while the loop runs pauses it (and again on the next pass, one
    further on); removed, the loop runs on and nothing watches it any more."""
    assert program.ticks_after(0, 1)[0][1] is False, "nothing watches the loop before a breakpoint"
    bp = add(server, {"kind": "line", "file": program.path, "line": line})
    removed = False
    try:
        pause = paused_here(server, program.pid, program=program)
        top = pause["call_data"]["frames"][0]
        assert (top["function"], top["lineno"]) == (function, line)
        session = server.start_session(pause["id"])
        n = int(server.output(session, "n"))
        assert n > 0
        server.resume(pause["id"])
        # Still armed: the very next pass pauses again, one further on.
        again = paused_here(server, program.pid, program=program)
        assert again["id"] != pause["id"]
        assert int(server.output(server.start_session(again["id"]), "n")) == n + 1
        server.request("DELETE", f"/api/breakpoints/{bp}")
        removed = True
        seen = len(program.lines)
        server.resume(again["id"])
    finally:
        if not removed:
            server.request("DELETE", f"/api/breakpoints/{bp}")
    # It runs on, unwatched: no trace function, no monitoring events left on its code.
    ticks = program.ticks_after(seen, 2)
    assert ticks[0][0] > n and ticks[1][0] > ticks[0][0]
    assert [watched for _, watched in ticks] == [False, False]
    assert not [p for p in server.paused() if p["call_data"]["process_pid"] == program.pid]


# A coroutine that waits a second between passes, and a thread of the program's own beside
# the event loop's, which says whether it is traced.
WAITING_COROUTINE = WATCHED + """
import asyncio, threading

def bystander():
    k = 0
    while True:
        k += 1
        if k % 100000 == 0:
            print("tick", k, watched(sys._getframe()), flush=True)

async def worker():
    n = 0
    while True:
        n += 1  # LOOP
        await asyncio.sleep(1)

print("ready", flush=True)  # before the bystander prints: a line each, never mixed
threading.Thread(target=bystander, daemon=True).start()
asyncio.run(worker())
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_waiting_coroutine_is_reached_without_tracing_the_threads_beside_its_event_loop(server, programs, python):
    program = programs(python, "module", WAITING_COROUTINE)
    line = 1 + WAITING_COROUTINE.splitlines().index("        n += 1  # LOOP")
    program.ticks_after(0, 1)
    seen = len(program.lines)
    bp = add(server, {"kind": "line", "file": program.path, "line": line})
    try:
        pause = paused_here(server, program.pid, program=program)
        assert pause["call_data"]["frames"][0]["function"] == "worker"
        paused_at = len(program.lines)
        server.resume(pause["id"])
    finally:
        server.request("DELETE", f"/api/breakpoints/{bp}")
    # Armed while it waited (most of each second), it was reached when it went on; meanwhile
    # only the event loop's thread was traced (3.11), never the bystander.
    ticks = [line.split() for line in program.lines[seen:paused_at] if line.startswith("tick")]
    assert ticks and all(watched == "False" for _, _, watched in ticks), ticks


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("how", ["module", "attach"])
@pytest.mark.parametrize("shape", ["top-level", "coroutine"])
def test_a_snapshot_and_a_logpoint_on_a_running_loop_arrive_without_pausing_it(server, programs, python, how, shape):
    source = LOOP if shape == "top-level" else SUSPENDING[shape]
    function, line = ("<module>", LOOP_LINE) if shape == "top-level" else ("worker", 1 + source.splitlines().index("        n += 1  # LOOP"))
    program = programs(python, how, source)
    program.ticks_after(0, 1)
    snap = add(server, {"kind": "line", "file": program.path, "line": line, "action": "snapshot",
                        "expressions": ["n * 2"], "max_hits": 2})
    log = add(server, {"kind": "line", "file": program.path, "line": line, "log_message": "at n={n}",
                       "max_per_second": 2})
    try:
        deadline = time.time() + 60
        snapshots = []
        while len(snapshots) < 2 and time.time() < deadline:
            snapshots = server.get(f"/api/snapshots?breakpoint_id={snap}")[1]["snapshots"]
            time.sleep(0.05)
        assert len(snapshots) == 2, snapshots
        logged = program.wait_for(f"breakroom log [{log}]", where=program.errors)
        assert logged.split(": ")[-1].startswith("at n=")
    finally:
        server.request("DELETE", f"/api/breakpoints/{snap}")
        server.request("DELETE", f"/api/breakpoints/{log}")
    status, first = server.get(f"/api/snapshots/{snapshots[0]['snapshot_id']}")
    assert status == 200, first
    top = first["frames"][0]
    assert (top["function"], top["line"]) == (function, line)
    n = int({v["name"]: v["value"] for v in top["locals"]}["n"]["repr"])
    assert first["expressions"][0]["value"]["repr"] == str(n * 2)
    assert not [p for p in server.paused() if p["call_data"]["process_pid"] == program.pid], "it never paused"
    ticks = program.ticks_after(len(program.lines), 2)
    assert ticks[1][0] > ticks[0][0], "the loop goes on"


BUSY = """\
import sys, threading, breakroom
sys.setswitchinterval(0.004)  # the program's own

spins = [0]
def spin():
    while True:
        spins[0] += 1

threading.Thread(target=spin, daemon=True).start()
total = 0
breakroom.set_trace()  # PAUSE
for i in range(40):  # FOR
    total += i  # ADD
    total -= 1  # SUB
print("done", total, sys.getswitchinterval(), flush=True)
"""


def line_of(source, marker):
    return 1 + source.splitlines().index(next(t for t in source.splitlines() if t.endswith("# " + marker)))


@pytest.mark.parametrize("python", INTERPRETERS)
def test_fifty_step_overs_beside_a_cpu_bound_thread_land_line_by_line_and_the_interval_comes_back(server, python):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_busy_")
    with os.fdopen(fd, "w") as f:
        f.write(BUSY)
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([python, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        pause = paused_here(server, process.pid)
        lines = [line_of(BUSY, m) for m in ("FOR", "ADD", "SUB")]
        where = pause["call_data"]["frames"][0]["lineno"]
        assert where == line_of(BUSY, "PAUSE")
        session = server.start_session(pause["id"])
        # While paused, the GIL's turns are short: a busy thread does not hold up our hand-overs.
        assert float(server.output(session, "sys.getswitchinterval()")) < 0.001
        pause_id, landed = pause["id"], []
        for _ in range(50):
            status, reply = server.post(f"/api/paused/{pause_id}/step", {"kind": "over"}, timeout=60)
            assert status == 200 and reply["status"] == "stopped", reply
            pause_id = reply["pause_id"]
            stopped = next(p for p in server.paused() if p["id"] == pause_id)
            landed.append(stopped["call_data"]["frames"][0]["lineno"])
        expected = [lines[k % 3] for k in range(50)]
        assert landed == expected
        spins = int(server.output(server.start_session(pause_id), "spins[0]"))
        assert spins > 0, "the busy thread ran"
        server.resume(pause_id)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    # The program's own interval is back once it runs on.
    assert out.split() == ["done", str(sum(range(40)) - 40), "0.004"]


# A program with its own switch interval, a breakpoint on its loop already there when it is
# attached or started by `breakroom run` (its client calls in on a thread of its own, beside the
# loop): it pauses while the client is still calling in.
OWN_INTERVAL = """\
import sys
sys.setswitchinterval(0.004)  # the program's own
print("ready", flush=True)
n = 0
while True:
    n += 1  # LOOP
    if n % 200000 == 0:
        print("tick", n, sys.getswitchinterval(), flush=True)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("how", ["attach", "run"])
def test_paused_while_calling_in_the_interval_is_short_and_the_program_s_own_comes_back(server, programs, python, how):
    line = 1 + OWN_INTERVAL.splitlines().index("    n += 1  # LOOP")
    armed = []
    program = programs(python, "plain" if how == "attach" else how, OWN_INTERVAL,
                       before_start=lambda path: armed.append(add(server, {"kind": "line", "file": path, "line": line})))
    bp = armed[0]
    try:
        if how == "attach":
            status, answer = server.post("/api/processes/attach", {"pid": program.pid}, timeout=90)
            assert status in (200, 202), answer
        pause = paused_here(server, program.pid, program=program)
        session = server.start_session(pause["id"])
        assert float(server.output(session, "sys.getswitchinterval()")) < 0.001
        server.request("DELETE", f"/api/breakpoints/{bp}")
        seen = len(program.lines)
        server.resume(pause["id"])
    finally:
        server.request("DELETE", f"/api/breakpoints/{bp}")
    # The program's own interval is back once every hold is over: the pause's, and that of the
    # disarming the breakpoint's removal started on the channel's thread, which may still run
    # when the loop goes on (on 3.11 it walks the heap). Then it stays.
    deadline = time.time() + 30
    while True:
        tick = program.wait_for("tick", after=seen)
        seen = program.lines.index(tick, seen) + 1
        if tick.split()[2] == "0.004":
            break
        assert time.time() < deadline, f"the program's interval never came back: {tick}"
    tick = program.wait_for("tick", after=seen)
    assert tick.split()[2] == "0.004", tick


# A hot loop whose snapshot breakpoint is past its rate at almost every arrival: those go
# through the line's gate, and each is still counted.
HOT = """\
import sys, time, breakroom

def handle(i):
    return i + 1  # IN_FUNCTION

engine = breakroom.line_breakpoints()
while not engine.list():  # armed by the server's channel
    time.sleep(0.01)
for i in range(ARRIVALS):
    if TOP_LEVEL:
        i += 1  # TOP_LEVEL
    else:
        handle(i)
print("done", flush=True)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("where", ["IN_FUNCTION", "TOP_LEVEL"])
def test_every_arrival_past_a_snapshot_s_rate_is_counted(server, python, where):
    arrivals = 100_000
    source = HOT.replace("ARRIVALS", str(arrivals)).replace("TOP_LEVEL:", f"{where == 'TOP_LEVEL'}:")
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_hot_")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    bp = add(server, {"kind": "line", "file": path, "line": line_of(source, where), "action": "snapshot",
                      "max_per_second": 2, "max_hits": 1000})
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    try:
        done = subprocess.run([python, "-m", "breakroom", path], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr
        deadline, counted = time.time() + 60, None
        while time.time() < deadline:
            record = next(r for r in server.get("/api/breakpoints")[1]["items"] if r["id"] == bp)
            counted = (record["captured"], record["skipped_rate"], record["skipped_quota"], record.get("dropped", 0))
            if sum(counted) >= arrivals:
                break
            time.sleep(0.1)
    finally:
        server.request("DELETE", f"/api/breakpoints/{bp}")
    captured, skipped_rate, skipped_quota, _ = counted
    assert sum(counted) == arrivals, counted
    # Past the rate, or past the time budget when the first (cold) captures spent it.
    assert captured >= 1 and skipped_rate + skipped_quota > arrivals // 2, counted


CHILD = """\
import sys
x = 41 + 1  # SECOND
print("child", x, flush=True)
"""

PARENT = """\
import subprocess, sys, time, breakroom

engine = breakroom.line_breakpoints()
while not engine.list():  # the child's breakpoint, armed here by the server's channel
    time.sleep(0.01)
done = subprocess.run([sys.executable, CHILD], capture_output=True, text=True)
print("child said:", done.stdout.strip(), done.returncode, flush=True)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_child_pauses_at_a_breakpoint_on_its_second_line(server, python):
    folder = tempfile.mkdtemp(prefix="breakroom_family_")
    child, parent = os.path.join(folder, "child.py"), os.path.join(folder, "parent.py")
    with open(child, "w") as f:
        f.write(CHILD)
    with open(parent, "w") as f:
        f.write(PARENT.replace("CHILD", repr(child)))
    bp = add(server, {"kind": "line", "file": child, "line": line_of(CHILD, "SECOND")})
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    process = subprocess.Popen([python, "-m", "breakroom", parent], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline, pause = time.time() + 60, None
        while pause is None and time.time() < deadline and process.poll() is None:
            pause = next((p for p in server.paused() if p["call_data"]["frames"][0]["filename"] == child), None)
            time.sleep(0.02)
        assert pause is not None, f"the child never paused: {process.poll()} {process.stderr.read() if process.poll() is not None else ''}"
        assert pause["call_data"]["frames"][0]["lineno"] == line_of(CHILD, "SECOND")
        assert pause["call_data"]["process_pid"] != process.pid
        session = server.start_session(pause["id"])
        assert server.output(session, "sys.argv[0]") == repr(child)
        assert "NameError" in server.output(session, "x"), "the line has not run yet"
        server.request("DELETE", f"/api/breakpoints/{bp}")
        server.resume(pause["id"])
        out, err = process.communicate(timeout=60)
    finally:
        server.request("DELETE", f"/api/breakpoints/{bp}")
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.strip() == "child said: child 42 0"
