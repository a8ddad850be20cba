"""The thinnest whole path: a wrapped call pauses, the REPL evaluates in it, Continue resumes."""

from conftest import answer_fields

COMPUTE = """
    import breakroom

    def compute(a, b):
        return a * b + 1

    compute = breakroom.with_debug(compute)
    print(compute(6, 7))
"""


def test_wrapped_call_pauses_once_before_it_runs_and_evaluates_in_the_process(server, run_program):
    program = run_program(COMPUTE)
    pause = server.wait_for_pause("compute")
    assert pause["call_data"]["pretty_args"] == ["6", "7"]
    assert pause["call_data"]["process_pid"] == program.process.pid

    session = server.start_session(pause["id"])
    assert session.startswith(f"{program.process.pid}-")
    assert server.eval(session, "a * b")["output"] == "42"
    assert answer_fields(server.eval(session, "print('hi')")) == {"output": "", "stdout": "hi\n", "is_error": False, "result_cid": None}
    assert server.eval(session, "x = 5")["output"] == ""
    assert server.eval(session, "x + 1")["output"] == "6"
    assert server.eval(session, "import os; os.getpid()")["output"] == str(program.process.pid)

    server.resume(pause["id"])
    code, out, err = program.finish()
    assert (code, out) == (0, "43\n"), err
    # Paused once: nothing is left waiting after the call ran.
    assert [p for p in server.paused() if p["call_data"]["process_pid"] == program.process.pid] == []

    status, body = server.get(f"/api/repl/{session}")
    assert status == 200
    assert body["session"]["closed_at"] is not None
    assert [e["input"] for e in body["session"]["transcript"]] == [
        "a * b",
        "print('hi')",
        "x = 5",
        "x + 1",
        "import os; os.getpid()",
    ]
    assert server.post(f"/api/repl/{session}/eval", {"expr": "1"})[0] == 409


def test_unreachable_server_prints_one_clear_line_and_the_program_runs(run_program):
    import subprocess
    import sys

    from conftest import CLIENT_DIR

    source = "import breakroom\nf = breakroom.with_debug(lambda x: x + 1)\nprint(f(1), f(2))\n"
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=20,
        env={"PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": "http://127.0.0.1:9", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0
    assert done.stdout == "2 3\n"
    assert done.stderr.count("cannot reach the Breakroom server") == 1
    assert "Traceback" not in done.stderr
