"""Snapshot breakpoints in the client (issue 34), without a server: the read-only check and guard,
the bounded capture, the quotas, labels, the sender queue against a tiny local HTTP server, and
snapshot and log breakpoints through the line engine (which never pause)."""

import http.server
import importlib
import json
import os
import socket
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the client package, in-process

from breakroom.process import labels as _labels  # noqa: E402
from breakroom.snapshots import capture as _capture, offthread as _offthread, read_only as _read_only, take as _snapshots  # noqa: E402
from breakroom.breakpoint_channel import BreakpointChannel  # noqa: E402
from breakroom.breakpoints.kinds import CONDITION_ERROR, BreakpointError, BreakpointSpec  # noqa: E402
from breakroom.lines.engine import LineBreakpoints  # noqa: E402
from breakroom.snapshots.sender import Counters, Sender  # noqa: E402

# ---- the static check ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, named",
    [
        ("x.append(1)", "append"),
        ("obj.attr = 1", "assignment"),
        ("compute(x)", "compute"),
        ("del x", "del"),
        ("import os", "import"),
        ("(lambda: 1)()", "lambda"),
        ("(y := 1)", ":="),
        ("sorted(d, key=log.append)", "log.append"),
        ("next(it)", "next"),
    ],
)
def test_mutating_or_calling_expressions_are_refused_naming_the_part(text, named):
    with pytest.raises(_read_only.NotReadOnly) as refused:
        _read_only.check(text, "expression 2")
    assert str(refused.value).startswith("expression 2 ") and named in str(refused.value)


@pytest.mark.parametrize(
    "text",
    ["len(x)", "x.get('k')", "sorted(d)", "[v * 2 for v in x if v]", "{k: v for k, v in d.items()}",
     "name.lower().startswith('a') and n > 3", "max(d, key=len)", "x[1:3]", "isinstance(x, list)"],
)
def test_reading_expressions_are_allowed(text):
    _read_only.check(text, "expression 1")


def test_a_log_template_is_refused_naming_the_part_that_mutates():
    with pytest.raises(_read_only.NotReadOnly) as refused:
        _read_only.check_log_message("n={n} then {items.pop()}")
    assert "{items.pop()}" in str(refused.value)


def test_a_snapshot_breakpoint_with_a_mutating_expression_is_not_set_but_a_pausing_condition_may_call():
    with pytest.raises(BreakpointError, match="expression 1.*append"):
        BreakpointSpec("line", file="a.py", line=1, action="snapshot", expressions=["x.append(1)"])
    with pytest.raises(BreakpointError, match="condition"):
        BreakpointSpec("line", file="a.py", line=1, action="snapshot", condition="f(x)")
    BreakpointSpec("line", file="a.py", line=1, condition="f(x)")  # a pause keeps full Python


# ---- the runtime guard --------------------------------------------------------------------------


class Guarded:
    def __init__(self):
        self.plain = 5

    @property
    def p(self):
        return 1

    def __len__(self):
        return 3

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def guarded(text, **names):
    return _read_only.guarded_eval(_read_only.compile_read_only(text), {}, names)


@pytest.mark.parametrize("text, name", [("g.p", "Guarded.p"), ("len(g)", "Guarded.__len__"), ("g == 1", "Guarded.__eq__")])
def test_the_guard_stops_the_programs_python_code_and_names_it(text, name):
    with pytest.raises(_read_only.Blocked) as blocked:
        guarded(text, g=Guarded())
    assert str(blocked.value).startswith(f"would run {name} (test_snapshot_client.py:")


def test_the_guard_lets_builtins_and_our_comprehensions_run_and_restores_the_profile_function():
    seen = []

    def profiler(frame, event, arg):
        seen.append(event)

    sys.setprofile(profiler)
    try:
        assert guarded("[v + 1 for v in xs if v] + [g.plain]", xs=[0, 1, 2], g=Guarded()) == [2, 3, 5]
        with pytest.raises(_read_only.Blocked):
            guarded("g.p", g=Guarded())
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)
    guarded("len([1])")
    assert sys.getprofile() is None


