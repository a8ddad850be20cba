"""The completer (issue 21): what it offers, and that it never runs the program's code."""

import os
import sys
import time
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, in-process

from breakroom.repl import complete as complete_module  # noqa: E402
from breakroom.repl.complete import complete  # noqa: E402
from breakroom.repl.complete import completion_snippet, decode_snippet_result  # noqa: E402
from breakroom.repl.evaluation import EvalTarget, evaluate  # noqa: E402


def matches(code, *layers, cursor_pos=None, **kw):
    return complete(code, cursor_pos, list(layers), **kw)["matches"]


def typed(code, *layers):
    reply = complete(code, None, list(layers))
    return dict(zip(reply["matches"], reply["metadata"]["types"]))


class Recorder:
    """Counts every way of running code on an attribute read."""

    calls = []

    def __init__(self):
        self.field = 1
        self.fig = 2

    @property
    def effect(self):
        Recorder.calls.append("effect")
        return 1

    @property
    def broken(self):
        Recorder.calls.append("broken")
        raise RuntimeError("getter ran")

    def __getattr__(self, name):
        Recorder.calls.append(f"__getattr__ {name}")
        raise AttributeError(name)

    def __dir__(self):
        Recorder.calls.append("__dir__")
        return ["invented"]

    def method(self, first, key=None, *, flag=False):
        return first


class Intercepting:
    def __init__(self):
        self.inner = 1

    def __getattribute__(self, name):
        Recorder.calls.append(f"__getattribute__ {name}")
        return object.__getattribute__(self, name)


@pytest.fixture(autouse=True)
def no_calls_recorded():
    Recorder.calls.clear()
    yield
    assert Recorder.calls == [], "the completer ran the program's code"


def test_names_come_from_session_locals_globals_and_builtins():
    session, local, global_ = {"session_total": 1}, {"local_total": 2}, {"global_total": 3}
    for name in ("session_total", "local_total", "global_total"):
        assert name in matches(name[:3], session, local, global_)
    assert "print" in matches("pri", session, local, global_)
    assert typed("pri", {})["print"] == "function"


def test_inner_layers_come_first():
    assert matches("tot", {"total_b": 1}, {"total_a": 2}) == ["total_b", "total_a"]


