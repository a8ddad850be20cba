"""Stepping real programs (issue 30): over, into, out, to a line, through plain code, recursion,
a generator, an `async def`, an exception, the top frame and a second thread, on Python 3.11
and on pyenv's 3.12 and 3.13 (sys.monitoring) when they are installed."""

import glob
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest
from conftest import CLIENT_DIR


def _interpreters():
    found = [pytest.param(sys.executable, id=f"{sys.version_info[0]}.{sys.version_info[1]}")]
    for version in ("3.12", "3.13"):
        paths = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/python3")))
        if paths:
            found.append(pytest.param(paths[-1], id=version))
        else:
            found.append(pytest.param(None, id=version, marks=pytest.mark.skip(reason=f"Python {version} is not installed (pyenv)")))
    return found


INTERPRETERS = _interpreters()


class Stepper:
    """A program paused at a real server, stepped through its REST API."""

    def __init__(self, server, python, source):
        self.server = server
        fd, self.path = tempfile.mkstemp(suffix=".py", prefix="breakroom_step_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        with open(self.path) as f:
            self.lines = f.read().splitlines()
        self.process = subprocess.Popen(
            [python, self.path],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1"},
        )
        self.pause = self._first_pause()
        self.pause_id = self.pause["id"]
        self.session_id = server.start_session(self.pause_id)

    def line_of(self, marker):
        return next(n for n, text in enumerate(self.lines, 1) if text.rstrip().endswith("# " + marker))

    def _first_pause(self):
        deadline = time.time() + 15
        while time.time() < deadline:
            for p in self.server.paused():
                if p["call_data"]["process_pid"] == self.process.pid:
                    return p
            if self.process.poll() is not None:
                raise AssertionError(f"the program ended without pausing: {self.process.communicate()}")
            time.sleep(0.02)
        raise AssertionError("the program never paused")

    def step(self, kind, **extra):
        status, body = self.server.post(f"/api/paused/{self.pause_id}/step", {"kind": kind, **extra})
        assert status == 200, body
        if body["status"] == "stopped":
            assert body["previous_pause_id"] == self.pause_id
            self.pause_id = body["pause_id"]
            assert body["session_id"] == self.session_id, "the REPL session follows the step"
        return body

    def at(self, kind, **extra):
        """Steps; returns (function, line marker or number, how)."""
        body = self.step(kind, **extra)
        assert body["status"] == "stopped", body
        marker = self.lines[body["line"] - 1].rsplit("# ", 1)[-1] if "# " in self.lines[body["line"] - 1] else body["line"]
        return body["function"], marker, body["how"]

    def output(self, expr):
        return self.server.output(self.session_id, expr)

    def finish(self):
        self.server.resume(self.pause_id)
        out, err = self.process.communicate(timeout=15)
        return self.process.returncode, out, err

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def stepper(server):
    made = []

    def start(python, source):
        s = Stepper(server, python, source)
        made.append(s)
        return s

    yield start
    for s in made:
        s.kill()


PLAIN = """
    import breakroom

    def add(a, b):
        c = a + b  # ADD_FIRST
        return c  # ADD_RETURN

    def checkout(items):
        total = 0
        breakroom.set_trace()  # TRACE
        for x in items:  # LOOP
            total = add(total, x)  # CALL
        done = True  # DONE
        return total  # RETURN

    print("result", checkout([1, 2]))  # TOP
    print("after")  # AFTER
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_over_into_out_through_plain_code(stepper, python):
    s = stepper(python, PLAIN)
    assert s.pause["call_data"]["stop"]["kind"] == "set_trace"
    assert s.at("over") == ("checkout", "LOOP", "line")
    assert s.at("over") == ("checkout", "CALL", "line")
    assert s.output("total") == "0"
    assert s.at("into") == ("add", "ADD_FIRST", "line")
    assert s.output("a, b") == "(0, 1)"
    assert s.at("over") == ("add", "ADD_RETURN", "line")
    # Out: the caller just after the call, with the return value.
    assert s.at("out") == ("checkout", "CALL", "return")
    assert s.output("__return__") == "1"
    assert s.at("over") == ("checkout", "LOOP", "line")
    assert s.output("total") == "1", "locals are read from the frame as it is now"
    # Over a line that calls a function: it runs whole.
    assert s.at("over") == ("checkout", "CALL", "line")
    assert s.at("over") == ("checkout", "LOOP", "line")
    assert s.at("over") == ("checkout", "DONE", "line")
    # Over the last line: the caller, just after the call.
    assert s.at("over") == ("checkout", "RETURN", "line")
    assert s.at("over") == ("<module>", "TOP", "return")
    assert s.output("__return__") == "3"
    code, out, err = s.finish()
    assert code == 0, err
    assert out == "result 3\nafter\n"


@pytest.mark.parametrize("python", INTERPRETERS)
def test_the_session_keeps_its_names_and_marks_each_step(stepper, server, python):
    s = stepper(python, PLAIN)
    s.output("seen = []")
    s.at("over")
    s.output("seen.append(x) if 'x' in dir() else None")
    s.at("over")
    s.output("seen.append(x)")
    assert s.output("seen") == "[1]"
    transcript = server.session(s.session_id)["transcript"]
    markers = [e["output"] for e in transcript if e["input"] == ""]
    base = os.path.basename(s.path)
    assert markers == [f"→ {base}:{s.line_of('LOOP')} in checkout", f"→ {base}:{s.line_of('CALL')} in checkout"]
    s.finish()


RECURSION = """
    import breakroom

    def fact(n):
        if n == 2:  # FIRST
            breakroom.set_trace()  # TRACE
        if n <= 1:  # BASE
            return 1
        return n * fact(n - 1)  # RECURSE

    print(fact(3))
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_recursion_steps_into_the_inner_call_and_out_to_the_outer(stepper, python):
    s = stepper(python, RECURSION)
    assert s.at("over") == ("fact", "BASE", "line")
    assert s.output("n") == "2"
    assert s.at("over") == ("fact", "RECURSE", "line")
    assert s.at("into") == ("fact", "FIRST", "line")
    assert s.output("n") == "1", "into stops in the new frame of the same function"
    assert s.at("out") == ("fact", "RECURSE", "return")
    assert s.output("n, __return__") == "(2, 1)"
    assert s.at("out") == ("fact", "RECURSE", "return")
    assert s.output("n, __return__") == "(3, 2)"
    code, out, _ = s.finish()
    assert (code, out) == (0, "6\n")


GENERATOR = """
    import breakroom

    def numbers():
        breakroom.set_trace()  # TRACE
        yield 1  # FIRST
        yield 2  # SECOND
        return  # END

    total = 0
    for n in numbers():  # FOR
        total += n  # ADD
    print(total)
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_over_a_yield_stays_in_the_generator(stepper, python):
    s = stepper(python, GENERATOR)
    assert s.at("over") == ("numbers", "FIRST", "line")
    # The consumer runs its body, and the step comes back to the generator's next line.
    assert s.at("over") == ("numbers", "SECOND", "line")
    assert s.at("over") == ("numbers", "END", "line")
    code, out, _ = s.finish()
    assert (code, out) == (0, "3\n")


COROUTINE = """
    import asyncio, breakroom

    async def fetch(n):
        await asyncio.sleep(0.01)
        return n * 10

    async def worker():
        breakroom.set_trace()  # TRACE
        a = await fetch(1)  # AWAIT
        b = a + 1  # AFTER_AWAIT
        return b

    async def other():
        await asyncio.sleep(0)
        return "other"

    async def main():
        print(await asyncio.gather(worker(), other()))

    asyncio.run(main())
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_over_an_await_stays_in_the_same_coroutine(stepper, python):
    s = stepper(python, COROUTINE)
    assert s.at("over") == ("worker", "AWAIT", "line")
    assert s.at("over") == ("worker", "AFTER_AWAIT", "line")
    assert s.output("a") == "10"
    code, out, _ = s.finish()
    assert (code, out) == (0, "[11, 'other']\n")


EXCEPTION = """
    import breakroom

    def fail(n):
        raise ValueError(f"bad {n}")  # RAISE

    def caller():
        breakroom.set_trace()  # TRACE
        try:  # TRY
            fail(7)  # CALL
        except ValueError as err:  # EXCEPT
            handled = str(err)  # HANDLER
        return handled

    print(caller())
"""


def _over_until(s, marker, limit=5):
    """Steps over until `marker`; returns every stop on the way, (function, marker, how)."""
    stops = []
    while not stops or stops[-1][1] != marker:
        assert len(stops) < limit, stops
        stops.append(s.at("over"))
        if stops[-1][2] == "exception":
            assert "bad 7" in s.output("exception"), "the exception is visible where the step stopped"
    return stops


@pytest.mark.parametrize("python", INTERPRETERS)
def test_an_exception_stops_where_it_arrives_and_then_where_it_is_handled(stepper, python):
    s = stepper(python, EXCEPTION)
    _over_until(s, "CALL")
    stops = _over_until(s, "HANDLER")
    assert ("caller", "exception") in [(f, how) for f, _, how in stops], stops
    code, out, _ = s.finish()
    assert (code, out) == (0, "bad 7\n")


@pytest.mark.parametrize("python", INTERPRETERS)
def test_into_a_raising_function_stops_at_the_raise_with_the_exception(stepper, python):
    s = stepper(python, EXCEPTION)
    _over_until(s, "CALL")
    assert s.at("into") == ("fail", "RAISE", "line")
    assert s.at("over") == ("fail", "RAISE", "exception")
    assert "bad 7" in s.output("exception")
    stops = _over_until(s, "HANDLER")
    assert stops[0][0] == "caller", stops
    s.finish()


TOP = """
    import breakroom

    breakroom.set_trace()  # TRACE
    x = 1  # ONE
    print("end", x)  # END
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_stepping_out_of_the_top_frame_runs_the_program_to_its_end(stepper, server, python):
    s = stepper(python, TOP)
    assert s.at("over")[:2] == ("<module>", "ONE")
    body = s.step("out")
    assert body == {"status": "running", "previous_pause_id": s.pause_id}
    out, err = s.process.communicate(timeout=15)
    assert s.process.returncode == 0, err
    assert out == "end 1\n"
    # The session followed no stop: it closes when the process ends.
    deadline = time.time() + 10
    while server.session(s.session_id)["closed_at"] is None and time.time() < deadline:
        time.sleep(0.05)
    assert server.session(s.session_id)["closed_at"] is not None


THREADS = """
    import threading, time, breakroom

    counts = {"other": 0}
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counts["other"] += 1

    def work():
        breakroom.set_trace()  # TRACE
        a = 1  # A
        b = 2  # B
        stop.set()  # STOP
        return a + b

    t = threading.Thread(target=spin)
    t.start()
    print(work())
    t.join()
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_second_thread_keeps_running_while_one_thread_steps(stepper, python):
    s = stepper(python, THREADS)
    assert s.at("over")[1] == "A"
    first = int(s.output("counts['other']"))
    time.sleep(0.2)
    assert int(s.output("counts['other']")) > first, "the other thread runs while this one is paused"
    assert s.at("over")[1] == "B"
    assert s.at("over")[1] == "STOP"
    code, out, _ = s.finish()
    assert (code, out) == (0, "3\n")


@pytest.mark.parametrize("python", INTERPRETERS)
def test_to_line_runs_until_the_line_is_reached(stepper, python):
    s = stepper(python, PLAIN)
    line = s.line_of("DONE")
    assert s.at("to_line", file=s.path, line=line) == ("checkout", "DONE", "line")
    assert s.output("total") == "3"
    s.finish()


WRAPPED = """
    import breakroom

    @breakroom.breakpoint
    def checkout(items):
        total = sum(items)  # FIRST
        return total

    def main():
        result = checkout([1, 2])  # CALL
        print("result", result)  # PRINT

    main()
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_into_from_before_a_wrapped_call_stops_at_its_first_line(stepper, python):
    s = stepper(python, WRAPPED)
    assert s.pause["call_data"]["stop"]["kind"] == "call"
    assert s.at("into") == ("checkout", "FIRST", "line")
    assert s.output("items") == "[1, 2]"
    assert s.at("out") == ("main", "CALL", "return")
    assert s.output("__return__") == "3"
    assert s.at("over") == ("main", "PRINT", "line")
    code, out, _ = s.finish()
    assert (code, out) == (0, "result 3\n")


@pytest.mark.parametrize("python", INTERPRETERS)
def test_over_from_before_a_wrapped_call_stops_in_the_caller_after_it(stepper, python):
    s = stepper(python, WRAPPED)
    assert s.at("over") == ("main", "CALL", "return")
    assert s.output("__return__") == "3"
    s.finish()


def test_frames_and_evaluating_in_an_outer_frame(stepper, server):
    s = stepper(sys.executable, RECURSION)
    status, body = server.get(f"/api/paused/{s.pause_id}/frames")
    assert status == 200, body
    frames = body["frames"]
    assert [f["function"] for f in frames] == ["fact", "fact", "<module>"]
    assert frames[0]["lineno"] == s.line_of("TRACE")
    assert frames[1]["source_lines"], "each frame has its source around the line"
    assert server.eval(s.session_id, "n", )["output"] == "2"
    status, body = server.post(f"/api/repl/{s.session_id}/eval", {"expr": "n", "frame": 1})
    assert (status, body["output"]) == (200, "3")
    # The variables panel and completion take a frame too.
    status, body = server.get(f"/api/repl/{s.session_id}/variables?frame=1")
    assert status == 200 and {"name": "n", "repr": "3"}.items() <= next(v for v in body["variables"] if v["name"] == "n").items()
    status, body = server.get(f"/api/repl/{s.session_id}/variables?frame=7")
    assert (status, body["error"]) == (400, "invalid_frame")
    status, body = server.post(f"/api/repl/{s.session_id}/complete", {"code": "n", "frame": 0})
    assert status == 200 and "n" in body["matches"], body
    status, body = server.post(f"/api/repl/{s.session_id}/complete", {"code": "n", "frame": 2})
    assert status == 200 and "n" not in body["matches"] and "next" in body["matches"], "<module> has no n"
    status, body = server.post(f"/api/repl/{s.session_id}/frame", {"frame": 1})
    assert status == 200, body
    assert s.output("n") == "3", "the selected frame is where the session evaluates"
    status, body = server.post(f"/api/repl/{s.session_id}/frame", {"frame": 9})
    assert (status, body["error"]) == (400, "invalid_frame")
    s.at("over")
    assert s.output("n") == "2", "a step selects the innermost frame again"
    s.finish()


def test_bad_steps_are_refused_with_a_clear_error(stepper, server):
    s = stepper(sys.executable, PLAIN)
    for body, code in [
        ({}, "missing_kind"),
        ({"kind": "sideways"}, "invalid_step_kind"),
        ({"kind": 3}, "invalid_step_kind"),
        ({"kind": "to_line"}, "missing_file"),
        ({"kind": "to_line", "file": s.path, "line": 0}, "invalid_line"),
    ]:
        status, reply = server.post(f"/api/paused/{s.pause_id}/step", body)
        assert (status, reply["error"]) == (400, code), (body, reply)
    status, reply = server.post("/api/paused/no-such-pause/step", {"kind": "over"})
    assert (status, reply["error"]) == (404, "pause_not_found")
    s.finish()
    status, reply = server.post(f"/api/paused/{s.pause_id}/step", {"kind": "over"})
    assert (status, reply["error"]) == (409, "pause_resumed")


POST_MORTEM = """
    import breakroom

    try:
        1 / 0
    except ZeroDivisionError:
        breakroom.post_mortem()
"""


def test_a_post_mortem_pause_cannot_step(stepper, server):
    s = stepper(sys.executable, POST_MORTEM)
    status, reply = server.post(f"/api/paused/{s.pause_id}/step", {"kind": "over"})
    assert (status, reply["error"]) == (409, "cannot_step_post_mortem"), reply
    s.finish()
