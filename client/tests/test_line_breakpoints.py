"""Line breakpoints armed into real programs (issue 18), pausing at a real server: in functions
not running yet and in a loop already running, with conditions, hit conditions, patterns,
logpoints, disabled, moved to the next line with code, disarmed; and `python -m breakroom`."""

import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest
from conftest import CLIENT_DIR, PausedProgram

# The programs' Python: BREAKROOM_TEST_PYTHON=python3.12 runs them through sys.monitoring.
PYTHON = os.environ.get("BREAKROOM_TEST_PYTHON") or sys.executable

# Each program arms what the test passes in BP (JSON specs; `line` may name a marker comment),
# in its own file, through the interface the server wiring will call.
ARM = """
    import json, os, sys, breakroom

    def line_of(marker):
        with open(__file__) as f:
            return next(n for n, text in enumerate(f, 1) if text.rstrip().endswith("# " + marker))

    def arm(specs=None):
        engine = breakroom.line_breakpoints()
        reports = []
        for spec in specs or json.loads(os.environ["BP"]):
            if isinstance(spec["line"], str):
                spec["line"] = line_of(spec["line"])
            reports.append(engine.add({"kind": "line", "file": __file__, **spec}))
        print("armed:", json.dumps(reports), flush=True)
        return engine, reports
"""

def with_arm(body):
    return textwrap.dedent(ARM) + textwrap.dedent(body)


WORK = with_arm("""
    def work(items):
        total = 0
        for n in items:
            total += n  # LOOP
        result = total * 2  # AFTER
        return result

    engine, reports = arm()
    print("result:", work([1, 2, 3]))
"""
)


def run(server, source, bp, *, env=None, args=None):
    """Runs `source` with BP set; args: run it with `python -m breakroom ARGS path` instead."""
    import json

    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_linebp_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    command = [PYTHON, path] if args is None else [PYTHON, "-m", "breakroom", *args, path]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(CLIENT_DIR),
            "BREAKROOM_URL": server.url,
            "PYTHONUNBUFFERED": "1",
            "BP": json.dumps(bp),
            **(env or {}),
        },
    )
    return _Running(process, path)


class _Running:
    def __init__(self, process, path):
        self.process = process
        self.path = path

    def finish(self, timeout=15):
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def program(server):
    started = []

    def start(source, bp=(), **kw):
        p = run(server, source, list(bp), **kw)
        started.append(p)
        return p

    yield start
    for p in started:
        p.kill()


def pause_of(server, prog, function_name):
    try:
        pause = server.wait_for_pause(function_name, pid=prog.process.pid)
    except AssertionError:
        prog.process.kill()
        raise AssertionError(f"{function_name} never paused; {prog.finish()}") from None
    return PausedProgram(server, prog, pause)


def line_in(source, marker):
    return next(n for n, text in enumerate(textwrap.dedent(source).splitlines(), 1) if text.rstrip().endswith("# " + marker))


def assert_never_pauses(server, prog):
    code, out, err = prog.finish()
    assert code == 0, err
    assert not [p for p in server.paused() if p["call_data"]["process_pid"] == prog.process.pid]
    return out, err


def test_line_breakpoint_in_a_function_not_running_pauses_at_that_line_with_its_locals(server, program):
    prog = program(WORK, [{"line": "AFTER"}])
    p = pause_of(server, prog, "work")
    frame = p.pause["call_data"]["frames"][0]
    assert (frame["lineno"], frame["code_context"]) == (line_in(WORK, "AFTER"), "result = total * 2  # AFTER")
    assert p.output("(items, total)") == "([1, 2, 3], 6)"
    assert p.output("'result' in dir()") == "False"  # the line has not run yet
    p.eval("total = 50")  # the REPL writes the program's own local
    p.resume()
    code, out, err = p.finish()
    assert code == 0, err
    assert out.splitlines()[-1] == "result: 100"