def test_attributes_after_a_dot():
    obj = Recorder()
    reply = complete("x = obj.fi", None, [{"obj": obj}])
    assert reply["matches"] == ["field", "fig"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (8, 10)
    assert "method" in matches("obj.", {"obj": obj})


def test_chained_attributes_are_resolved_statically():
    inner = types.SimpleNamespace(leaf=types.SimpleNamespace(value=1, valid=2))
    assert matches("a.inner.leaf.val", {"a": types.SimpleNamespace(inner=inner)}) == ["valid", "value"]
    assert "join" in matches("os.path.jo", {"os": os})


def test_private_names_only_once_an_underscore_is_typed():
    obj = types.SimpleNamespace(public=1, _private=2)
    assert matches("obj.", {"obj": obj}) == ["public"]
    assert "_private" in matches("obj._", {"obj": obj})


def test_dict_keys_after_an_open_quote():
    d = {"name": 1, "nation": 2, 3: "int key", "other": 4}
    assert matches('d["na', {"d": d}) == ['name"]', 'nation"]']
    assert matches("d['na", {"d": d}) == ["name']", "nation']"]
    # The closing quote is already there: only the key.
    assert matches("d['na']", {"d": d}, cursor_pos=5) == ["name", "nation"]
    assert typed("d['na", {"d": d})["name']"] == "dict key"


def test_dict_keys_with_quotes_are_escaped():
    assert matches("d['it", {"d": {"it's": 1}}) == ["it\\'s']"]


def test_dict_keys_only_for_real_dicts():
    class Computed(dict):
        def keys(self):
            Recorder.calls.append("keys")
            return ["computed"]

    class Plain(dict):
        pass

    assert matches("d['", {"d": Computed(real=1)}) == []
    assert matches("d['", {"d": Plain(real=1)}) == ["real']"]
    assert matches("obj.table['", {"obj": types.SimpleNamespace(table={"row": 1})}) == ["row']"]


def test_keywords():
    assert typed("whi", {})["while"] == "keyword"
    assert "lambda" in matches("lam", {})


def test_keyword_parameters_of_a_plain_function():
    obj = Recorder()
    assert matches("obj.method(1, ke", {"obj": obj})[0] == "key="
    assert "flag=" in matches("obj.method(1, ", {"obj": obj})


def test_a_property_with_a_side_effect_is_listed_and_not_called():
    assert typed("obj.eff", {"obj": Recorder()}) == {"effect": "property"}


def test_a_raising_property_is_listed_and_not_called():
    assert typed("obj.bro", {"obj": Recorder()}) == {"broken": "property"}


def test_completing_through_a_property_does_not_call_it():
    assert matches("obj.effect.", {"obj": Recorder()}) == []


def test_getattr_getattribute_and_dir_are_not_called():
    assert "invented" not in matches("obj.", {"obj": Recorder()})
    assert matches("obj.missing.", {"obj": Recorder()}) == []
    assert matches("obj.in", {"obj": Intercepting()}) == ["inner"]


def test_nothing_is_offered_inside_strings_comments_or_after_calls():
    assert matches("'pri", {}) == []
    assert matches("x = 1  # pri", {}) == []
    assert matches("f().pri", {"f": lambda: None}, use_jedi=False) == []


def test_completion_at_a_cursor_inside_the_code():
    reply = complete("obj.fi + 1", 6, [{"obj": Recorder()}])
    assert reply["matches"] == ["field", "fig"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (4, 6)


def test_reply_has_the_jupyter_complete_reply_shape():
    reply = complete("obj.fi", None, [{"obj": Recorder()}])
    assert reply["status"] == "ok"
    assert reply["metadata"]["types"] == ["instance", "instance"]
    assert reply["metadata"]["_jupyter_types_experimental"][0] == {
        "start": 4,
        "end": 6,
        "text": "field",
        "type": "instance",
        "signature": "",
    }
    assert reply["metadata"]["timed_out"] is False


def test_a_completion_over_budget_answers_with_what_it_has():
    huge = {f"name_{i}": i for i in range(2_000_000)}
    started = time.perf_counter()
    reply = complete("name_", None, [huge], budget_s=0.02)
    elapsed = time.perf_counter() - started
    assert reply["metadata"]["timed_out"] is True
    assert 0 < len(reply["matches"]) < len(huge)
    # Far under what reading two million names takes; generous, so a busy machine cannot fail it.
    assert elapsed < 5, elapsed

    started = time.perf_counter()
    # No key matches: the whole dict would have to be read.
    reply = complete("d['other", None, [{"d": huge}], budget_s=0.02)
    assert reply["metadata"]["timed_out"] is True
    assert time.perf_counter() - started < 5


# ---- the snippet for unchanged cideldill clients ----------------------------------------------


def cideldill_eval(source, frame_globals, locals_dict):
    """What an unchanged cideldill client does with an eval (docs/src/protocol.md §6): eval with the
    frame's globals and the session's locals, result = repr(value)."""
    return repr(eval(compile(source, "<repl>", "eval"), frame_globals, locals_dict))


def test_snippet_gives_the_same_reply_as_a_direct_call():
    frame_globals = {"os": os, "__builtins__": __builtins__}
    locals_dict = {"obj": Recorder(), "d": {"name": 1, "it's \"q\" \\": 2}}
    for code in ("obj.fi", "o", "d['", 'd["it', "os.path.jo", "obj.method(1, k", "whi"):
        result = cideldill_eval(completion_snippet(code), frame_globals, locals_dict)
        direct = complete(code, None, [locals_dict, frame_globals])
        assert decode_snippet_result(result) == direct, code


def test_snippet_binds_no_names_in_the_repl_namespace():
    frame_globals, locals_dict = {"__builtins__": __builtins__}, {"total": 6}
    cideldill_eval(completion_snippet("tot"), frame_globals, locals_dict)
    assert set(locals_dict) == {"total"}
    assert set(frame_globals) == {"__builtins__"}


def test_snippet_at_a_cursor_position():
    result = cideldill_eval(completion_snippet("total + ite", 3), {}, {"total": 6, "items": []})
    assert decode_snippet_result(result)["matches"] == ["total"]


def test_snippet_through_this_package_eval():
    namespace = {}
    outcome = evaluate(completion_snippet("tot"), EvalTarget({}, {"total": 6}), namespace)
    assert outcome.error is None
    assert decode_snippet_result(outcome.result)["matches"] == ["total"]
    assert namespace == {}


def test_snippet_round_trip_through_an_unchanged_cideldill_client(server):
    from cideldill_driver import ProtocolDriver

    driver = ProtocolDriver(server.url, "completion_snippet")
    thread = driver.start()
    try:
        session = server.start_session(driver.pause_id)
        for code in ("ite", "items.", "tot"):
            body = server.eval(session, completion_snippet(code))
            assert not body["is_error"], body
            direct = complete(code, None, [driver.namespace])
            assert decode_snippet_result(body["output"]) == direct
        assert decode_snippet_result(server.eval(session, completion_snippet("items.app"))["output"])["matches"] == [
            "append"
        ]
    finally:
        server.resume(driver.pause_id)
        thread.join(10)


# ---- signatures and Jedi ------------------------------------------------------------------------


def test_function_matches_carry_their_signature():
    entries = complete("obj.meth", None, [{"obj": Recorder()}])["metadata"]["_jupyter_types_experimental"]
    assert entries[0]["signature"] == "(first, key=None, *, flag=False)"
    entries = complete("le", None, [{}])["metadata"]["_jupyter_types_experimental"]
    assert entries[0]["text"] == "len" and entries[0]["signature"] == "(obj, /)"


def test_without_jedi_what_static_reading_cannot_see_is_not_offered():
    started = time.perf_counter()
    assert matches("s.upper().low", {"s": "abc"}, use_jedi=False) == []
    assert time.perf_counter() - started < 5


def test_jedi_answers_what_static_reading_cannot():
    pytest.importorskip("jedi")
    # One Jedi run at a time: an earlier test's completion may have left one going past its
    # budget (under load, Jedi's first run takes seconds), and a busy Jedi answers nothing.
    assert complete_module._jedi_busy.acquire(timeout=60), "an earlier Jedi run never ended"
    complete_module._jedi_busy.release()
    reply = complete("s.upper().low", None, [{"s": "abc", "obj": Recorder()}], budget_s=60)
    assert "lower" in reply["matches"]


def test_jedi_stays_within_the_budget():
    pytest.importorskip("jedi")
    # A budget Jedi cannot meet: the answer comes back marked as cut short, without waiting for it.
    reply = complete("s.strip().split()[0].up", None, [{"s": "abc"}], budget_s=0.0001)
    assert reply["metadata"]["timed_out"] is True