def test_a_blocked_condition_counts_as_false_with_its_error_and_never_pauses():
    spec = BreakpointSpec("line", file="a.py", line=1, action="snapshot", condition="g.p == 1")
    decision = spec.decide({}, {"g": Guarded()})
    assert decision.action == CONDITION_ERROR and decision.hit_count is None
    assert "would run Guarded.p" in decision.error and spec.hit_count == 0


def test_a_log_part_that_would_run_program_code_says_so_in_the_message():
    spec = BreakpointSpec("line", file="a.py", line=1, log_message="n={n} p={g.p}")
    assert spec.action == "log" and spec.read_only
    message = spec.decide({}, {"n": 3, "g": Guarded()}).message
    assert "would run Guarded.p" in message


# ---- capture bounds -----------------------------------------------------------------------------


def capture(limits=None, deadline_s=1.0):
    return _capture.Capture(_capture.Limits(limits), time.perf_counter() + deadline_s)


def test_a_frame_with_twenty_locals_is_captured_whole():
    def twenty():
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 = range(10)
        b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = "abcdefghij"
        return sys._getframe()

    frames = _capture.frames(capture(), twenty())
    assert len(frames[0]["locals"]) == 20 and frames[0]["function"].endswith("twenty")
    assert {"name": "a3", "value": {"type": "int", "repr": "3"}} in frames[0]["locals"]


def test_a_ten_megabyte_string_costs_only_its_first_bytes():
    huge = "x" * 10_000_000
    node = capture({"string_bytes": 100}).value(huge)
    assert len(node["repr"].encode()) <= 100 and node["length"] == 10_000_000 and node["truncated"]


def test_depth_and_items_limits_cut_containers():
    nested = [[[[1]]]]
    node = capture({"depth": 2}).value(nested)
    level2 = node["children"][0]["value"]["children"][0]["value"]
    assert "children" not in level2 and level2["length"] == 1
    wide = capture({"items": 10}).value(list(range(1000)))
    assert len(wide["children"]) == 10 and wide["truncated"] and wide["length"] == 1000


def test_objects_show_their_dict_and_slots_but_no_property_runs():
    class Slotted:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a = 1

    node = capture().value(Guarded())
    assert [c["name"] for c in node["children"]] == ["plain"]
    assert [c["name"] for c in capture().value(Slotted())["children"]] == ["a"]


def test_total_bytes_cuts_the_snapshot_and_says_truncated():
    cap = capture({"total_bytes": 2000})
    node = cap.value({f"key{i}": "v" * 50 for i in range(500)})
    assert cap.truncated and cap.used <= 2000 and len(node["children"]) < 500


class RaisingRepr:
    def __repr__(self):
        raise ValueError("no repr for you")


class HangingRepr:
    def __repr__(self):
        time.sleep(10)
        return "never"


class LoopingRepr:
    def __repr__(self):
        while True:
            pass


def test_a_raising_repr_becomes_a_placeholder():
    node = capture().value(RaisingRepr())
    assert node["repr"] == "<repr raised ValueError>" and "no repr for you" in node["error"]


def test_a_looping_repr_is_stopped_by_its_time_limit():
    started = time.perf_counter()
    node = capture().value(LoopingRepr())
    assert node["repr"] == "<repr timed out>" and time.perf_counter() - started < 1


@pytest.fixture
def fake_sender(monkeypatch):
    class FakeSender:
        def __init__(self):
            self.snapshots = []

        def put(self, snapshot):
            self.snapshots.append(snapshot)
            return True

        def call_soon(self, chore):
            chore()

    fake = FakeSender()
    monkeypatch.setattr(_snapshots, "_sender", fake)
    monkeypatch.setattr(_snapshots, "counters", Counters())
    monkeypatch.setattr(_snapshots, "budget", _snapshots.Budget(1.0))
    return fake


