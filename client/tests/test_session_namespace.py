"""Session Namespace: each REPL session has its own names, layered
over the paused frame's locals."""

from conftest import FRAME


def test_namespace_assignment_persists_across_evals(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("counter = 1", s)
    frame_pause.eval("counter += 1", s)
    assert frame_pause.output("counter", s) == "2"


def test_namespace_import_persists_across_evals(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("import json as j", s)
    assert frame_pause.output("j.dumps({'a': total})", s) == '\'{"a": 6}\''


def test_namespace_overlays_frame_locals(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("extra = 'x'", s)
    # Session names and frame locals are visible together.
    assert frame_pause.output("(label, extra, total)", s) == "('order', 'x', 6)"


def test_namespace_does_not_shadow_frame_locals_initially(frame_pause):
    other = frame_pause.new_session()
    frame_pause.eval("shadow_probe = 1", other)
    s = frame_pause.new_session()
    assert frame_pause.output("sorted(k for k in locals() if not k.startswith('__'))[:5]", s) == (
        "['LIMIT', 'breakroom', 'items', 'label', 'order_id']"
    )
    assert frame_pause.output("total", s) == "6"


def test_namespace_assignment_shadows_frame_local_in_later_eval(paused):
    p = paused(FRAME, "process")
    p.eval("label = 'changed'")
    assert p.output("label") == "'changed'"
    assert p.output("label.upper()") == "'CHANGED'"


def test_namespace_isolated_between_sessions_on_same_pause(frame_pause):
    a, b = frame_pause.new_session(), frame_pause.new_session()
    frame_pause.eval("secret = 41", a)
    assert frame_pause.output("secret + 1", a) == "42"
    assert frame_pause.output("secret", b).startswith("NameError: name 'secret' is not defined")


def test_namespace_mutation_of_shared_mutable_object_visible_across_sessions(paused):
    p = paused(FRAME, "process")
    a, b = p.session_id, p.new_session()
    p.eval("items.append(99)", a)
    assert p.output("items", b) == "[1, 2, 3, 99]"


def test_namespace_cleared_when_session_closes(frame_pause):
    a = frame_pause.new_session()
    frame_pause.eval("import weakref, builtins\nclass Probe: pass\nkept = Probe()\nbuiltins._breakroom_probe = weakref.ref(kept)\n", a)
    b = frame_pause.new_session()
    assert frame_pause.output("import builtins, gc; gc.collect(); builtins._breakroom_probe() is None", b) == "False"
    frame_pause.server.close(a)
    # The client drops the closed session's namespace: nothing holds `kept` any more.
    assert frame_pause.output("gc.collect(); builtins._breakroom_probe() is None", b) == "True"


def test_namespace_function_definition_via_exec_callable_in_later_eval(frame_pause):
    s = frame_pause.new_session()
    assert frame_pause.output("def scaled(n):\n    return n * total\n", s) == ""
    assert frame_pause.output("scaled(3)", s) == "18"


def test_namespace_class_definition_via_exec_usable_in_later_eval(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("class Point:\n    def __init__(self, x):\n        self.x = x\n    def __repr__(self):\n        return f'Point({self.x})'\n", s)
    assert frame_pause.output("Point(total)", s) == "Point(6)"


def test_namespace_del_variable_removes_from_namespace(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("temp = 5", s)
    assert frame_pause.output("del temp", s) == ""
    assert frame_pause.output("temp", s).startswith("NameError: name 'temp' is not defined")
