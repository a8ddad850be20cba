"""The line breakpoint engine in this process, its pauses recorded instead of sent to a server:
conditions compiled into the code, what falls back to the plain hook, PATCHes that recompile,
files imported after their breakpoints were set, and a generator made while its breakpoint is
armed."""

import importlib
import os
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the client package, in-process

from breakroom.lines.engine import LineBreakpoints  # noqa: E402
from breakroom.lines.rewrite import ModuleSource  # noqa: E402

SOURCE = """
def outer(base):
    unused = base * 10

    def inner(x):
        y = x + base  # INNER
        return y

    return inner


def work(n):
    m = n * 2  # WORK
    return m
"""


def line_of(marker):
    return next(n for n, text in enumerate(textwrap.dedent(SOURCE).splitlines(), 1) if text.endswith("# " + marker))


@pytest.fixture
def module():
    """SOURCE as a freshly imported module, with an engine whose pauses are recorded."""
    folder = tempfile.mkdtemp(prefix="breakroom_engine_")
    name = f"engine_target_{abs(hash(folder))}"
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(SOURCE))
    sys.path.insert(0, folder)
    engine = LineBreakpoints(pause=None)
    paused = []
    engine._pause = lambda frame, decision: paused.append((frame.f_lineno, dict(frame.f_locals), decision))
    try:
        yield importlib.import_module(name), path, engine, paused
    finally:
        engine.close()
        sys.path.remove(folder)
        sys.modules.pop(name, None)


def test_condition_is_compiled_into_the_function(module):
    mod, path, engine, paused = module
    engine.add({"kind": "line", "file": path, "line": line_of("WORK"), "condition": "n == 3"})
    assert "n" in mod.work.__code__.co_varnames and "__BreakroomConditionHeld__" in mod.work.__code__.co_names
    assert [mod.work(n) for n in range(5)] == [0, 2, 4, 6, 8]
    assert [(line, frame_locals["n"]) for line, frame_locals, _ in paused] == [(line_of("WORK"), 3)]
    assert paused[0][2].hit_count == 1


def test_condition_naming_a_variable_the_function_does_not_use_falls_back_to_the_plain_hook(module):
    mod, path, engine, paused = module
    inner = mod.outer(5)
    report = engine.add({"kind": "line", "file": path, "line": line_of("INNER"), "condition": "unused == 50"})
    assert report["functions"] >= 1 and report["stale_functions"] == 0
    assert "__BreakroomConditionHeld__" not in inner.__code__.co_names  # evaluated by the hook instead
    inner(1)
    assert paused and paused[0][2].action == "condition_error"  # `unused` is not in inner's frame
    assert "NameError" in paused[0][2].error


def test_patching_a_condition_recompiles_it(module):
    mod, path, engine, paused = module
    report = engine.add({"kind": "line", "file": path, "line": line_of("WORK"), "condition": "n == 1"})
    engine.update(report["id"], {"condition": "n == 2"})
    [mod.work(n) for n in range(4)]
    assert [frame_locals["n"] for _, frame_locals, _ in paused] == [2]
    engine.update(report["id"], {"condition": None})
    mod.work(7)
    assert [frame_locals["n"] for _, frame_locals, _ in paused] == [2, 7]


def test_two_conditions_on_one_line_each_decide_for_themselves(module):
    mod, path, engine, paused = module
    engine.add({"kind": "line", "file": path, "line": line_of("WORK"), "condition": "n == 1"})
    engine.add({"kind": "line", "file": path, "line": line_of("WORK"), "condition": "n == 3", "log_message": "n is {n}"})
    [mod.work(n) for n in range(5)]
    assert [frame_locals["n"] for _, frame_locals, _ in paused] == [1]
    assert [body["message"] for event, body in engine.records if event == "log"] == ["n is 3"]


def test_a_file_imported_after_its_breakpoint_was_set_gets_it_at_import(tmp_path):
    path = tmp_path / "later_module.py"
    path.write_text(textwrap.dedent(SOURCE))
    engine = LineBreakpoints(pause=None)
    paused = []
    engine._pause = lambda frame, decision: paused.append(frame.f_locals["n"])
    sys.path.insert(0, str(tmp_path))
    try:
        report = engine.add({"kind": "line", "file": str(path), "line": line_of("WORK")})
        assert report["pending"] is True
        import later_module

        later_module.work(4)
        assert paused == [4]
    finally:
        engine.close()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("later_module", None)


def test_a_condition_with_a_comment_is_compiled_in_whole(module):
    mod, path, engine, paused = module
    engine.add({"kind": "line", "file": path, "line": line_of("WORK"), "condition": "n == 2  # the second"})
    [mod.work(n) for n in range(4)]
    assert [frame_locals["n"] for _, frame_locals, _ in paused] == [2]


PASSES = """
def passes():
    n = 0
    while True:
        n += 1  # PASS
        yield n
"""


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.12+ reaches such frames through their code's events")
def test_a_generator_made_while_its_breakpoint_compiles_is_reached(tmp_path, monkeypatch):
    # The program runs on while the hooked code compiles (here, made to run there): a generator
    # it makes then runs the code of before the swap, suspended, and must be traced all the same.
    path = tmp_path / "passes_module.py"
    path.write_text(textwrap.dedent(PASSES))
    line = next(n for n, text in enumerate(textwrap.dedent(PASSES).splitlines(), 1) if text.endswith("# PASS"))
    sys.path.insert(0, str(tmp_path))
    import passes_module

    made = []
    compile_with_hooks = ModuleSource.compile_with_hooks

    def meanwhile(self, *args, **kwargs):
        if not made:
            made.append(passes_module.passes())
            next(made[0])  # at its yield, as a worker waits at its await
        return compile_with_hooks(self, *args, **kwargs)

    monkeypatch.setattr(ModuleSource, "compile_with_hooks", meanwhile)
    engine = LineBreakpoints(pause=None)
    paused = []
    engine._pause = lambda frame, decision: paused.append(frame.f_locals["n"])
    try:
        report = engine.add({"kind": "line", "file": str(path), "line": line})
        assert made[0].gi_code is not passes_module.passes.__code__  # it runs the old code
        assert report["running_frames"] == 1
        assert next(made[0]) == 2
        assert paused == [1]
    finally:
        engine.close()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("passes_module", None)