def test_line_breakpoint_armed_while_its_loop_runs_pauses_at_the_next_pass(server, program):
    source = with_arm("""
        import sys, threading, time

        def poll(ticks):
            i = 0
            while i < ticks:
                i += 1  # TICK
                time.sleep(0.01)
            return i

        def arm_soon():
            time.sleep(0.3)
            engine, reports = arm()

        threading.Thread(target=arm_soon).start()
        print("ticks:", poll(300))
        print("still traced:", breakroom.line_breakpoints()._tracer.traced_frames)
    """
    )
    prog = program(source, [{"line": "TICK", "hit_condition": "1"}])
    p = pause_of(server, prog, "poll")
    assert p.pause["call_data"]["frames"][0]["lineno"] == line_in(source, "TICK")
    i = int(p.output("i"))
    assert 5 < i < 300  # the loop was well under way when the breakpoint was armed
    p.resume()
    code, out, err = p.finish()
    assert code == 0, err
    armed = out.splitlines()[0]
    assert '"running_frames": 1' in armed and '"functions": 1' in armed
    assert out.splitlines()[-2:] == ["ticks: 300", "still traced: []"]  # tracing ended with the frame


def test_condition_true_pauses_only_where_it_holds(server, program):
    prog = program(WORK, [{"line": "LOOP", "condition": "n == 2"}])
    p = pause_of(server, prog, "work")
    assert p.output("(n, total)") == "(2, 1)"
    p.resume()
    code, out, err = p.finish()
    assert code == 0 and out.splitlines()[-1] == "result: 12", err


def test_condition_false_never_pauses(server, program):
    out, _ = assert_never_pauses(server, program(WORK, [{"line": "LOOP", "condition": "n > 10"}]))
    assert out.splitlines()[-1] == "result: 12"


def test_condition_that_raises_pauses_with_the_error_and_the_program_goes_on(server, program):
    prog = program(WORK, [{"line": "AFTER", "condition": "total / missing"}])
    p = pause_of(server, prog, "work")
    assert p.output("condition_error") == "\"NameError: name 'missing' is not defined\""
    p.resume()
    code, out, err = p.finish()
    assert code == 0 and out.splitlines()[-1] == "result: 12"
    assert "condition 'total / missing' raised NameError" in err


def test_hit_condition_every_second_pass(server, program):
    source = WORK.replace("work([1, 2, 3])", "work([1, 2, 3, 4, 5])")
    prog = program(source, [{"line": "LOOP", "hit_condition": "% 2"}])
    seen = []
    for _ in range(2):
        p = pause_of(server, prog, "work")
        seen.append(p.output("n"))
        p.resume()
        time.sleep(0.2)  # the resumed pause leaves the paused list
    code, out, err = prog.finish()
    assert code == 0, err
    assert seen == ["2", "4"]


def test_pattern_pauses_only_for_matching_arguments(server, program):
    source = with_arm("""
        def run_sql(sql, user="app"):
            rows = len(sql)  # RUN
            return rows

        arm()
        for statement in ["SELECT 1", "DROP TABLE users", "SELECT 2"]:
            run_sql(statement)
        print("done")
    """
    )
    prog = program(source, [{"line": "RUN", "pattern": r"DROP\s+TABLE"}])
    p = pause_of(server, prog, "run_sql")
    assert p.output("sql") == "'DROP TABLE users'"
    p.resume()
    code, out, err = p.finish()
    assert code == 0 and out.endswith("done\n"), err


def test_logpoint_logs_interpolated_messages_and_never_pauses(server, program):
    source = WORK + 'print("records:", [body["message"] for event, body in engine.records if event == "log"])\n'
    out, err = assert_never_pauses(server, program(source, [{"line": "LOOP", "log_message": "n={n} total={total}"}]))
    assert out.endswith("result: 12\nrecords: ['n=1 total=0', 'n=2 total=1', 'n=3 total=3']\n")
    assert [line.split(": ", 1)[1] for line in err.splitlines() if line.startswith("breakroom log")] == [
        "n=1 total=0",
        "n=2 total=1",
        "n=3 total=3",
    ]


def test_disabled_breakpoint_does_not_pause_until_enabled(server, program):
    source = WORK.replace(
        'print("result:", work([1, 2, 3]))',
        'print("first:", work([1])); engine.update(reports[0]["id"], {"enabled": True}); print("result:", work([1, 2, 3]))',
    )
    prog = program(source, [{"line": "AFTER", "enabled": False}])
    p = pause_of(server, prog, "work")
    assert p.output("items") == "[1, 2, 3]"  # the second call: the first ran through
    p.resume()
    code, out, err = p.finish()
    assert code == 0 and "first: 2" in out, err


