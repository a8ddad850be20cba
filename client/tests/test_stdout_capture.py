"""Stdout/Stderr Capture: output printed during an eval comes back
with it; the program's own streams are untouched."""

from conftest import FRAME


def test_eval_print_captured_in_stdout_field(frame_pause):
    body = frame_pause.eval("print('hello', total)")
    assert (body["stdout"], body["output"]) == ("hello 6\n", "")


def test_eval_stderr_captured_in_stdout_field(frame_pause):
    body = frame_pause.eval("import sys; print('warned', file=sys.stderr)")
    assert body["stdout"] == "warned\n"


def test_eval_print_plus_return_value_both_in_result(frame_pause):
    body = frame_pause.eval("print('side effect'); total + 1")
    assert (body["stdout"], body["output"], body["is_error"]) == ("side effect\n", "7", False)


def test_eval_print_only_no_return_value(frame_pause):
    body = frame_pause.eval("print('only')")
    assert (body["stdout"], body["output"]) == ("only\n", "")


def test_eval_return_value_only_no_stdout(frame_pause):
    body = frame_pause.eval("total * 7")
    assert (body["stdout"], body["output"]) == ("", "42")


def test_eval_exec_no_stdout_no_return_value_shows_empty(frame_pause):
    body = frame_pause.eval("quiet = 1")
    assert (body["stdout"], body["output"], body["is_error"]) == ("", "", False)


def test_eval_multiline_stdout_captured_completely(frame_pause):
    body = frame_pause.eval("for i in range(200):\n    print('line', i)\n")
    assert body["stdout"] == "".join(f"line {i}\n" for i in range(200))


def test_eval_stdout_redirect_restored_after_eval(paused):
    p = paused(FRAME, "process")
    p.eval("print('inside the eval')")
    assert p.output("import sys; sys.stdout is sys.__stdout__") == "False"  # captured while evaluating
    p.resume()
    code, out, err = p.finish()
    # After the evals the program prints to its real stdout, and none of the eval's output leaked there.
    assert (code, out) == (0, "after: 6 [1, 2, 3] order\n"), err


def test_eval_stdout_redirect_restored_after_exception(paused):
    p = paused(FRAME, "process")
    body = p.eval("print('before the error'); 1 / 0")
    assert body["stdout"] == "before the error\n" and body["is_error"]
    assert p.eval("print('next')")["stdout"] == "next\n"
    p.resume()
    code, out, _ = p.finish()
    assert (code, out) == (0, "after: 6 [1, 2, 3] order\n")


def test_eval_nested_print_in_function_call_captured(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("def outer():\n    inner()\n    return 'done'\ndef inner():\n    print('deep')\n", s)
    body = frame_pause.eval("outer()", s)
    assert (body["stdout"], body["output"]) == ("deep\n", "'done'")


def test_eval_exec_mode_result_is_empty_string(frame_pause):
    assert frame_pause.eval("for _ in range(2):\n    pass\n")["output"] == ""


def test_eval_mode_result_is_repr_of_return_value(frame_pause):
    assert frame_pause.output("label") == "'order'"
    assert frame_pause.output("{'k': [1.5, None, True]}") == "{'k': [1.5, None, True]}"


def test_eval_expression_returning_none_result_is_none_string(frame_pause):
    assert frame_pause.output("None") == "None"
    assert frame_pause.output("{}.get('missing')") == "None"
