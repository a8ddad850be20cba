"""Breakpoint specs and deciding a hit, without a server: the REST shape, conditions, hit
conditions, patterns, logpoints, and where a line breakpoint lands."""

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the client package, in-process

from breakroom.breakpoints.kinds import CONDITION_ERROR, LOG, PAUSE, SKIP, BreakpointError, BreakpointSpec, HitCondition
from breakroom.lines.rewrite import ModuleSource


def decide_n(spec, n, **frame_locals):
    return [spec.decide({}, dict(frame_locals, i=i)).action for i in range(1, n + 1)]


def test_line_spec_round_trips_the_rest_json():
    body = {
        "kind": "line",
        "file": "app.py",
        "line": 12,
        "condition": "n > 3",
        "hit_condition": ">= 2",
        "pattern": "alice",
        "log_message": "n={n}",
        "enabled": False,
        "id": "bp-7",
    }
    assert BreakpointSpec.from_dict(body).to_dict() == {**body, "hit_count": 0}


def test_function_and_error_specs_have_their_own_fields():
    assert BreakpointSpec.from_dict({"kind": "function", "function_name": "f"}).to_dict()["function_name"] == "f"
    error = BreakpointSpec.from_dict({"kind": "error", "exception_types": ["KeyError"]})
    assert error.to_dict()["exception_types"] == ["KeyError"]
    assert error.matches_exception(KeyError("k")) and not error.matches_exception(ValueError())
    assert BreakpointSpec("error").matches_exception(ValueError())  # no types: any exception


@pytest.mark.parametrize(
    "body, says",
    [
        ({"kind": "line", "file": "a.py"}, "line number"),
        ({"kind": "line", "line": 3}, "needs file"),
        ({"kind": "watch"}, "expected one of"),
        ({"kind": "line", "file": "a.py", "line": 3, "condition": "n >"}, "condition 'n >'"),
        ({"kind": "line", "file": "a.py", "line": 3, "hit_condition": "every 3"}, "hit condition"),
        ({"kind": "line", "file": "a.py", "line": 3, "pattern": "("}, "pattern '('"),
    ],
)
def test_bad_breakpoints_are_refused_with_a_reason(body, says):
    with pytest.raises(BreakpointError, match=says.replace("(", r"\(")):
        BreakpointSpec.from_dict(body)


@pytest.mark.parametrize(
    "text, pausing_hits",
    [("5", [5]), ("== 5", [5]), (">= 5", [5, 6, 7, 8, 9, 10]), ("> 8", [9, 10]), ("< 3", [1, 2]), ("% 3", [3, 6, 9])],
)
def test_hit_conditions(text, pausing_hits):
    assert [n for n in range(1, 11) if HitCondition(text).holds(n)] == pausing_hits
    spec = BreakpointSpec("line", file="a.py", line=1, hit_condition=text)
    actions = decide_n(spec, 10)
    assert [n for n, a in enumerate(actions, 1) if a == PAUSE] == pausing_hits
    assert spec.hit_count == 10


def test_condition_true_pauses_false_skips_and_only_true_arrivals_count_as_hits():
    spec = BreakpointSpec("line", file="a.py", line=1, condition="i % 2 == 0", hit_condition="2")
    assert decide_n(spec, 6) == [SKIP, SKIP, SKIP, PAUSE, SKIP, SKIP]  # i=4 is the 2nd true arrival
    assert spec.hit_count == 3


def test_condition_that_raises_is_a_condition_error_with_the_exception_text():
    spec = BreakpointSpec("line", file="a.py", line=1, condition="1 / zero")
    decision = spec.decide({}, {"zero": 0})
    assert decision.action == CONDITION_ERROR
    assert decision.error == "ZeroDivisionError: division by zero"
    assert spec.to_dict()["last_error"] == "ZeroDivisionError: division by zero"
    assert spec.hit_count == 1


def test_pattern_matches_the_arguments_repr():
    spec = BreakpointSpec("line", file="a.py", line=1, pattern=r"DROP\s+TABLE")
    assert spec.decide({}, {}, "sql='SELECT 1'").action == SKIP
    assert spec.decide({}, {}, lambda: "sql='DROP  TABLE users'").action == PAUSE
    assert spec.hit_count == 1


def test_logpoint_interpolates_expressions_in_the_frame_and_does_not_pause():
    spec = BreakpointSpec("line", file="a.py", line=1, log_message="n={n} total={total} twice={n * 2:03d}")
    decision = spec.decide({}, {"n": 4, "total": 10})
    assert (decision.action, decision.message) == (LOG, "n=4 total=10 twice=008")
    broken = BreakpointSpec("line", file="a.py", line=1, log_message="x={missing}")
    assert broken.decide({}, {}).message == "x={missing} <NameError: name 'missing' is not defined>"


def test_disabled_breakpoint_skips_without_counting_and_patch_enables_it():
    spec = BreakpointSpec("line", file="a.py", line=1, enabled=False)
    assert spec.decide({}, {}).action == SKIP and spec.hit_count == 0
    spec.update({"enabled": True, "condition": "ok"})
    assert spec.decide({}, {"ok": True}).action == PAUSE
    with pytest.raises(BreakpointError):
        spec.update({"condition": "ok ==", "enabled": False})
    assert spec.enabled and spec.condition == "ok"  # a bad PATCH changes nothing


SOURCE = textwrap.dedent(
    '''\
    import os


    def work(items):
        """Docstring."""
        total = 0
        # a comment

        for item in items:
            total += item
        try:
            value = (total +
                     1)
        except ValueError:
            value = 0
        else:
            pass
        return value
    '''
)


@pytest.mark.parametrize(
    "asked, landed",
    [(1, 1), (2, 4), (5, 6), (7, 9), (9, 9), (11, 11), (13, 12), (14, 14), (16, 17), (18, 18)],
)
def test_line_lands_on_the_next_line_with_code_or_the_start_of_its_statement(asked, landed):
    assert ModuleSource(SOURCE, "work.py").resolve(asked) == landed


def test_a_line_after_the_last_code_is_refused():
    with pytest.raises(ValueError, match="no code at or after line 40"):
        ModuleSource(SOURCE, "work.py").resolve(40)


def test_hooks_keep_every_line_number_and_fire_once_per_pass_of_a_loop_header():
    import builtins

    source = ModuleSource(SOURCE, "work.py")
    code = source.compile_with_hooks({9, 10, 18})
    fired = []
    builtins.__breakroom_line__ = lambda line: fired.append(line)
    try:
        namespace = {}
        exec(code, namespace)
        assert namespace["work"]([1, 2]) == 4
    finally:
        del builtins.__breakroom_line__
    assert fired == [9, 10, 9, 10, 18]
    original = {i.positions.lineno for c in source.original_code.co_consts if hasattr(c, "co_code") for i in __import__("dis").get_instructions(c)}
    rewritten = {i.positions.lineno for i in __import__("dis").get_instructions(namespace["work"].__code__)}
    assert rewritten == original