def test_a_hanging_repr_gives_the_program_back_quickly_and_is_not_asked_again(fake_sender):
    spec = BreakpointSpec("line", file="a.py", line=1, action="snapshot", extras={"max_hits": 5})

    def at_hit(value):
        return sys._getframe()

    started = time.perf_counter()
    _snapshots.arrive(spec, at_hit(HangingRepr()), 1)
    assert time.perf_counter() - started < 1
    assert _snapshots.counters.take() == {"dropped": {spec.id: 1}}
    started = time.perf_counter()
    _snapshots.arrive(spec, at_hit(HangingRepr()), 1)  # its type is known slow now
    assert time.perf_counter() - started < 0.5
    value = fake_sender.snapshots[-1]["frames"][0]["locals"][0]["value"]
    assert value["repr"] == "<repr timed out>"


# ---- quotas ---------------------------------------------------------------------------------------


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_rate_limit_lets_max_per_second_through_and_refills():
    clock = Clock()
    rate = _snapshots.RateLimit(2, clock=clock)
    assert [rate.allow() for _ in range(3)] == [True, True, False]
    clock.now += 0.5
    assert [rate.allow(), rate.allow()] == [True, False]


def test_the_cpu_budget_is_spent_by_captures_and_refills_with_time():
    clock = Clock()
    budget = _snapshots.Budget(0.01, clock=clock)
    assert budget.has_room()
    budget.spend(0.02)  # a slow first hit leaves room: the bucket holds 5 s worth (50 ms)
    assert budget.has_room()
    budget.spend(0.045)  # overdrawn by 15 ms
    assert not budget.has_room()
    clock.now += 1.4  # 14 ms back: still overdrawn
    assert not budget.has_room()
    clock.now += 0.2
    assert budget.has_room()
    budget.spend(60.0)  # a huge overrun owes one bucket at most: 5 s of skipping, not an hour
    clock.now += 10.1
    assert budget.has_room()


def test_past_the_budget_hits_are_counted_skipped_quota_and_past_the_rate_skipped_rate(fake_sender, monkeypatch):
    spec = BreakpointSpec("line", file="a.py", line=1, action="snapshot", extras={"max_per_second": 1, "max_hits": 100})
    frame = sys._getframe()
    _snapshots.arrive(spec, frame, 1)
    _snapshots.arrive(spec, frame, 1)
    assert len(fake_sender.snapshots) == 1
    monkeypatch.setattr(_snapshots, "budget", _snapshots.Budget(0.01))
    _snapshots.budget.spend(1.0)
    _snapshots.arrive(spec, frame, 1)
    assert _snapshots.counters.take() == {"skipped_rate": {spec.id: 1}, "skipped_quota": {spec.id: 1}}


def test_counts_are_kept_until_a_report_settles_them():
    counters = Counters()
    counters.add("dropped", "bp-1", 2)
    taken = counters.take()
    counters.add("dropped", "bp-1")
    counters.settle(taken)
    assert counters.take() == {"dropped": {"bp-1": 1}}


def test_an_expired_breakpoint_takes_nothing_and_is_finished(fake_sender):
    spec = BreakpointSpec("line", file="a.py", line=1, action="snapshot", extras={"expires_at": "2000-01-01T00:00:00Z"})
    _snapshots.arrive(spec, sys._getframe(), 1)
    assert fake_sender.snapshots == [] and _snapshots.is_finished(spec.id)
    _snapshots.rearm(spec.id)


def test_max_hits_bounds_the_snapshots_this_process_takes(fake_sender):
    spec = BreakpointSpec("line", file="a.py", line=1, action="snapshot")  # max_hits: the server's 1
    spec.extras["max_hits"] = 2
    for _ in range(5):
        _snapshots.arrive(spec, sys._getframe(), 1)
    assert len(fake_sender.snapshots) == 2


