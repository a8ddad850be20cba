"""Client-Side Eval: evaluation inside the paused process, and the
client's waiting loop that serves evals and resume actions."""

import threading
import time

from conftest import FRAME, METHOD, answer_fields


def test_eval_simple_expression_returns_result(frame_pause):
    body = frame_pause.eval("1 + 2")
    assert (body["output"], body["stdout"], body["is_error"]) == ("3", "", False)


def test_eval_expression_with_local_variables(frame_pause):
    assert frame_pause.output("total * 2") == "12"
    assert frame_pause.output("label.upper()") == "'ORDER'"


def test_eval_expression_with_global_variables(frame_pause):
    assert frame_pause.output("LIMIT - total") == "94"


def test_eval_expression_referencing_function_arguments(paused):
    p = paused(METHOD, "checkout")
    assert p.output("discount") == "5"
    assert p.output("note") == "'none'"  # defaults are bound too
    assert p.output("args[1]") == "5"


def test_eval_syntax_error_returns_error(frame_pause):
    body = frame_pause.eval("1 +* 2")
    assert body["is_error"] is True
    assert "SyntaxError: invalid syntax" in body["output"]
    assert body["result_cid"] is None


def test_eval_runtime_error_returns_error_with_traceback(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("def inner(x):\n    return 1 / x\n", s)
    body = frame_pause.eval("inner(0)", s)
    assert body["is_error"] is True
    text = body["output"]
    assert text.startswith("Traceback (most recent call last):"), text
    assert 'File "<repl>"' in text and "in inner" in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "breakroom" not in text  # only the user's code


def test_eval_name_error_returns_helpful_message(frame_pause):
    body = frame_pause.eval("totl")
    assert body["is_error"] is True
    assert body["output"].startswith("NameError: name 'totl' is not defined")


def test_eval_statement_via_exec_fallback(frame_pause):
    s = frame_pause.new_session()
    assert frame_pause.eval("doubled = [i * 2 for i in items]", s)["output"] == ""
    assert frame_pause.output("doubled", s) == "[2, 4, 6]"


def test_eval_import_statement(frame_pause):
    s = frame_pause.new_session()
    assert frame_pause.output("import math", s) == ""
    assert frame_pause.output("math.sqrt(total + 10)", s) == "4.0"


def test_eval_assignment_then_reference_in_later_eval(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("z = total + 1", s)
    assert frame_pause.output("z * 2", s) == "14"


def test_eval_modifying_local_variable(paused):
    p = paused(FRAME, "process")
    assert p.output("total = 10") == ""
    assert p.output("items.append(4)") == "None"
    assert p.output("total") == "10"
    p.resume()
    code, out, err = p.finish()
    assert code == 0, err
    # The program itself sees the new value after it resumes.
    assert out == "after: 10 [1, 2, 3, 4] order\n"


def test_eval_accessing_self_on_method_breakpoint(paused):
    p = paused(METHOD, "checkout")
    assert p.output("self.items") == "[3, 4]"
    assert p.output("type(self).__name__") == "'Cart'"
    p.resume()
    assert p.finish()[1] == "checkout: 2\n"


def test_eval_result_repr_for_large_objects_is_bounded_and_says_how_much_is_left(frame_pause):
    text = frame_pause.output("list(range(100000))")
    assert 90_000 < len(text) <= 100_100
    assert text.startswith("[0, 1, 2, 3")
    shown = text.count(", ") + 1
    assert text.endswith(f"… {100000 - shown + 1:,} more"), text[-80:]


def test_eval_result_repr_for_unprintable_objects(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("class Broken:\n    def __repr__(self):\n        raise RuntimeError('no repr for you')\n", s)
    body = frame_pause.eval("Broken()", s)
    assert body["is_error"] is False
    assert body["output"] == "<unprintable Broken object: RuntimeError: no repr for you>"
    assert frame_pause.output("1 + 1", s) == "2"  # and the client is fine afterwards


def test_eval_does_not_resume_execution(frame_pause):
    frame_pause.eval("total")
    frame_pause.eval("x_unused = 1")
    time.sleep(0.2)
    assert frame_pause.program.process.poll() is None
    assert frame_pause.pause_id in [p["id"] for p in frame_pause.server.paused()]


def test_eval_multiple_expressions_sequentially(frame_pause):
    s = frame_pause.new_session()
    outputs = [frame_pause.output(e, s) for e in ("1", "total", "label", "items[0]", "LIMIT")]
    assert outputs == ["1", "6", "'order'", "1", "100"]
    transcript = frame_pause.server.session(s)["transcript"]
    assert [e["index"] for e in transcript] == [0, 1, 2, 3, 4]
    assert [e["output"] for e in transcript] == outputs


def test_client_polls_repl_eval_requests(frame_pause):
    # The answer comes from the paused process itself.
    assert frame_pause.output("import os; os.getpid()") == str(frame_pause.program.process.pid)


def test_client_posts_repl_result_after_eval(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("print('posted'); 7 * 6", s)
    (entry,) = frame_pause.server.session(s)["transcript"]
    assert (entry["input"], entry["output"], entry["stdout"], entry["is_error"]) == (
        "print('posted'); 7 * 6",
        "42",
        "posted\n",
        False,
    )


def test_client_continues_polling_after_eval(paused):
    p = paused(FRAME, "process")
    assert p.output("total") == "6"
    time.sleep(0.3)
    assert p.output("total + 1") == "7"  # still polling after the first eval
    p.resume()
    assert p.finish()[0] == 0


def test_client_resumes_only_on_terminal_action(paused):
    p = paused(FRAME, "process")
    for expr in ("total", "label", "x = 1", "print(x)"):
        p.eval(expr)
    time.sleep(0.3)
    assert p.program.process.poll() is None, "evals never resume the program"
    p.resume()
    code, out, _ = p.finish()
    assert (code, out) == (0, "after: 6 [1, 2, 3] order\n")


def test_client_handles_eval_during_polling_loop(frame_pause):
    time.sleep(0.5)  # the client is now parked in its long-poll
    started = time.monotonic()
    assert frame_pause.output("total") == "6"
    assert time.monotonic() - started < 0.5


def test_client_dual_polls_resume_and_repl_endpoints(paused):
    p = paused(FRAME, "process")
    time.sleep(0.3)
    started = time.monotonic()
    assert p.output("label") == "'order'"
    eval_time = time.monotonic() - started
    time.sleep(0.3)
    started = time.monotonic()
    p.resume()
    code, _, _ = p.finish()
    resume_time = time.monotonic() - started
    assert code == 0
    # Both reach the waiting client at once, not on a polling interval.
    assert eval_time < 0.5 and resume_time < 1.5, (eval_time, resume_time)


def test_client_resume_action_exits_loop_despite_pending_eval(paused):
    p = paused(FRAME, "process")
    answer = {}
    slow = threading.Thread(
        target=lambda: answer.update(r=p.server.post(f"/api/repl/{p.session_id}/eval", {"expr": "import time; time.sleep(30)"}))
    )
    slow.start()
    time.sleep(0.5)
    started = time.monotonic()
    p.resume()
    code, out, _ = p.finish()
    assert code == 0 and out.startswith("after:")
    assert time.monotonic() - started < 5
    slow.join(5)
    assert answer["r"][0] == 409 and answer["r"][1]["error"] == "session_closed"


def test_client_ignores_409_from_repl_result_after_resume(paused):
    source = FRAME.replace("process(7)", "process(7)\n    import time; time.sleep(2.5); print('exited cleanly')")
    p = paused(source, "process")
    answer = {}
    slow = threading.Thread(
        target=lambda: answer.update(r=p.server.post(f"/api/repl/{p.session_id}/eval", {"expr": "import time; time.sleep(1); 'late'"}))
    )
    slow.start()
    time.sleep(0.3)
    p.resume()
    slow.join(5)
    code, out, err = p.finish()
    # The late result was refused (409) after the resume; the client said nothing about it.
    assert answer["r"][0] == 409
    assert code == 0 and out.endswith("exited cleanly\n")
    assert "Traceback" not in err and "409" not in err, err
    assert [e["input"] for e in p.server.session(p.session_id)["transcript"]] == []


def test_eval_with_multiline_expression(frame_pause):
    assert frame_pause.output("(total +\n LIMIT)") == "106"
    assert frame_pause.output("[i * 2\n for i in items]") == "[2, 4, 6]"


def test_eval_timeout_protection_for_infinite_loops(paused):
    p = paused(FRAME, "process", env={"BREAKROOM_EVAL_TIMEOUT": "0.5"})
    body = p.eval("while True:\n    pass\n")
    assert answer_fields(body) == {"output": "TimeoutError: evaluation timed out", "stdout": "", "is_error": True, "result_cid": None}
    assert p.output("total") == "6"  # the REPL still works while the loop spins
    p.resume()
    assert p.finish()[0] == 0