def test_breakpoint_on_a_line_without_code_moves_to_the_next_line_with_code(server, program):
    source = with_arm("""
        def work(items):
            total = sum(items)
            # the total is ready  # COMMENT

            return total + 1  # NEXT

        engine, reports = arm()
        print("landed:", reports[0]["requested_line"], reports[0]["line"], reports[0]["moved"])
        print("result:", work([1, 2]))
    """
    )
    prog = program(source, [{"line": "COMMENT"}])
    p = pause_of(server, prog, "work")
    assert p.pause["call_data"]["frames"][0]["lineno"] == line_in(source, "NEXT")
    p.resume()
    code, out, err = p.finish()
    assert code == 0, err
    assert f"landed: {line_in(source, 'COMMENT')} {line_in(source, 'NEXT')} True" in out


def test_disarming_restores_the_original_code(server, program):
    source = WORK.replace(
        'print("result:", work([1, 2, 3]))',
        """original = engine._originals.get(work, work.__code__)  # 3.12+: the code is never swapped
engine.remove(reports[0]["id"])
monitored = engine._monitor is not None and sys.monitoring.get_local_events(engine._monitor.tool, work.__code__)
print("restored:", work.__code__ is original, "__breakroom_line__" in work.__code__.co_names, bool(monitored), engine.list())
print("result:", work([1, 2, 3]))""",
    )
    out, _ = assert_never_pauses(server, program(source, [{"line": "AFTER"}]))
    assert "restored: True False False []" in out and out.endswith("result: 12\n")


def test_closure_made_after_arming_gets_the_breakpoint(server, program):
    source = with_arm("""
        def make_adder(k):
            def add(x):
                y = x + k  # ADD
                return y
            return add

        arm()
        print(make_adder(10)(5))
    """
    )
    p = pause_of(server, program(source, [{"line": "ADD"}]), "make_adder.<locals>.add")
    assert p.output("(x, k)") == "(5, 10)"
    p.resume()
    assert p.finish()[1].endswith("15\n")


def listed_names(p):
    """What the variables panel lists and what completion offers for `breakpoint_`, `condition_`
    and `exc`."""
    status, reply = p.server.get(f"/api/repl/{p.session_id}/variables")
    assert status == 200, reply
    offered = []
    for partial in ("breakpoint_", "condition_", "exc"):
        status, completed = p.server.post(f"/api/repl/{p.session_id}/complete", {"code": partial})
        assert status == 200, completed
        offered += completed["matches"]
    return {row["name"] for row in reply["variables"]}, offered


def test_the_debuggers_own_names_are_evaluable_but_never_listed_as_the_programs(server, program):
    prog = program(WORK, [{"line": "AFTER", "condition": "total / missing"}])
    p = pause_of(server, prog, "work")
    names, offered = listed_names(p)
    assert names == {"items", "total", "n"}
    assert [m for m in offered if m in ("breakpoint_hit", "condition_error")] == []
    assert p.output("breakpoint_hit['kind']") == "'line'"
    assert p.output("condition_error.startswith('NameError')") == "True"
    p.resume()
    assert p.finish()[0] == 0


def test_the_debuggers_own_names_are_absent_from_dir_and_globals_in_the_repl(server, program):
    prog = program(WORK, [{"line": "AFTER", "condition": "total / missing"}])
    p = pause_of(server, prog, "work")
    own = "{'breakpoint_hit', 'condition_error'}"
    assert p.output(f"sorted({own} & set(dir()))") == "[]"
    assert p.output(f"sorted({own} & set(globals()))") == "[]"
    assert p.output(f"sorted({own} & set(locals()))") == "[]"
    # Still there for input, and for a function the REPL defines.
    assert p.output("(lambda: breakpoint_hit['kind'])()") == "'line'"
    p.resume()
    assert p.finish()[0] == 0


def test_the_programs_global_wins_over_the_debuggers_name_of_the_same_spelling(server, program):
    source = CRASH.replace("import sys", "import sys\n    exception = 'the program says'")
    p = pause_of(server, program(source, args=[]), "divide")
    assert p.output("exception") == "'the program says'"
    assert p.output("(a, b)") == "(7, 0)"
    p.resume()
    assert p.finish()[0] == 1


