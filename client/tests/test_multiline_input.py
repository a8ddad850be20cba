"""Multi-line Input: blocks typed over several lines run whole;
unfinished input says so."""

import code

from conftest import answer_fields


def test_multiline_function_definition_and_call(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("def add(a, b):\n    c = a + b\n    return c\n", s)
    assert frame_pause.output("add(total, 4)", s) == "10"


def test_multiline_for_loop(frame_pause):
    body = frame_pause.eval("acc = 0\nfor i in items:\n    acc += i\nprint(acc)\n")
    assert body["stdout"] == "6\n"


def test_multiline_if_else(frame_pause):
    body = frame_pause.eval("if total > 5:\n    print('big')\nelse:\n    print('small')\n")
    assert body["stdout"] == "big\n"


def test_multiline_class_definition(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("class Box:\n    size = 3\n\n    def area(self):\n        return self.size ** 2\n", s)
    assert frame_pause.output("Box().area()", s) == "9"


def test_multiline_try_except(frame_pause):
    body = frame_pause.eval("try:\n    items[10]\nexcept IndexError as e:\n    print('caught', e)\n")
    assert (body["stdout"], body["is_error"]) == ("caught list index out of range\n", False)


def test_multiline_with_statement(frame_pause):
    body = frame_pause.eval("import io\nwith io.StringIO('abc') as f:\n    print(f.read())\n")
    assert body["stdout"] == "abc\n"


def test_compile_command_detects_incomplete_input():
    # The rule the client applies before compiling (CPython's own interactive rule).
    assert code.compile_command("def f():", "<repl>", "exec") is None


def test_compile_command_detects_complete_input(frame_pause):
    assert code.compile_command("x = 1", "<repl>", "exec") is not None
    assert frame_pause.eval("x = 1")["is_error"] is False


def test_incomplete_input_returns_syntax_error_message(frame_pause):
    body = frame_pause.eval("if total > 1:")
    assert answer_fields(body) == {"output": "SyntaxError: incomplete input", "stdout": "", "is_error": True, "result_cid": None}


def test_incomplete_def_without_body_returns_incomplete_error(frame_pause):
    assert frame_pause.output("def f(x):") == "SyntaxError: incomplete input"


def test_incomplete_for_without_body_returns_incomplete_error(frame_pause):
    assert frame_pause.output("for i in items:") == "SyntaxError: incomplete input"


def test_single_line_still_works(frame_pause):
    assert frame_pause.output("sum(items) == total") == "True"
