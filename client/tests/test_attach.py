"""Attach by pid (issue 33): real Python programs started without Breakroom, on every
interpreter present (pyenv's 3.11/3.12/3.13 and Debian's 3.11), attached by a real server.

Each program is caught where attaching is hard: a busy loop, `time.sleep`, a blocked `os.read`,
a long C call, an idle asyncio loop, a thread `join`. Each time the record appears, a line
breakpoint pauses it, the REPL evaluates in it, and the program's own output goes on."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest
from conftest import _binary, start_server


def _interpreters():
    found = [pytest.param(sys.executable, id=f"{sys.version_info[0]}.{sys.version_info[1]}")]
    for version in ("3.12", "3.13"):
        paths = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/python3")))
        marks = [] if paths else [pytest.mark.skip(reason=f"Python {version} is not installed (pyenv)")]
        found.append(pytest.param(paths[-1] if paths else None, id=version, marks=marks))
    debian = "/usr/bin/python3.11"
    marks = [] if os.path.exists(debian) else [pytest.mark.skip(reason="no Debian python3.11")]
    found.append(pytest.param(debian, id="debian-3.11", marks=marks))
    return found


INTERPRETERS = _interpreters()

# Every program calls tick() again and again on some thread; line 2 of it is where the test's
# line breakpoint goes. It prints so the test sees its output go on.
TICK = """
def tick(n):
    x = n + 1
    print("tick", x, flush=True)
    return x

def ticking(every=0.05):
    n = 0
    while True:
        n = tick(n)
        time.sleep(every)
