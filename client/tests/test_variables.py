"""The variables panel's data (issue 21): rows, bounded reprs, one-level expansion."""

import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, in-process

from breakroom.repl.variables import (  # noqa: E402
    SKIPPED,
    TIMED_OUT,
    PathError,
    bounded_repr,
    expand,
    variables,
)


class Spinning:
    def __repr__(self):
        while True:
            pass


class Sleeping:
    def __repr__(self):
        time.sleep(10.0)  # far past any bound below: a test that waited for it would fail
        return "late"


class Raising:
    def __repr__(self):
        raise ValueError("no repr for you")


class Record:
    calls = []

    def __init__(self):
        self.name = "order"
        self.lines = [1, 2, 3]

    @property
    def total(self):
        Record.calls.append("total")
        return 6

    def __getattr__(self, name):
        Record.calls.append(f"__getattr__ {name}")
        raise AttributeError(name)


class Slotted:
    __slots__ = ("x", "unset")

    def __init__(self):
        self.x = 5


def rows(frame_locals, session=None, **kw):
    return {row["name"]: row for row in variables(frame_locals, session, **kw)["variables"]}


def timed(fn, *args, **kw):
    started = time.perf_counter()
    value = fn(*args, **kw)
    return value, time.perf_counter() - started


def test_rows_are_the_frame_locals_then_the_session_names():
    panel = variables({"a": 1, "b": "text"}, {"mine": [1, 2]})["variables"]
    assert [(r["name"], r["scope"]) for r in panel] == [("a", "local"), ("b", "local"), ("mine", "session")]
    assert panel[0] == {
        "name": "a",
        "type": "int",
        "repr": "1",
        "expandable": False,
        "path": [["var", "a"]],
        "expression": "a",
        "scope": "local",
    }
    assert panel[2]["type"] == "list" and panel[2]["expandable"] and panel[2]["count"] == 2


def test_a_session_name_shadows_the_frames_and_is_shown_once():
    panel = rows({"x": 1}, {"x": 2})
    assert panel["x"]["repr"] == "2" and panel["x"]["scope"] == "session"


def test_a_repr_looping_in_python_shows_a_placeholder_and_is_stopped():
    before = threading.active_count()
    text, elapsed = timed(bounded_repr, Spinning(), timeout_s=0.1)
    assert text == TIMED_OUT
    assert elapsed < 5, elapsed  # does not wait for the repr (it would never end)
    time.sleep(0.05)
    # The trace deadline ended the loop: its worker thread came back instead of spinning on.
    assert threading.active_count() <= before + 1
    assert bounded_repr([1, 2]) == "[1, 2]"


def test_a_repr_blocked_in_c_shows_a_placeholder_without_waiting_for_it():
    text, elapsed = timed(bounded_repr, Sleeping(), timeout_s=0.1)
    assert text == TIMED_OUT
    assert elapsed < 5, elapsed  # does not wait for the repr (it would never end)


def test_a_raising_repr_shows_a_placeholder():
    assert bounded_repr(Raising()) == "<repr raised ValueError: no repr for you>"
    # Inside a container only the broken element is replaced.
    assert bounded_repr([1, Raising()]) == "[1, <repr raised ValueError: no repr for you>]"


def test_a_huge_list_is_drawn_from_its_first_items_with_its_count():
    huge = list(range(10_000_000))
    panel, elapsed = timed(rows, {"huge": huge})
    row = panel["huge"]
    assert row["count"] == 10_000_000
    assert row["repr"].startswith("[0, 1, 2") and row["repr"].endswith("... (10000000 items)]")
    assert len(row["repr"]) <= 200
    assert elapsed < 2, elapsed  # a full repr of ten million items would take far longer


def test_reprs_are_cut_to_the_length_limit():
    assert len(bounded_repr("x" * 10_000, limit=50)) == 50
    assert len(bounded_repr(Record(), limit=20)) == 20
    assert bounded_repr({"k": "v" * 500}, limit=40).endswith("…")


def test_slow_reprs_do_not_hold_the_panel_past_its_budget():
    frame = {f"slow_{i}": Sleeping() for i in range(10)}
    frame["n"] = 1
    panel, elapsed = timed(variables, frame, None, repr_timeout_s=0.05, budget_s=0.2)
    assert elapsed < 5, elapsed  # does not wait for the repr (it would never end)
    assert panel["timed_out"] is True
    by_name = {r["name"]: r for r in panel["variables"]}
    assert by_name["n"]["repr"] == "1"  # scalars are always shown
    assert {r["repr"] for r in panel["variables"] if r["name"] != "n"} <= {TIMED_OUT, SKIPPED}


def test_expanding_an_object_lists_its_attributes_without_running_code():
    Record.calls.clear()
    children = expand([["var", "r"]], {"r": Record()})["children"]
    by_name = {c["name"]: c for c in children}
    assert set(by_name) == {"name", "lines", "total"}
    assert by_name["total"]["type"] == "property" and by_name["total"]["repr"] == "<property: not evaluated>"
    assert by_name["lines"]["expression"] == "r.lines" and by_name["lines"]["expandable"]
    assert Record.calls == []


def test_expanding_slots():
    children = expand([["var", "s"]], {"s": Slotted()})["children"]
    assert [(c["name"], c["repr"]) for c in children] == [("x", "5")]


def test_expanding_a_dict_gives_its_items_by_key():
    d = {"k": [1, {"x": 2}], 2: "two"}
    level1 = expand([["var", "d"]], {"d": d})
    assert [(c["name"], c["repr"], c["expression"]) for c in level1["children"]] == [
        ("'k'", "[1, {'x': 2}]", "d['k']"),
        ("2", "'two'", "d[2]"),
    ]
    level2 = expand(level1["children"][0]["path"], {"d": d})
    assert [c["expression"] for c in level2["children"]] == ["d['k'][0]", "d['k'][1]"]


def test_expanding_a_huge_list_pages():
    page, elapsed = timed(expand, [["var", "big"]], {"big": list(range(10_000_000))}, offset=100, limit=3)
    assert [c["name"] for c in page["children"]] == ["[100]", "[101]", "[102]"]
    assert page["count"] == 10_000_000 and page["truncated"]
    assert elapsed < 2, elapsed  # a full repr of ten million items would take far longer


def test_a_stale_path_says_so():
    with pytest.raises(PathError):
        expand([["var", "gone"]], {})
    with pytest.raises(PathError):
        expand([["var", "d"], ["item", 5]], {"d": {"a": 1}})
