"""Pausing a request, not the service (issue 51): a FastAPI app under uvicorn (and an aiohttp
one), paused in its handlers by line breakpoints and `await breakroom.set_trace_async()`, while
its health route goes on answering; three steps over with the task suspended; two paused requests continued in reverse order; a synchronous frame under a
coroutine, which still stops the loop and says so. On Python 3.11 (code rewritten) and pyenv's
3.12 and 3.13 (sys.monitoring for the rest, rewritten coroutines) when installed."""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.error
import urllib.request

import pytest
from conftest import CLIENT_DIR, PausedProgram
from test_stepping import INTERPRETERS

APP = """
import asyncio
import json
import sys
import os
import re

import breakroom
import uvicorn
from fastapi import FastAPI

app = FastAPI()


async def helper(n):
    await asyncio.sleep(0.01)
    return n * 10  # HELPER


async def numbers(k):
    for i in range(k):
        await asyncio.sleep(0)
        yield i


@app.get("/health")
async def health():
    return {"ok": True}


@app.get("/work/{n}")
async def work(n: int):
    doubled = n * 2
    result = doubled + 1  # BP
    return {"n": n, "result": result}


@app.get("/steps/{n}")
async def steps(n: int):
    a = n + 1  # STEP1
    await asyncio.sleep(0)
    b = a * 2
    c = b + await helper(1)
    return {"c": c}


@app.get("/trace/{n}")
async def trace(n: int):
    here = n + 100
    await breakroom.set_trace_async()
    return {"here": here}


def sync_part(n):
    inside = n + 7  # SYNC
    breakroom.set_trace()
    return inside


@app.get("/sync/{n}")
async def sync_route(n: int):
    return {"v": sync_part(n)}


TICKS = {"n": 0}


async def ticker():
    while True:
        await asyncio.sleep(0.005)
        TICKS["n"] += 1  # TICK


STUBBORN = {"caught": 0}


async def stubborn():
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            STUBBORN["caught"] += 1  # swallowed: it goes on


@app.on_event("startup")
async def start_ticker():
    loop = asyncio.get_running_loop()
    app.state.ticker = loop.create_task(ticker(), name="ticker")
    app.state.stubborn = loop.create_task(stubborn(), name="stubborn")


@app.get("/stubborn")
async def stubborn_caught():
    return STUBBORN


@app.get("/loop")
async def which_loop():
    return {"loop": type(asyncio.get_running_loop()).__module__}


@app.get("/ticks")
async def ticks():
    return TICKS


breakroom.configure().ensure_connected()  # follows the server's breakpoints from now on
engine = breakroom.line_breakpoints()
for spec in json.loads(os.environ.get("BP", "[]")):
    engine.add({"kind": "line", "file": __file__, **spec})
# The loop named (uvicorn's "auto" would pick uvloop wherever it is installed).
uvicorn.run(app, host="127.0.0.1", port=int(os.environ["PORT"]), log_level="warning", loop=os.environ.get("LOOP", "asyncio"))
"""