# ---- labels ---------------------------------------------------------------------------------------


def test_labels_parse_and_bad_parts_are_ignored_with_one_warning(capsys):
    assert _labels.parse(" service = api ,env=prod,") == {"service": "api", "env": "prod"}
    assert _labels.parse("novalue,=x,a=b,c=d=e") == {"a": "b", "c": "d=e"}
    err = capsys.readouterr().err
    assert err.count("breakroom:") == 1 and "'novalue'" in err and "'=x'" in err


def test_where_arms_only_when_every_label_matches(monkeypatch):
    monkeypatch.setattr(_labels, "_labels", None)
    monkeypatch.setenv("BREAKROOM_LABELS", "service=api,env=prod")
    assert _labels.matches({"service": "api"}) and _labels.matches(None) and _labels.matches({})
    assert not _labels.matches({"service": "web"}) and not _labels.matches({"region": "eu"})
    _labels.configure({"service": "web"})
    assert _labels.matches({"service": "web"}) and _labels.current() == {"service": "web"}
    _labels.configure(None)


def test_the_channel_arms_only_matching_active_records(monkeypatch, tmp_path):
    monkeypatch.setattr(_labels, "_labels", {"service": "api"})
    target = tmp_path / "armed.py"
    target.write_text("x = 1\n")
    engine = LineBreakpoints(pause=None)
    channel = BreakpointChannel("http://127.0.0.1:9", lambda: {}, lambda: engine, lambda pauses: None, lambda: None)
    base = {"kind": "line", "file": str(target), "line": 1, "action": "snapshot"}
    try:
        channel.apply([
            {**base, "id": "bp-1", "where": {"service": "api"}},
            {**base, "id": "bp-2", "where": {"service": "web"}},
            {**base, "id": "bp-3", "state": "completed"},
        ])
        assert [r["id"] for r in engine.list()] == ["bp-1"]
        channel._disarm_finished("bp-1")  # the server said 409
        channel.apply([{**base, "id": "bp-1", "where": {"service": "api"}, "captured": 1}])
        assert engine.list() == []
        channel.apply([{**base, "id": "bp-1", "where": {"service": "api"}, "max_hits": 3}])  # changed: armed anew
        assert [r["id"] for r in engine.list()] == ["bp-1"]
    finally:
        engine.close()


# ---- the sender -----------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    received = []
    status = 201

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).received.append(body)
        answer = json.dumps({"snapshot_id": f"snap-{len(self.received)}"} if self.status == 201 else {"error": "x"}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def serve(port, status=201):
    handler = type("Handler", (Receiver,), {"received": [], "status": status})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


def test_snapshots_taken_while_the_server_is_down_are_sent_once_it_is_back():
    port = free_port()
    sender = Sender(f"http://127.0.0.1:{port}", lambda: {"process_pid": 1}, Counters(), retry_s=0.1)
    for i in range(5):
        sender.put({"breakpoint_id": "bp-1", "n": i})
    time.sleep(0.5)  # down: tried and kept
    server, handler = serve(port)
    try:
        assert sender.flush(5)
        assert [s["n"] for s in handler.received] == [0, 1, 2, 3, 4]
        assert handler.received[0]["process_pid"] == 1
    finally:
        server.shutdown()


def test_a_full_queue_counts_the_overflow_as_dropped():
    counters = Counters()
    sender = Sender(f"http://127.0.0.1:{free_port()}", dict, counters, capacity=3, retry_s=0.1)
    results = [sender.put({"breakpoint_id": "bp-4"}) for _ in range(5)]
    assert results == [True, True, True, False, False]
    assert counters.take() == {"dropped": {"bp-4": 2}}


def test_a_409_finishes_the_breakpoint_and_a_400_is_dropped_not_retried():
    finished, counters = [], Counters()
    server, handler = serve(free_port(), status=409)
    try:
        sender = Sender(f"http://127.0.0.1:{server.server_port}", dict, counters, on_finished=finished.append)
        for _ in range(3):
            sender.put({"breakpoint_id": "bp-5"})
        assert sender.flush(5) and finished == ["bp-5"] and len(handler.received) == 1
        handler.status = 400
        sender.put({"breakpoint_id": "bp-6"})
        assert sender.flush(5) and len(handler.received) == 2
        assert counters.take() == {"dropped": {"bp-6": 1}}
    finally:
        server.shutdown()


# ---- through the line engine ----------------------------------------------------------------------

SOURCE = """
class Order:
    def __init__(self, n):
        self.n = n
        self.items = list(range(n))

    @property
    def total(self):
        return sum(self.items)


def handle(order, label):
    count = len(order.items)  # HIT
    return count
"""


@pytest.fixture
def app(tmp_path):
    path = tmp_path / f"snap_app_{os.getpid()}_{time.monotonic_ns()}.py"
    path.write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(tmp_path))
    engine = LineBreakpoints(pause=None)
    paused = []
    engine._pause = lambda frame, decision: paused.append(decision)
    try:
        yield importlib.import_module(path.stem), str(path), engine, paused
    finally:
        engine.close()
        sys.path.remove(str(tmp_path))
        sys.modules.pop(path.stem, None)


