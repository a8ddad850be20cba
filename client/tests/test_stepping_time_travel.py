"""Stepping composes with time travel (issue 30): with checkpoints on, each committed
step takes a checkpoint first; Step back from a step's pause returns to the state before that
step, with the REPL session following; reverse-continue returns to the previous breakpoint pause
of that line. Real programs at the real server, on 3.11 and pyenv's 3.12 and 3.13."""

import os
import select
import time

import pytest
from test_stepping import INTERPRETERS, stepper  # noqa: F401 (the fixture)

LOOP = """
    import breakroom
    breakroom.checkpoints(True)

    def checkout(items):
        total = 0
        breakroom.set_trace()  # TRACE
        for x in items:  # LOOP
            total += x  # ADD
        return total  # RETURN

    print("result", checkout([1, 2]))
"""


def _travel(stepper, path):
    status, body = stepper.server.post(f"/api/paused/{stepper.pause_id}/{path}", {})
    assert status == 200, body
    stepper.pause_id = body["pause_id"]
    return body


def _read_until(process, text, timeout=15):
    """The program's stdout until `text` shows (the pipe stays open: snapshots hold it too)."""
    seen, deadline = "", time.time() + timeout
    while text not in seen and time.time() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096).decode()
            if not chunk:
                break
            seen += chunk
    return seen


def _process_id(server, pid):
    return next(p["id"] for p in server.get("/api/processes")[1]["processes"] if p["pid"] == pid)


@pytest.fixture
def travel_stepper(stepper, server):
    made = []

    def start(python, source):
        s = stepper(python, source)
        made.append(_process_id(server, s.process.pid))
        return s

    yield start
    for process_id in made:  # its held snapshots end with it
        server.post(f"/api/processes/{process_id}/stop")


def _transcript(server, session_id):
    return [e["output"] for e in server.session(session_id)["transcript"]]


@pytest.mark.parametrize("python", INTERPRETERS)
def test_step_back_from_a_step_returns_to_the_state_before_it_and_the_session_follows(travel_stepper, server, python):
    s = travel_stepper(python, LOOP)
    assert s.at("over")[1] == "LOOP"
    assert s.at("over")[1] == "ADD"
    assert s.at("over")[1] == "LOOP"
    assert s.at("over")[1] == "ADD"
    assert s.output("total, x") == "(1, 2)"
    before = s.pause_id

    travel = _travel(s, "step-back")
    assert travel["pause_id"] != before and travel["abandoned_pid"] == s.process.pid
    # The checkpoint was taken at the pause the last step started from: LOOP with total 1.
    session = server.session(s.session_id)
    assert session["pause_id"] == travel["pause_id"], "the open session follows the program back"
    assert s.output("total") == "1"
    assert any(text.startswith("← back to") and ":" in text for text in _transcript(server, s.session_id))
    paused = next(p for p in server.paused() if p["id"] == travel["pause_id"])
    assert paused["call_data"]["stop"]["line"] == s.line_of("LOOP")

    # The line woken steps on like any other.
    assert s.at("over")[1] == "ADD"
    assert s.output("total, x") == "(1, 2)"
    server.resume(s.pause_id)
    assert "result 3" in _read_until(s.process, "result 3")  # the woken line writes to the same pipe


@pytest.mark.parametrize("python", INTERPRETERS)
def test_reverse_continue_returns_to_the_previous_breakpoint_pause_of_the_line(travel_stepper, server, python):
    s = travel_stepper(
        python,
        """
        import breakroom
        breakroom.checkpoints(True)

        def work(n):
            breakroom.set_trace()  # BP
            doubled = n * 2  # DOUBLE
            return doubled  # RETURN

        for n in range(3):
            work(n)
        print("done")
        """,
    )
    assert s.output("n") == "0"
    server.resume(s.pause_id)  # a checkpoint at the first breakpoint pause
    second = server.wait_for_pause("work", pid=s.process.pid)
    s.pause_id, s.session_id = second["id"], server.start_session(second["id"])
    assert s.output("n") == "1"
    assert s.at("over")[1] == "DOUBLE"  # a checkpoint at the second breakpoint pause
    assert s.at("over")[1] == "RETURN"  # one at the step's pause: not a breakpoint's
    assert s.output("doubled") == "2"

    _travel(s, "reverse-continue")
    assert server.session(s.session_id)["pause_id"] == s.pause_id
    assert s.output("n") == "1", "back at the newest breakpoint pause, not the step's"
    assert s.output("'doubled' in dir()") == "False"


def test_reverse_continue_without_a_breakpoint_checkpoint_says_why(stepper, server):
    s = stepper(INTERPRETERS[0].values[0], LOOP.replace("breakroom.checkpoints(True)", "pass"))
    status, body = server.post(f"/api/paused/{s.pause_id}/reverse-continue", {})
    assert status == 409 and body["error"] == "no_breakpoint_checkpoint", body
    assert "checkpoints" in body["message"]