BP_LINE = next(n for n, text in enumerate(textwrap.dedent(APP).splitlines(), 1) if text.endswith("# BP"))
STEP1_LINE = next(n for n, text in enumerate(textwrap.dedent(APP).splitlines(), 1) if text.endswith("# STEP1"))
HELPER_LINE = next(n for n, text in enumerate(textwrap.dedent(APP).splitlines(), 1) if text.endswith("# HELPER"))
TICK_LINE = next(n for n, text in enumerate(textwrap.dedent(APP).splitlines(), 1) if text.endswith("# TICK"))
SYNC_LINE = next(n for n, text in enumerate(textwrap.dedent(APP).splitlines(), 1) if text.endswith("# SYNC"))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """The app under uvicorn, run with the client against the test's server."""

    def __init__(self, server, python, bp=(), loop="asyncio"):
        self.server = server
        self.port = _free_port()
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_asgi_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(APP))
        env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1",
               "PORT": str(self.port), "BP": json.dumps([{"file": self.path, **b} for b in bp]), "LOOP": loop}
        self.process = subprocess.Popen([python, self.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                if self.get("/health", timeout=1) == {"ok": True}:
                    break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the app did not start: {self.process.communicate()}")
            time.sleep(0.05)

    def get(self, path, timeout=30):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=timeout) as resp:
            return json.loads(resp.read())

    def request_in_background(self, path):
        """`path` asked on a thread: (thread, box), box["answer"] once it answered."""
        box = {}

        def ask():
            try:
                box["answer"] = self.get(path)
            except Exception as exc:  # told to the test through the box
                box["error"] = exc

        thread = threading.Thread(target=ask, daemon=True)
        thread.start()
        return thread, box

    def health_seconds(self, timeout=5):
        started = time.monotonic()
        assert self.get("/health", timeout=timeout) == {"ok": True}
        return time.monotonic() - started

    def pauses(self):
        return [p for p in self.server.paused() if p["call_data"]["process_pid"] == self.process.pid]

    def wait_for_pauses(self, count, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.pauses()
            if len(found) >= count:
                return found
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.kill()
        raise AssertionError(f"{count} pauses never listed: {self.pauses()}; {self.process.communicate()}")

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def service(server):
    started = []

    def start(python, bp=(), loop="asyncio"):
        if python is None:
            pytest.skip("interpreter not installed")
        s = Service(server, python, bp, loop)
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()


def _answered(box, timeout=15):
    deadline = time.monotonic() + timeout
    while "answer" not in box and "error" not in box and time.monotonic() < deadline:
        time.sleep(0.01)
    assert "answer" in box, box
    return box["answer"]


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_line_breakpoint_in_a_handler_pauses_that_request_while_health_answers(server, service, python):
    # A second breakpoint, in a plain function, recompiles the handler's file once more: the
    # handler must still await its pause (its code is kept, not swapped for an equal one).
    app = service(python, bp=[{"line": BP_LINE}, {"line": SYNC_LINE}])
    usual = max(app.health_seconds() for _ in range(5))
    thread, box = app.request_in_background("/work/4")
    (pause,) = app.wait_for_pauses(1)
    assert pause["call_data"]["method_name"] == "work"
    assert pause["blocking"] is False, pause
    assert pause["call_data"]["stop"]["line"] == BP_LINE
    # The loop runs on: the health route answers while the request is paused.
    assert app.health_seconds() < max(1.0, 10 * usual)
    assert "answer" not in box
    paused = PausedProgram(server, app, pause)
    assert paused.output("doubled") == "8"
    assert paused.output("n") == "4"
    # `await` at top level runs as a task on the paused task's loop, which is free.
    assert paused.output("await helper(n)") == "40"
    assert paused.output("[x async for x in numbers(3)]") == "[0, 1, 2]"
    paused.eval("later = await helper(doubled)")
    assert paused.output("later") == "80"
    paused.resume()
    assert _answered(box) == {"n": 4, "result": 9}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_on_uvloop_a_paused_request_waits_alone_awaits_in_the_repl_and_is_listed(server, service, python):
    app = service(python, bp=[{"line": BP_LINE}], loop="uvloop")
    assert "uvloop" in app.get("/loop")["loop"], "the service runs on uvloop"
    usual = max(app.health_seconds() for _ in range(5))
    _, box = app.request_in_background("/work/5")
    (pause,) = app.wait_for_pauses(1)
    assert pause["blocking"] is False, pause
    assert app.health_seconds() < max(1.0, 10 * usual)
    paused = PausedProgram(server, app, pause)
    assert paused.output("await helper(n)") == "50"
    tasks = server.get(f"/api/processes/{pause['process_id']}/tasks")[1]["tasks"]
    (listed,) = [t for t in tasks if t["pause_id"] == pause["id"]]
    assert listed["state"] == "paused" and listed["stack"][-1]["function"] == "work", listed
    paused.resume()
    assert _answered(box) == {"n": 5, "result": 11}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_two_paused_requests_continued_in_reverse_order_each_return_their_own_result(server, service, python):
    app = service(python, bp=[{"line": BP_LINE}])
    _, first = app.request_in_background("/work/1")
    app.wait_for_pauses(1)
    _, second = app.request_in_background("/work/2")
    pauses = app.wait_for_pauses(2)
    # Each paused task waits on a thread of its own, named after the task: what DAP lists.
    threads = [p["call_data"]["thread"] for p in pauses]
    assert threads[0]["id"] != threads[1]["id"], threads
    assert all(t["name"].startswith("asyncio task Task-") for t in threads), threads
    by_n = {}
    for pause in pauses:
        paused = PausedProgram(server, app, pause)
        by_n[int(paused.output("n"))] = paused
    assert sorted(by_n) == [1, 2]
    # Evaluated and changed in any order: each pause is its own frame.
    assert by_n[2].output("doubled") == "4"
    assert by_n[1].output("doubled") == "2"
    by_n[2].eval("doubled = 40")
    by_n[2].resume()  # the later one first
    assert _answered(second) == {"n": 2, "result": 41}
    assert "answer" not in first  # still paused
    assert app.health_seconds() < 5
    by_n[1].resume()
    assert _answered(first) == {"n": 1, "result": 3}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_set_trace_async_pauses_the_task_without_stopping_the_loop(server, service, python):
    app = service(python)
    _, box = app.request_in_background("/trace/5")
    (pause,) = app.wait_for_pauses(1)
    assert pause["call_data"]["stop"]["kind"] == "set_trace"
    assert pause["call_data"]["stop"]["function"] == "trace"
    assert pause["blocking"] is False, pause
    assert app.health_seconds() < 5
    paused = PausedProgram(server, app, pause)
    assert paused.output("here") == "105"
    paused.resume()
    assert _answered(box) == {"here": 105}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_sync_frame_under_a_coroutine_still_blocks_the_loop_and_says_so(server, service, python):
    app = service(python)
    _, box = app.request_in_background("/sync/3")
    (pause,) = app.wait_for_pauses(1)
    assert pause["blocking"] is True, pause
    assert "synchronous frame called from a coroutine" in pause["blocking_reason"]
    assert "blocking the event loop" in _page(server, "/")
    # The loop's thread is stopped: the health route cannot answer until the pause ends.
    _, health = app.request_in_background("/health")
    paused = PausedProgram(server, app, pause)
    assert paused.output("inside") == "10"
    # `await` would need the loop this very pause stops: refused, saying why.
    status, body = server.post(f"/api/repl/{paused.session_id}/eval", {"expr": "await helper(1)"})
    assert status == 409 and body["error"] == "loop_blocked", (status, body)
    assert "stops the event loop's thread" in body["message"], body
    assert paused.output("inside + 1") == "11"  # the session goes on
    assert "answer" not in health and "error" not in health
    paused.resume()
    assert _answered(box) == {"v": 10}
    assert _answered(health) == {"ok": True}


def _page(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as resp:
        return resp.read().decode()


@pytest.mark.parametrize("python", INTERPRETERS)
def test_the_tasks_route_lists_both_paused_handlers_with_their_stacks_and_the_servers_own_tasks(server, service, python):
    app = service(python, bp=[{"line": BP_LINE}])
    app.request_in_background("/work/1")
    app.wait_for_pauses(1)
    app.request_in_background("/work/2")
    pauses = app.wait_for_pauses(2)
    process_ids = {p["process_id"] for p in pauses}
    assert len(process_ids) == 1 and None not in process_ids, pauses
    (process_id,) = process_ids
    status, body = server.get(f"/api/processes/{process_id}/tasks")
    assert status == 200, body
    tasks = body["tasks"]
    paused = [t for t in tasks if t["state"] == "paused"]
    assert sorted(t["pause_id"] for t in paused) == sorted(p["id"] for p in pauses), tasks
    for task in paused:
        assert [f["function"] for f in task["stack"]][-1] == "work", task
        assert task["stack"][-1]["line"] == BP_LINE and task["stack"][-1]["file"] == app.path, task
        assert set(task) >= {"id", "name", "state", "stack", "awaiting", "created_at_stack", "pause_id"}
    # uvicorn's own serving task is there too, waiting (the loop runs on).
    others = [t for t in tasks if t["state"] != "paused"]
    assert any(any(f["function"].endswith("serve") for f in t["stack"]) for t in others), tasks
    assert all(t["pause_id"] is None for t in others)
    # The list was read without stopping the loop: health answers, and it does not stop any pause.
    assert app.health_seconds() < 5
    assert len(app.pauses()) == 2
    # The command line and the MCP tool say the same.
    cli = subprocess.run([os.environ.get("BREAKROOM_BIN", ""), "tasks", process_id], capture_output=True, text=True,
                         timeout=30, env={**os.environ, "BREAKROOM_URL": server.url})
    assert cli.returncode == 0, cli.stderr
    assert f"{os.path.basename(app.path)}:{BP_LINE} in work" in cli.stdout and "2 paused by Breakroom" in cli.stdout, cli.stdout
    # The Tasks page: the same list, a tree of who awaits whom, as escaped text.
    page = _page(server, f"/process/{process_id}/tasks")
    assert "Tasks ·" in page and "2 paused by Breakroom" in page, page[:2000]
    assert page.count('class="task state-paused"') == 2 and f":{BP_LINE} in work" in page, page[:4000]
    assert f'href="/process/{process_id}/tasks"' in _page(server, f"/process/{process_id}")
    listed = _mcp_list_tasks(server, process_id)
    assert sorted(t["pause_id"] for t in listed["tasks"] if t["pause_id"]) == sorted(p["id"] for p in pauses)
    for pause in pauses:
        server.resume(pause["id"])


def _mcp_list_tasks(server, process_id):
    test_mcp = pytest.importorskip("test_mcp")  # the official MCP SDK is the agent

    got = {}

    async def body(agent, _updates):
        got.update(await agent.ok("list_tasks", process_id=process_id))
        missing = await agent.call("list_tasks", process_id="no-such-process")
        assert missing.is_error, missing

    test_mcp.run(test_mcp.connect(server.url, body))
    return got


@pytest.mark.parametrize("python", INTERPRETERS)
def test_an_admin_cancels_a_task_from_its_own_loop_and_a_paused_one_is_refused(server, service, python):
    app = service(python, bp=[{"line": BP_LINE}])
    _, request = app.request_in_background("/work/1")
    (pause,) = app.wait_for_pauses(1)
    process_id = pause["process_id"]
    tasks = {t["name"]: t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
    ticker, stubborn = tasks["ticker"], tasks["stubborn"]
    (paused,) = [t for t in tasks.values() if t["pause_id"] == pause["id"]]
    cancel = lambda task_id: server.post(f"/api/processes/{process_id}/tasks/{task_id}/cancel", {})  # noqa: E731

    status, done = cancel(ticker["id"])
    assert status == 200, done
    assert done == {"process_id": process_id, "task_id": ticker["id"], "name": "ticker", "action": "cancel",
                    "outcome": "cancelled"}
    ticks = app.get("/ticks")["n"]
    time.sleep(0.1)  # the ticker ticked every 5 ms: twenty ticks' time, and none came
    assert app.get("/ticks")["n"] == ticks
    listed = {t["id"]: t["state"] for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
    assert listed.get(ticker["id"], "cancelled") == "cancelled", listed

    # One that catches the cancellation goes on, and the answer says so (here through the CLI).
    cli = subprocess.run([os.environ.get("BREAKROOM_BIN", ""), "tasks", process_id, "--cancel", stubborn["id"]],
                         capture_output=True, text=True, timeout=30, env={**os.environ, "BREAKROOM_URL": server.url})
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == f"{stubborn['id']} (stubborn): cancelled; it still runs (it caught the cancellation, or is cleaning up)"
    assert app.get("/stubborn") == {"caught": 1}

    # Refusals, each naming the problem; the paused request is untouched and still answers.
    status, body = cancel(paused["id"])
    assert (status, body["error"]) == (409, "task_paused") and "continue its pause" in body["message"], body
    assert _mcp_refusal(server, "cancel_task", process_id, paused["id"]).startswith("task_paused: "), "the agent's door too"
    status, body = cancel(ticker["id"])
    assert (status, body["error"]) in ((409, "task_finished"), (404, "task_not_found")), body
    status, body = cancel("task-0")
    assert (status, body["error"]) == (404, "task_not_found"), body
    status, body = cancel("no%20such")
    assert (status, body["error"]) == (400, "invalid_task_id"), body
    status, body = server.post("/api/processes/no-such-process/tasks/task-1/cancel", {})
    assert status == 404, body
    assert app.health_seconds() < 5
    server.resume(pause["id"])
    assert _answered(request) == {"n": 1, "result": 3}


def _wait_for_new_pause(app, known, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = [p for p in app.pauses() if p["id"] not in known]
        if new:
            return new[0]
        time.sleep(0.02)
    raise AssertionError(f"no new pause: {app.pauses()}")


def _process_id(server, app):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = next((p["id"] for p in server.get("/api/processes")[1]["processes"] if p.get("pid") == app.process.pid),
                     None)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the app is never listed as a process")


def _ticks_again(app, after):
    deadline = time.monotonic() + 10
    while app.get("/ticks")["n"] <= after + 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return app.get("/ticks")["n"] > after + 2


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_debugger_pauses_one_task_where_it_waits_while_its_loop_runs_on(server, service, python):
    app = service(python)
    process_id = _process_id(server, app)
    tasks = {t["name"]: t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
    ticker = tasks["ticker"]
    pause_task = lambda task_id: server.post(f"/api/processes/{process_id}/tasks/{task_id}/pause", {})  # noqa: E731

    status, done = pause_task(ticker["id"])
    assert status == 200, done
    assert (done["task_id"], done["name"], done["action"], done["outcome"]) == (ticker["id"], "ticker", "pause", "suspended")
    (pause,) = [p for p in app.pauses() if p["id"] == done["pause_id"]]
    stop = pause["call_data"]["stop"]
    # Held at its `await`, in its own frame, and only it: the loop answers, the ticks stop.
    assert (stop["kind"], stop["function"], stop["line"]) == ("task", "ticker", TICK_LINE - 1), stop
    assert pause["blocking"] is False, pause
    ticks = app.get("/ticks")["n"]
    time.sleep(0.1)  # twenty ticks' time, and none came
    assert app.get("/ticks")["n"] == ticks
    assert app.health_seconds() < 5
    listed = {t["id"]: t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
    assert (listed[ticker["id"]]["state"], listed[ticker["id"]]["pause_id"]) == ("paused", pause["id"]), listed
    # The REPL evaluates in the held frame, and awaits on its loop.
    session = server.start_session(pause["id"])
    assert server.output(session, "TICKS['n']") == str(ticks)
    assert server.output(session, "await helper(3)") == "30"
    # Twice is refused, naming the pause; so is a cancel while it is held.
    status, body = pause_task(ticker["id"])
    assert (status, body["error"]) == (409, "task_paused") and pause["id"] in body["message"], body
    status, body = server.post(f"/api/processes/{process_id}/tasks/{ticker['id']}/cancel", {})
    assert (status, body["error"]) == (409, "task_paused"), body

    # A step over goes on from the `await` to the task's next line (blocking there: its code
    # was not rewritten, and the stop says so).
    status, body = server.post(f"/api/paused/{pause['id']}/step", {"kind": "over"})
    assert status == 200, body
    stepped = _wait_for_new_pause(app, {pause["id"]})
    stop = stepped["call_data"]["stop"]
    assert (stop["kind"], stop["line"], stop["function"]) == ("step", TICK_LINE, "ticker"), stop
    server.resume(stepped["id"])
    assert _ticks_again(app, ticks), "continued, it ticks again"

    # Through the CLI, then continued: it goes on from where it waited.
    cli = subprocess.run([os.environ.get("BREAKROOM_BIN", ""), "tasks", process_id, "--pause", ticker["id"]],
                         capture_output=True, text=True, timeout=30, env={**os.environ, "BREAKROOM_URL": server.url})
    assert cli.returncode == 0, cli.stderr
    said = re.fullmatch(rf"{ticker['id']} \(ticker\): paused where it waits, as (\S+)", cli.stdout.strip())
    assert said, cli.stdout
    server.resume(said.group(1))
    # Listed at once after the continue: not as paused by the pause that is over (the server
    # reads the list again until the program has taken the continue).
    listed = {t["id"]: t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
    assert listed[ticker["id"]]["pause_id"] != said.group(1), listed[ticker["id"]]
    assert _ticks_again(app, app.get("/ticks")["n"])

    # A raise resume raises at the `await`, where the program sees it.
    stubborn = tasks["stubborn"]
    status, done = pause_task(stubborn["id"])
    assert status == 200, done
    server.resume(done["pause_id"], action="raise", exception_type="RuntimeError", exception_message="from the pause")
    deadline = time.monotonic() + 10
    state = None
    while state != "done" and time.monotonic() < deadline:
        listed = {t["id"]: t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"]}
        state = listed[stubborn["id"]]["state"] if stubborn["id"] in listed else "done"
        time.sleep(0.02)
    assert state == "done", "the RuntimeError (not a CancelledError it catches) ended the task"
    assert app.get("/stubborn") == {"caught": 0}
    status, body = pause_task("task-0")
    assert (status, body["error"]) == (404, "task_not_found"), body
    status, body = pause_task("no%20such")
    assert (status, body["error"]) == (400, "invalid_task_id"), body


@pytest.mark.parametrize("python", INTERPRETERS)
def test_on_uvloop_a_task_paused_from_the_list_waits_alone(server, service, python):
    app = service(python, loop="uvloop")
    assert "uvloop" in app.get("/loop")["loop"], "the service runs on uvloop"
    process_id = _process_id(server, app)
    (ticker,) = [t for t in server.get(f"/api/processes/{process_id}/tasks")[1]["tasks"] if t["name"] == "ticker"]
    status, done = server.post(f"/api/processes/{process_id}/tasks/{ticker['id']}/pause", {})
    assert (status, done.get("outcome")) == (200, "suspended"), done
    ticks = app.get("/ticks")["n"]
    time.sleep(0.1)
    assert app.get("/ticks")["n"] == ticks and app.health_seconds() < 5
    assert _mcp_refusal(server, "pause_task", process_id, ticker["id"]).startswith("task_paused: "), "the agent's door"
    server.resume(done["pause_id"])
    assert _ticks_again(app, ticks)


SPINNER = """
import asyncio
import os

import breakroom

SPINS = {"n": 0}
TICKS = {"n": 0}


async def spinner():  # never waits on a future: its next step is always in the loop's ready queue
    while True:
        await asyncio.sleep(0)
        SPINS["n"] += 1


async def ticker():
    while True:
        await asyncio.sleep(0.005)
        TICKS["n"] += 1


async def main():
    breakroom.configure().ensure_connected()
    asyncio.create_task(spinner(), name="spinner")
    asyncio.create_task(ticker(), name="ticker")
    await asyncio.sleep(3600)


if os.environ["LOOP"] == "uvloop":
    import uvloop
    uvloop.run(main())
else:
    asyncio.run(main())
"""


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_task_that_only_yields_is_held_from_asyncio_s_ready_queue_and_refused_on_uvloop(server, run_program, loop):
    program = run_program(SPINNER, env={"LOOP": loop})
    app = type("App", (), {"process": program.process})
    process_id = _process_id(server, app)
    deadline = time.monotonic() + 20
    tasks = {}
    while "spinner" not in tasks and time.monotonic() < deadline:
        status, body = server.get(f"/api/processes/{process_id}/tasks")
        tasks = {t["name"]: t for t in body.get("tasks", [])} if status == 200 else {}
        time.sleep(0.05)
    status, done = server.post(f"/api/processes/{process_id}/tasks/{tasks['spinner']['id']}/pause", {})
    if loop == "uvloop":
        # uvloop keeps its ready queue out of Python's reach, and this task waits on no future.
        assert (status, done["error"]) == (409, "task_not_pausable"), done
        return
    assert (status, done.get("outcome")) == (200, "suspended"), done
    (pause,) = [p for p in server.paused() if p["id"] == done["pause_id"]]
    assert pause["call_data"]["stop"]["function"] == "spinner", pause
    session = server.start_session(pause["id"])
    spins, ticks = server.output(session, "SPINS['n']"), int(server.output(session, "TICKS['n']"))
    time.sleep(0.1)
    assert server.output(session, "SPINS['n']") == spins, "held: it does not spin"
    assert int(server.output(session, "TICKS['n']")) > ticks, "the loop runs its other task"
    server.resume(pause["id"])
    status, done = server.post(f"/api/processes/{process_id}/tasks/{tasks['ticker']['id']}/pause", {})
    assert status == 200, done
    session = server.start_session(done["pause_id"])
    assert int(server.output(session, "SPINS['n']")) > int(spins), "continued, it spins again"
    server.resume(done["pause_id"])


def _mcp_refusal(server, tool, process_id, task_id):
    """An MCP task tool's refusal text (it must refuse: the test gives it a task it refuses)."""
    test_mcp = pytest.importorskip("test_mcp")
    said = []

    async def body(agent, _updates):
        refused = await agent.call(tool, process_id=process_id, task_id=task_id)
        assert refused.is_error, refused
        said.append(refused.content[0].text)

    test_mcp.run(test_mcp.connect(server.url, body))
    return said[0]


def test_a_bad_task_order_answer_is_refused_with_a_4xx_naming_the_problem(server):
    status, body = server.post("/api/task-orders", {"order_id": "task-order-x", "outcome": "exploded"})
    assert status == 400 and body["error"] == "invalid_json" and "exploded" in body["message"], (status, body)
    status, body = server.post("/api/task-orders", {"order_id": "task-order-never-given", "outcome": "cancelled"})
    assert status == 409 and body["error"] == "unknown_task_order", (status, body)


def test_the_tasks_route_refuses_an_unknown_process_with_404(server):
    status, body = server.get("/api/processes/no-such-process/tasks")
    assert status == 404, body


def test_a_bad_task_list_is_refused_with_a_4xx_naming_the_problem(server):
    status, body = server.post("/api/task-lists", {"ask_id": "tasks-x", "tasks": [{"id": 1}]})
    assert status == 400 and body["error"] == "invalid_json" and "expected a string" in body["message"], (status, body)
    status, body = server.post("/api/task-lists", {"ask_id": "tasks-never-asked", "tasks": []})
    assert status == 409 and body["error"] == "unknown_task_ask", (status, body)


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_coroutine_running_before_its_breakpoint_was_set_still_blocks_the_loop_and_says_so(server, service, python):
    app = service(python)
    first = app.get("/ticks")["n"]
    deadline = time.monotonic() + 10
    while app.get("/ticks")["n"] == first and time.monotonic() < deadline:
        time.sleep(0.01)
    # Its first hit only: the tick goes on once continued, whenever the removal reaches it.
    status, record = server.post("/api/breakpoints", {"kind": "line", "file": app.path, "line": TICK_LINE, "hit_condition": "1"})
    assert status == 200, record
    try:
        (pause,) = app.wait_for_pauses(1)
        assert pause["call_data"]["stop"]["function"] == "ticker"
        assert pause["blocking"] is True, pause
        assert "started before the breakpoint was set" in pause["blocking_reason"], pause
        _, health = app.request_in_background("/health")
        paused = PausedProgram(server, app, pause)
        status, body = server.post(f"/api/repl/{paused.session_id}/eval", {"expr": "await asyncio.sleep(0)"})
        assert status == 409 and body["error"] == "loop_blocked", (status, body)
        assert "answer" not in health  # the loop's thread is the one paused
    finally:
        server.request("DELETE", f"/api/breakpoints/{record['id']}")
    paused.resume()
    assert _answered(health) == {"ok": True}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stepping_over_three_lines_of_a_suspended_handler_while_health_answers(server, service, python):
    app = service(python, bp=[{"line": STEP1_LINE}])
    _, box = app.request_in_background("/steps/4")
    (pause,) = app.wait_for_pauses(1)
    session = server.start_session(pause["id"])
    for line in (STEP1_LINE + 1, STEP1_LINE + 2, STEP1_LINE + 3):
        status, body = server.post(f"/api/paused/{pause['id']}/step", {"kind": "over"})
        assert status == 200, body
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            stepped = [p for p in app.pauses() if p["id"] != pause["id"]]
            if stepped:
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"the step never stopped: {app.pauses()}")
        (pause,) = stepped
        stop = pause["call_data"]["stop"]
        assert (stop["kind"], stop["step"], stop["line"], stop["function"]) == ("step", "over", line, "steps"), stop
        # Still its task alone: the loop runs on between steps.
        assert pause["blocking"] is False, pause
        assert app.health_seconds() < 5
        assert "answer" not in box
    # The session followed the steps: it evaluates where the task now is.
    assert server.output(session, "(a, b)") == "(5, 10)"
    assert server.output(session, "await helper(2)") == "20"
    server.resume(pause["id"])
    assert _answered(box) == {"c": 20}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stepping_out_of_a_suspended_coroutine_stops_in_its_caller_with_the_task_still_suspended(server, service, python):
    app = service(python, bp=[{"line": STEP1_LINE}, {"line": HELPER_LINE}])
    _, box = app.request_in_background("/steps/4")
    (first,) = app.wait_for_pauses(1)
    server.resume(first["id"])
    inner = _wait_for_new_pause(app, {first["id"]})
    assert inner["call_data"]["stop"]["function"] == "helper", inner
    status, body = server.post(f"/api/paused/{inner['id']}/step", {"kind": "out"})
    assert status == 200, body
    out = _wait_for_new_pause(app, {first["id"], inner["id"]})
    stop = out["call_data"]["stop"]
    # `c = b + await helper(1)` finished: the caller's next statement, its task suspended alone.
    assert (stop["kind"], stop["step"], stop["function"], stop["line"]) == ("step", "out", "steps", STEP1_LINE + 4), stop
    assert out["blocking"] is False, out
    assert app.health_seconds() < 5
    session = server.start_session(out["id"])
    assert server.output(session, "c") == "20"
    server.resume(out["id"])
    assert _answered(box) == {"c": 20}


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stepping_into_a_rewritten_coroutine_keeps_the_task_suspended(server, service, python):
    app = service(python, bp=[{"line": STEP1_LINE}, {"line": HELPER_LINE}])
    _, box = app.request_in_background("/steps/4")
    (pause,) = app.wait_for_pauses(1)
    known = {pause["id"]}
    for kind in ("over", "over", "over", "into"):
        status, body = server.post(f"/api/paused/{pause['id']}/step", {"kind": kind})
        assert status == 200, body
        pause = _wait_for_new_pause(app, known)
        known.add(pause["id"])
    # From `c = b + await helper(1)` into helper (it holds a breakpoint, so it was rewritten):
    # its first line, the task suspended alone.
    stop = pause["call_data"]["stop"]
    assert (stop["kind"], stop["step"], stop["function"], stop["line"]) == ("step", "into", "helper", HELPER_LINE - 1), stop
    assert pause["blocking"] is False, pause
    assert app.health_seconds() < 5
    server.resume(pause["id"])
    at_breakpoint = _wait_for_new_pause(app, known)
    assert at_breakpoint["call_data"]["stop"]["line"] == HELPER_LINE
    server.resume(at_breakpoint["id"])
    assert _answered(box) == {"c": 20}


AIOHTTP_APP = """
import json
import sys
import os
import re

import breakroom
from aiohttp import web


async def health(request):
    return web.json_response({"ok": True})


async def work(request):
    n = int(request.match_info["n"])
    result = n * 3  # BP
    return web.json_response({"result": result})


app = web.Application()
app.add_routes([web.get("/health", health), web.get("/work/{n}", work)])
engine = breakroom.line_breakpoints()
for spec in json.loads(os.environ.get("BP", "[]")):
    engine.add({"kind": "line", "file": __file__, **spec})
web.run_app(app, host="127.0.0.1", port=int(os.environ["PORT"]), print=None)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_an_aiohttp_handler_pauses_alone_while_health_answers(server, service, python, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "APP", AIOHTTP_APP)
    line = next(n for n, text in enumerate(textwrap.dedent(AIOHTTP_APP).splitlines(), 1) if text.endswith("# BP"))
    app = service(python, bp=[{"line": line}])
    _, box = app.request_in_background("/work/7")
    (pause,) = app.wait_for_pauses(1)
    assert pause["call_data"]["method_name"] == "work" and pause["blocking"] is False, pause
    assert app.health_seconds() < 5
    paused = PausedProgram(server, app, pause)
    assert paused.output("n") == "7"
    paused.resume()
    assert _answered(box) == {"result": 21}


@pytest.fixture
def dap_server():
    from conftest import start_server

    srv = start_server("--dap-port", "0")
    found = re.search(r"DAP on 127\.0\.0\.1:(\d+)", srv.started_with)
    if found is None:
        srv.process.terminate()
        pytest.fail(f"no DAP port in: {srv.started_with}")
    srv.dap_port = int(found.group(1))
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


def test_an_editor_sees_one_thread_per_paused_task_and_continues_one_alone(dap_server):
    sys.path.insert(0, str(CLIENT_DIR / "bench"))
    from dap import Dap  # the DAP client the editor benchmark speaks

    app = Service(dap_server, sys.executable, [{"line": BP_LINE}])
    try:
        _, first = app.request_in_background("/work/1")
        app.wait_for_pauses(1)
        _, second = app.request_in_background("/work/2")
        app.wait_for_pauses(2)
        dap = Dap(dap_server.dap_port)
        dap.request("initialize", adapterID="test", linesStartAt1=True, columnsStartAt1=True)
        dap.request("attach")
        dap.request("configurationDone")
        deadline = time.monotonic() + 10
        while True:
            threads = [t for t in dap.request("threads")["threads"] if "asyncio task" in t["name"]]
            if len(threads) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(threads) == 2 and len({t["id"] for t in threads}) == 2, threads
        # Continue the thread whose top frame has n == 2: that request answers, the other waits.
        for thread in threads:
            frame = dap.request("stackTrace", threadId=thread["id"])["stackFrames"][0]["id"]
            n = dap.request("evaluate", expression="n", frameId=frame, context="repl")["result"]
            if n == "2":
                dap.request("continue", threadId=thread["id"])
        assert _answered(second) == {"n": 2, "result": 5}
        assert "answer" not in first and len(app.pauses()) == 1
        assert app.health_seconds() < 5
        dap_server.resume(app.pauses()[0]["id"])
        assert _answered(first) == {"n": 1, "result": 3}
    finally:
        app.kill()