HIT_LINE = next(n for n, t in enumerate(textwrap.dedent(SOURCE).splitlines(), 1) if t.endswith("# HIT"))


def test_a_snapshot_breakpoint_captures_the_hit_and_never_pauses(app, fake_sender):
    mod, path, engine, paused = app
    engine.add({"kind": "line", "file": path, "line": HIT_LINE, "action": "snapshot", "id": "bp-snap",
                "expressions": ["len(order.items)", "order.total", "label.upper()"], "max_hits": 1,
                "capture": {"frames": 1}})  # (pytest's own frames hold a lot)
    assert mod.handle(mod.Order(3), "api") == 3
    assert mod.handle(mod.Order(4), "api") == 4  # max_hits 1: nothing more taken here
    assert paused == [] and len(fake_sender.snapshots) == 1
    snap = fake_sender.snapshots[0]
    assert (snap["breakpoint_id"], snap["line"], snap["function"]) == ("bp-snap", HIT_LINE, "handle")
    top = snap["frames"][0]
    assert [entry["name"] for entry in top["locals"]] == ["order", "label"]
    assert top["locals"][0]["value"]["children"][0] == {"name": "n", "value": {"type": "int", "repr": "3"}}
    assert snap["expressions"][0] == {"expression": "len(order.items)", "value": {"type": "int", "repr": "3"}}
    assert snap["expressions"][1]["error"].startswith("would run Order.total (")
    assert snap["expressions"][2]["value"]["repr"] == "'API'"
    assert snap["frames"][1]["function"].endswith("test_a_snapshot_breakpoint_captures_the_hit_and_never_pauses")
    assert not any("breakroom" in f["file"].split(os.sep)[-2:-1] for f in snap["frames"])
    assert "locals" not in snap["frames"][1]
    assert snap["truncated"] is False and snap["capture_ms"] >= 0


def test_a_logpoint_with_a_blocked_condition_logs_nothing_and_reports_the_error_once(app, fake_sender):
    mod, path, engine, paused = app
    engine.add({"kind": "line", "file": path, "line": HIT_LINE, "log_message": "n={order.n}", "condition": "order.total > 0"})
    for n in (1, 2, 3):
        mod.handle(mod.Order(n), "api")
    assert paused == [] and not [e for e, _ in engine.records if e == "log"]
    errors = [body for event, body in engine.records if event == "breakpoint_hit"]
    assert len(errors) == 1 and "would run Order.total" in errors[0]["error"]