"""
# Its line in every program (the programs start with one line of imports).
TICK_LINE = 1 + TICK.splitlines().index("    x = n + 1") + 1

SCENARIOS = {
    "busy_loop": """
        n, last = 0, time.monotonic()
        while True:
            n += 1
            if time.monotonic() - last > 0.05:
                last = time.monotonic()
                tick(n)
    """,
    "sleep": """
        threading.Thread(target=ticking, daemon=True).start()
        t0 = time.monotonic()
        time.sleep(6.0)
        print("slept %.3f" % (time.monotonic() - t0), flush=True)
        time.sleep(3600)
    """,
    "blocked_read": """
        threading.Thread(target=ticking, daemon=True).start()
        data = os.read(0, 100)
        print("read", data.decode().strip(), flush=True)
        time.sleep(3600)
    """,
    "long_c_call": """
        total = sum(range(2 * 10**8))
        print("summed", flush=True)
        ticking()
    """,
    "asyncio_idle": """
        import asyncio
        async def main():
            n = 0
            while True:
                await asyncio.sleep(0.2)
                n = tick(n)
        asyncio.run(main())
    """,
    "thread_join": """
        t = threading.Thread(target=ticking)
        t.start()
        t.join()
    """,
}


class Target:
    """A plain Python program (no Breakroom anywhere in its environment), its output collected."""

    def __init__(self, python, body, user=None):
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_attach_")
        source = "import os, sys, threading, time\n" + TICK + "print('ready', flush=True)\n" + textwrap.dedent(body)
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.chmod(self.path, 0o644)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BREAKROOM", "PYTHON"))}
        self.process = subprocess.Popen(
            [python, self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=env, user=user,
        )
        self.pid = self.process.pid
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for_line("ready")

    def _read(self):
        for raw in self.process.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    def wait_for_line(self, prefix, after=0, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in self.lines[after:]:
                if line.startswith(prefix):
                    return line
            if self.process.poll() is not None:
                break
            time.sleep(0.01)
        raise AssertionError(f"no {prefix!r} line; output: {self.lines[-20:]}")

    def alive(self):
        return self.process.poll() is None

    def kill(self):
        if self.alive():
            self.process.kill()
        self.process.wait(5)


@pytest.fixture(scope="module")
def server():
    srv = start_server("--eval-timeout", "10")
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


@pytest.fixture
def targets():
    made = []

    def make(python, body, **kw):
        target = Target(python, body, **kw)
        made.append(target)
        return target

    yield make
    for target in made:
        target.kill()


def attach(server, pid, **body):
    started = time.monotonic()
    # Longer than the attach's own deadline: a late attach answers with the server's account of
    # where the target's main thread is, rather than a client-side read timeout.
    deadline = body.get("timeout_s")
    waited = deadline + 30 if isinstance(deadline, (int, float)) else 90
    status, answer = server.post("/api/processes/attach", {"pid": pid, **body}, timeout=max(90, waited))
    return status, answer, time.monotonic() - started


def pause_at_tick_and_eval(server, target):
    """A line breakpoint pauses the attached program; the REPL runs in its frame; it goes on."""
    status, bp = server.post("/api/breakpoints", {"kind": "line", "file": target.path, "line": TICK_LINE})
    assert status == 200, bp
    try:
        pause = server.wait_for_pause("tick", timeout=15, pid=target.pid)
    finally:
        server.request("DELETE", f"/api/breakpoints/{bp['id']}")
    status, session = server.post("/api/repl/start", {"pause_id": pause["id"]})
    assert status == 200, session
    status, answer = server.post(f"/api/repl/{session['session_id']}/eval", {"expr": "(n + 1, os.getpid())"})
    assert status == 200 and not answer["is_error"], answer
    n_plus_one, pid = json.loads(answer["output"].replace("(", "[").replace(")", "]"))
    assert pid == target.pid
    seen = len(target.lines)
    server.resume(pause["id"])
    # The program runs on: it prints the tick it paused in, and more.
    line = target.wait_for_line("tick", after=seen)
    assert line == f"tick {n_plus_one}"
    target.wait_for_line("tick", after=target.lines.index(line, seen) + 1)


@pytest.mark.parametrize("python", INTERPRETERS)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_an_attached_program_is_listed_pauses_at_a_line_and_runs_on(server, targets, python, scenario):
    target = targets(python, SCENARIOS[scenario])
    if scenario in ("sleep", "blocked_read", "thread_join"):
        # The first tick can come before the main thread is back from starting the ticking thread
        # and blocked where the scenario says (it would be waiting for the GIL, and the attach
        # would queue a pending call): the tenth comes half a second later.
        target.wait_for_line("tick 10")
    elif scenario != "long_c_call":
        target.wait_for_line("tick")  # settled where the scenario says (asyncio: imported, idle)
    status, answer, took = attach(server, target.pid, timeout_s=60)
    assert status == 202, answer
    assert answer["pid"] == target.pid and answer["process"]["origin"] == "attached"
    assert answer["python"].startswith(tuple(f"3.{m}" for m in (11, 12, 13)))
    if scenario == "long_c_call":
        # Queued for the next bytecode: the client comes in once the C call returns.
        assert answer["method"] == "pending_call"
        assert "summed" in target.lines
    else:
        assert took < 2.0, (took, answer)
    if scenario in ("sleep", "blocked_read", "thread_join", "asyncio_idle"):
        assert answer["method"] == "blocked_thread", answer
    status, listed = server.get(f"/api/processes/{answer['process_id']}")
    assert status == 200 and listed["status"] in ("running", "paused") and listed["pid"] == target.pid
    if scenario == "blocked_read":
        # The read that the attach interrupted is restarted, and reads what comes later.
        target.process.stdin.write(b"hello\n")
        target.process.stdin.flush()
        assert target.wait_for_line("read ") == "read hello"
    pause_at_tick_and_eval(server, target)
    if scenario == "sleep":
        slept = float(target.wait_for_line("slept").split()[1])
        assert abs(slept - 6.0) < 0.05, slept
    assert target.alive()


MALLOC_HEAVY = """
    import random
    held = {}
    n = 0
    while True:
        held[random.randrange(2000)] = bytearray(random.randrange(1, 200000))
        held[random.randrange(2000)] = [str(i) for i in range(random.randrange(50))]
        n += 1
        if n % 20000 == 0:
            print("alive", n, flush=True)