def test_an_editor_sees_no_breakpoint_hit_in_scopes_variables_or_completions(server, program):
    from test_redaction import Dap

    prog = program(WORK, [{"line": "AFTER", "condition": "total / missing"}])
    p = pause_of(server, prog, "work")
    dap = Dap(server)
    try:
        dap.request("initialize", adapterID="breakroom")
        dap.request("attach")
        threads = [t for t in dap.request("threads")["threads"] if f"(pid {prog.process.pid})" in t["name"]]
        assert threads
        frame_id = dap.request("stackTrace", threadId=threads[0]["id"])["stackFrames"][0]["id"]
        listed = {}
        for scope in dap.request("scopes", frameId=frame_id)["scopes"]:
            rows = dap.request("variables", variablesReference=scope["variablesReference"])["variables"]
            listed[scope["name"]] = {row["name"] for row in rows}
        assert listed["Locals"] == {"items", "total", "n"}
        assert "work" in listed["Globals"]
        own = {"breakpoint_hit", "condition_error"}
        assert [name for names in listed.values() for name in names if name in own] == []
        targets = dap.request("completions", frameId=frame_id, text="breakpoint_", column=12)["targets"]
        assert "breakpoint_hit" not in [t["label"] for t in targets]
        answer = dap.request("evaluate", expression="breakpoint_hit['kind']", frameId=frame_id, context="repl")
        assert answer["result"] == "'line'"
    finally:
        dap.close()
    p.resume()
    assert p.finish()[0] == 0


CRASH = """
    import sys

    def divide(a, b):
        ratio = a / b  # DIVIDE
        return ratio

    print("args:", sys.argv[1:])
    divide(7, 0)
"""


def test_python_m_breakroom_pauses_post_mortem_on_an_uncaught_exception(server, program):
    prog = program(CRASH, args=[])
    p = pause_of(server, prog, "divide")
    assert p.pause["call_data"]["pause_reason"] == "exception"
    assert [f["function"] for f in p.pause["call_data"]["frames"]] == ["divide", "<module>"]
    assert p.output("(a, b, type(exception).__name__)") == "(7, 0, 'ZeroDivisionError')"
    names, offered = listed_names(p)
    assert names == {"a", "b"} and "exception" not in offered
    p.resume()
    code, out, err = p.finish()
    assert code == 1
    assert out == "args: []\n"
    assert err.count("Traceback (most recent call last)") == 1 and "ZeroDivisionError: division by zero" in err
    assert "breakroom/__main__.py" not in err and "runpy" not in err  # the program's frames only


def test_python_m_breakroom_arms_break_options_before_the_first_line(server):
    source = textwrap.dedent(CRASH.replace("divide(7, 0)", "print(divide(7, 2))"))
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_linebp_")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    line = line_in(source, "DIVIDE")
    command = [PYTHON, "-m", "breakroom", "--break", f"{path}:{line}", path, "x"]
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    running = _Running(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env), path)
    try:
        p = pause_of(server, running, "divide")
        assert p.pause["call_data"]["frames"][0]["lineno"] == line
        assert p.output("(a, b)") == "(7, 2)"
        p.resume()
        code, out, err = running.finish()
        assert (code, out) == (0, "args: ['x']\n3.5\n"), err
        assert f"breakpoint break-1 at {os.path.realpath(path)}:{line}" in err
    finally:
        running.kill()


def test_python_m_breakroom_runs_a_module_with_breakpoints_armed_from_the_environment(server, program):
    package = tempfile.mkdtemp(prefix="breakroom_mod_")
    module_source = textwrap.dedent(CRASH).replace("divide(7, 0)", "print(divide(9, 3))")
    module_path = os.path.join(package, "calc_mod.py")
    with open(module_path, "w") as f:
        f.write(module_source)
    line = line_in(module_source, "DIVIDE")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(CLIENT_DIR), package]),
        "BREAKROOM_URL": server.url,
        "BREAKROOM_BREAK": f"{module_path}:{line}",
    }
    process = subprocess.Popen(
        [PYTHON, "-m", "breakroom", "-m", "calc_mod", "y"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    running = _Running(process, module_path)
    try:
        p = pause_of(server, running, "divide")
        assert p.pause["call_data"]["frames"][0]["lineno"] == line
        p.resume()
        code, out, err = running.finish()
        assert (code, out) == (0, "args: ['y']\n3.0\n"), err
    finally:
        running.kill()