def test_a_function_snapshot_captures_the_call_with_its_arguments_first(fake_sender):
    def checkout(cart, user="ann"):
        return len(cart)

    record = {"id": "bp-fn", "action": "snapshot", "expressions": ["len(cart)", "user.title()"]}
    _snapshots.take_call([record, {"id": "bp-other", "where": {"zone": "nowhere"}}], checkout,
                         {"cart": [1, 2], "user": "ann"}, sys._getframe())
    (snap,) = fake_sender.snapshots
    top = snap["frames"][0]
    assert top["function"].endswith("checkout") and [e["name"] for e in top["locals"]] == ["cart", "user"]
    assert [e["value"]["repr"] for e in snap["expressions"]] == ["2", "'Ann'"]
    assert snap["frames"][1]["function"].endswith("test_a_function_snapshot_captures_the_call_with_its_arguments_first")


def test_snapshot_work_runs_off_the_programs_thread():
    assert not _offthread.is_worker()
    assert _offthread.run(_offthread.is_worker, 1.0) == ("ok", True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_fresh_workers():
    assert _offthread.run(lambda: 1, 1.0) == ("ok", 1)  # an idle worker now exists
    pid = os.fork()
    if pid == 0:
        ok = _offthread.run(lambda: 2, 1.0) == ("ok", 2)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


PROGRAM = """
import sys, time
sys.path.insert(0, {client!r})
import breakroom

def handle(order_id):
    note = "order %d" % order_id
    return note  # LINE

breakroom._get_client().ensure_connected()
for i in range(3):
    handle(i)
"""


class StandIn(http.server.BaseHTTPRequestHandler):
    """The few endpoints the client uses, with one snapshot breakpoint on the program's line."""

    protocol_version = "HTTP/1.1"
    requests = []
    record = {}

    def _answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        type(self).requests.append(("GET", self.path, None))
        if self.path.startswith("/api/breakpoint-changes"):
            if "since=" in self.path:
                time.sleep(0.2)  # a short hold
            return self._answer(200, {"version": 1, "breakpoints": [self.record]})
        self._answer(200, {"breakpoints": []})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(("POST", self.path, body))
        if self.path == "/api/snapshots":
            taken = [r for r in self.requests if r[1] == "/api/snapshots"]
            return self._answer(201, {"snapshot_id": "snap-1"}) if len(taken) == 1 else self._answer(409, {"error": "breakpoint_finished"})
        self._answer(200, {})

    def log_message(self, *args):
        pass


def test_the_whole_client_against_a_stand_in_server_sends_one_snapshot_with_its_labels(tmp_path):
    import subprocess

    source = PROGRAM.format(client=str(Path(__file__).resolve().parents[1]))
    program = tmp_path / "standin_app.py"
    program.write_text(source)
    line = next(n for n, t in enumerate(source.splitlines(), 1) if t.endswith("# LINE"))
    handler = type("H", (StandIn,), {"requests": [], "record": {
        "id": "bp-1", "kind": "line", "file": str(program), "line": line, "action": "snapshot",
        "expressions": ["note.upper()"], "max_hits": 1, "max_per_second": 100, "where": {"service": "api"}}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {**os.environ, "BREAKROOM_URL": f"http://127.0.0.1:{server.server_port}", "BREAKROOM_LABELS": "service=api,env=test"}
    try:
        done = subprocess.run([sys.executable, str(program)], env=env, capture_output=True, text=True, timeout=30)
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr
    snapshots = [body for method, path, body in handler.requests if path == "/api/snapshots"]
    assert len(snapshots) == 1  # max_hits 1: this process took one
    snap = snapshots[0]
    assert snap["labels"] == {"service": "api", "env": "test"} and snap["process_pid"] > 0 and snap["argv"]
    assert snap["expressions"] == [{"expression": "note.upper()", "value": {"type": "str", "repr": "'ORDER 0'", "length": 7}}]
    assert snap["frames"][0]["locals"][0]["name"] == "order_id" and snap["thread"]["name"] == "MainThread"
    asks = [path for method, path, _ in handler.requests if path.startswith("/api/breakpoint-changes")]
    assert "labels=" in asks[0]