"""


def main_thread_state(pid):
    """Where a process's main thread is, as the kernel tells it (for a failure's message)."""
    state = {}
    for name in ("wchan", "syscall", "stat"):
        try:
            with open(f"/proc/{pid}/{name}") as f:
                state[name] = f.read().strip()[:200]
        except OSError as e:
            state[name] = repr(e)
    return state


@pytest.mark.parametrize("python", INTERPRETERS)
def test_malloc_heavy_programs_survive_25_attaches(server, targets, python):
    alive = 0
    for batch in range(5):
        group = [targets(python, MALLOC_HEAVY) for _ in range(5)]
        results = [None] * len(group)

        def run(i, target):
            # Survival, not speed: five busy programs share two cores while each imports the
            # freshly shipped client (no bytecode cache yet).
            results[i] = attach(server, target.pid, timeout_s=120)

        threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate(group)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(0.3)
        for target, (status, answer, took) in zip(group, results):
            if status != 202:
                # Whole, not as an assertion's repr (pytest cuts those in the middle): the
                # server's account of where the main thread was is the part that explains it.
                pytest.fail(
                    f"attach answered {status} after {took:.1f} s: {answer}\n"
                    f"the program's last lines: {target.lines[-5:]}\n"
                    f"what the client said in it: {[l for l in target.lines if l.startswith('breakroom')]}\n"
                    f"its main thread now: {main_thread_state(target.pid)}",
                    pytrace=False,
                )
            assert target.alive(), target.lines[-5:]
            seen = len(target.lines)
            target.wait_for_line("alive", after=seen)
            alive += 1
            target.kill()
    assert alive == 25


# The program is in the middle of importing `json` (its module made, its code not yet run), a
# module the client needs too. A real stand-in: `import random` imports `warnings` right after a
# program starts, and an attach that came then found `warnings` half made. The import here waits
# until the attach has come and a second more, so the attach lands inside it every time.
MID_IMPORT = """
    import importlib.abc, importlib.util

    class Slow(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name != "json":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            self.real, spec.loader = spec.loader, self
            return spec

        def create_module(self, spec):
            return self.real.create_module(spec)

        def exec_module(self, module):
            print("importing json", flush=True)
            while not getattr(sys, "_breakroom_attached", False):
                pass
            t = time.monotonic()
            while time.monotonic() - t < 1.0:
                pass
            self.real.exec_module(module)

    sys.meta_path.insert(0, Slow())
    import json
    print("imported", json.dumps([1]), flush=True)
    ticking()
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_program_attached_in_the_middle_of_an_import_the_client_needs_is_attached(server, targets, python):
    target = targets(python, MID_IMPORT)
    target.wait_for_line("importing json")
    status, answer, took = attach(server, target.pid, timeout_s=30)
    said = [l for l in target.lines if l.startswith("breakroom")]
    assert status == 202, (answer, said)
    assert said == []
    assert target.wait_for_line("imported") == "imported [1]"
    pause_at_tick_and_eval(server, target)
    assert target.alive()


def test_attach_refusals_name_the_problem(server, targets):
    status, body, _ = attach(server, -4)
    assert (status, body["error"]) == (400, "invalid_pid")
    free = next(pid for pid in range(4_000_000, 4_100_000) if not os.path.exists(f"/proc/{pid}"))
    status, body, _ = attach(server, free)
    assert (status, body["error"]) == (404, "no_such_process")
    status, body = server.post("/api/processes/attach", {"pid": "12"})
    assert status == 400, body
    status, body, _ = attach(server, os.getpid(), timeout_s=0)
    assert (status, body["error"]) == (400, "invalid_timeout")
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        status, body, _ = attach(server, sleeper.pid)
        assert (status, body["error"]) == (422, "not_python"), body
    finally:
        sleeper.kill()
    target = targets(sys.executable, SCENARIOS["sleep"])
    status, body, _ = attach(server, target.pid)
    assert status == 202, body
    status, again, _ = attach(server, target.pid)
    assert (status, again["error"]) == (409, "already_debugged") and body["process_id"] in again["message"]
    assert target.alive()


@pytest.mark.skipif(not glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python3")), reason="no Python 3.10")
def test_python_older_than_3_11_is_refused_with_its_version(server, targets):
    old = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python3")))[-1]
    target = targets(old, SCENARIOS["sleep"])
    status, body, _ = attach(server, target.pid)
    assert (status, body["error"]) == (422, "unsupported_python"), body
    assert "3.10" in body["message"] and target.alive()


def test_a_long_c_call_times_out_saying_where_the_main_thread_is_and_attaches_after(server, targets):
    target = targets(sys.executable, "sum(range(4 * 10**8))\nprint('summed', flush=True)\nticking()\n")
    status, body, took = attach(server, target.pid, timeout_s=0.5)
    assert (status, body["error"]) == (504, "attach_timeout"), body
    assert "running machine code" in body["message"] and took < 2
    # The code was queued all the same: the client calls in when the C call returns.
    target.wait_for_line("summed", timeout=60)
    deadline = time.time() + 10
    while time.time() < deadline:
        listed = server.get("/api/processes")[1]["processes"]
        if any(p["pid"] == target.pid and p["origin"] == "attached" for p in listed):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the attached client never called in")


def test_local_processes_lists_python_programs_with_version_and_whether_attachable(server, targets):
    target = targets(sys.executable, SCENARIOS["sleep"])
    status, body = server.get("/api/local-processes")
    assert status == 200 and body["attach_allowed"] is True
    mine = next(p for p in body["processes"] if p["pid"] == target.pid)
    version = ".".join(map(str, sys.version_info[:3]))
    assert mine["version"] == version and mine["attachable"] and mine["argv"][-1] == target.path
    assert all(p["pid"] != server.process.pid for p in body["processes"])
    status, attached, _ = attach(server, target.pid)
    assert status == 202
    mine = next(p for p in server.get("/api/local-processes")[1]["processes"] if p["pid"] == target.pid)
    assert not mine["attachable"] and mine["process_id"] == attached["process_id"]


def test_the_cli_attaches_and_lists(server, targets):
    target = targets(sys.executable, SCENARIOS["sleep"])
    env = {**os.environ, "BREAKROOM_URL": server.url}
    listed = subprocess.run([_binary(), "attach", "--list"], env=env, capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0 and str(target.pid) in listed.stdout, listed
    done = subprocess.run([_binary(), "attach", str(target.pid)], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and f"attached to {target.pid}" in done.stdout, done
    again = subprocess.run([_binary(), "attach", str(target.pid)], env=env, capture_output=True, text=True, timeout=30)
    assert again.returncode == 1 and "already_debugged" in again.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to run a server as nobody")
def test_an_attach_ptrace_refuses_is_a_403_that_says_why_and_leaves_the_target_alone(targets):
    """The server runs as `nobody`; the program is root's."""
    binary = _binary()
    if subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "test", "-x", binary]).returncode:
        pytest.skip("the breakroom binary is not executable by nobody here")
    home = tempfile.mkdtemp(prefix="breakroom-nobody-")
    os.chmod(home, 0o777)
    server_process = subprocess.Popen(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "--port", "0", "--memory"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={"PATH": os.environ["PATH"], "HOME": home, "CIDELDILL_HOME": home},
    )
    try:
        line = ""
        deadline = time.time() + 20
        while "Server running on" not in line and time.time() < deadline:
            line = server_process.stdout.readline()
        url = line.split("Server running on", 1)[1].strip()
        from conftest import Server

        nobody = Server(url, server_process)
        target = targets(sys.executable, SCENARIOS["sleep"])
        status, body, _ = attach(nobody, target.pid)
        assert (status, body["error"]) == (403, "ptrace_denied"), body
        assert "belongs to root" in body["message"] and "nobody" in body["message"]
        seen = len(target.lines)
        target.wait_for_line("tick", after=seen)
        assert target.alive()
    finally:
        server_process.kill()
        server_process.wait(5)
