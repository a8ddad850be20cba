"""Snapshot breakpoints end to end (issue 34): the real server, real Python programs that never
stop. What a snapshot captures, max_hits across processes, `where` and labels, read-only
refusals, bounded values, expiry and the time budget, and a server that is briefly down."""

import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from conftest import CLIENT_DIR, _binary, start_server

PYTHON = sys.executable


def start(server, source, *, labels=None, env=None, started=None):
    """`python -m breakroom` on `source`: it follows the server's breakpoints."""
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_snap_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    process = subprocess.Popen(
        [PYTHON, "-m", "breakroom", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(CLIENT_DIR),
            "BREAKROOM_URL": server.url,
            "PYTHONUNBUFFERED": "1",
            **({"BREAKROOM_LABELS": labels} if labels else {}),
            **(env or {}),
        },
    )
    process.path = path
    if started is not None:
        started.append(process)
    return process


@pytest.fixture
def programs():
    started = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
            p.communicate()


def line_of(source, marker):
    return next(n for n, text in enumerate(textwrap.dedent(source).splitlines(), 1) if text.rstrip().endswith("# " + marker))


def add(server, body):
    status, reply = server.post("/api/breakpoints", body)
    assert status == 200, reply
    return reply["id"]


def remove(server, bp_id):
    server.request("DELETE", f"/api/breakpoints/{bp_id}")


def record(server, bp_id):
    return next(r for r in server.get("/api/breakpoints")[1]["items"] if r["id"] == bp_id)


def snapshots_of(server, bp_id):
    status, body = server.get(f"/api/snapshots?breakpoint_id={bp_id}&limit=500")
    assert status == 200, body
    return body["snapshots"]


def wait_for(check, timeout=15, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def printed_ticks(process, at_least, timeout=15):
    """Reads `tick N` lines until N ≥ at_least: the loop is running."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = process.stdout.readline()
        if line.startswith("tick ") and int(line.split()[1]) >= at_least:
            return int(line.split()[1])
    raise AssertionError("the loop stopped printing")


LOOP = """\
    import time

    class Order:
        def __init__(self, n):
            self.n = n
            self.items = list(range(n % 5))

        @property
        def total(self):
            raise RuntimeError("the getter ran")

    def handle(order, i):
        label = f"order-{i}"
        nested = {"a": [1, 2, {"deep": (3, 4)}], "order": order}
        return len(order.items)  # SNAP

    i = 0
    while True:
        handle(Order(i), i)
        print("tick", i, flush=True)
        i += 1
        time.sleep(0.01)
"""


def test_a_snapshot_in_a_loop_captures_locals_and_expressions_and_the_loop_never_pauses(server, programs):
    p = start(server, LOOP, started=programs)
    printed_ticks(p, 3)
    bp = add(server, {"kind": "line", "file": p.path, "line": line_of(LOOP, "SNAP"), "action": "snapshot",
                      "expressions": ["len(order.items)", "label.upper()", "order.total"], "max_hits": 3})
    snaps = wait_for(lambda: len(snapshots_of(server, bp)) == 3 and snapshots_of(server, bp), what="3 snapshots")
    before = printed_ticks(p, 0)
    assert printed_ticks(p, before + 20) > before, "the loop went on"
    assert not [x for x in server.paused() if x["call_data"]["process_pid"] == p.pid], "it never paused"
    status, snap = server.get(f"/api/snapshots/{snaps[0]['snapshot_id']}")
    assert status == 200, snap
    top = snap["frames"][0]
    assert (top["function"], top["line"]) == ("handle", line_of(LOOP, "SNAP"))
    assert snap["frames"][1]["function"] == "<module>", "the stack goes on past the top frame"
    local = {v["name"]: v["value"] for v in top["locals"]}
    i = int(local["i"]["repr"])
    assert local["label"]["repr"] == repr(f"order-{i}")
    deep = {c["name"]: c["value"] for c in local["nested"]["children"]}
    assert deep["'a'"]["type"] == "list"
    watched = {w["expression"]: w for w in snap["expressions"]}
    assert watched["len(order.items)"]["value"]["repr"] == str(i % 5)
    assert watched["label.upper()"]["value"]["repr"] == repr(f"ORDER-{i}")
    assert "would run" in watched["order.total"]["error"] and "total" in watched["order.total"]["error"]
    assert "the getter ran" not in str(snap), "a property is never run"
    done = record(server, bp)
    assert (done["state"], done["captured"]) == ("completed", 3)


def test_max_hits_one_among_four_processes_keeps_exactly_one_snapshot(server, programs):
    # A breakpoint matches by file: the four programs share a module.
    module = os.path.join(tempfile.mkdtemp(prefix="breakroom_snapmod_"), "snapwork.py")
    with open(module, "w") as f:
        f.write("def work(i):\n    doubled = i * 2  # SNAP\n    return doubled\n")
    source = f"""\
        import sys, time
        sys.path.insert(0, {os.path.dirname(module)!r})
        import snapwork
        i = 0
        while True:
            snapwork.work(i)
            print("tick", i, flush=True)
            i += 1
            time.sleep(0.005)
    """
    workers = [start(server, source, started=programs) for _ in range(4)]
    for w in workers:
        printed_ticks(w, 2)
    bp = add(server, {"kind": "line", "file": module, "line": 2, "action": "snapshot", "expressions": ["doubled"]})
    wait_for(lambda: record(server, bp)["state"] == "completed", what="completed")
    time.sleep(1.0)  # whatever the other three took meanwhile has arrived and been refused
    snaps = snapshots_of(server, bp)
    assert len(snaps) == 1, snaps
    assert record(server, bp)["captured"] == 1
    assert int(snaps[0]["process_key"].rsplit("+", 1)[-1]) in {w.pid for w in workers}
    for w in workers:
        assert printed_ticks(w, 0) >= 0, "every worker runs on"


def test_where_arms_only_in_processes_whose_labels_match(server, programs):
    module = os.path.join(tempfile.mkdtemp(prefix="breakroom_snapwhere_"), "wherework.py")
    with open(module, "w") as f:
        f.write("def work(i):\n    seen = i  # SNAP\n    return seen\n")
    source = f"""\
        import sys, time
        sys.path.insert(0, {os.path.dirname(module)!r})
        import wherework
        i = 0
        while True:
            wherework.work(i)
            print("tick", i, flush=True)
            i += 1
            time.sleep(0.01)
    """
    api = [start(server, source, labels="service=api,env=prod", started=programs) for _ in range(2)]
    web = start(server, source, labels="service=web,env=prod", started=programs)
    for p in [*api, web]:
        printed_ticks(p, 2)
    bp = add(server, {"kind": "line", "file": module, "line": 2, "action": "snapshot", "max_hits": 40,
                      "max_per_second": 5, "where": {"service": "api"}})
    armed = wait_for(lambda: len(record(server, bp)["armed_in"]) == 2 and record(server, bp)["armed_in"], what="armed")
    assert sorted(int(k.rsplit("+", 1)[-1]) for k in armed) == sorted(p.pid for p in api)
    wait_for(lambda: {s["process_key"] for s in snapshots_of(server, bp)} and len(
        {s["process_key"] for s in snapshots_of(server, bp)}) == 2, what="snapshots from both api processes")
    time.sleep(0.5)
    pids = {int(s["process_key"].rsplit("+", 1)[-1]) for s in snapshots_of(server, bp)}
    assert pids == {p.pid for p in api}, "the web process never armed it"
    status, processes = server.get("/api/processes")
    labelled = {p["pid"]: p.get("labels") for p in processes["processes"]}
    assert labelled[web.pid] == {"service": "web", "env": "prod"}


@pytest.mark.parametrize(
    "body, says",
    [
        ({"expressions": ["items.append(1)"]}, "calls items.append"),
        ({"expressions": ["obj.attr = 1"]}, "assigns to obj.attr"),
        ({"expressions": ["compute(x)"]}, "calls compute"),
        ({"expressions": ["len(x)"], "condition": "x.pop()"}, "calls x.pop"),
        ({"expressions": ["del x"]}, "deletes x"),
    ],
)
def test_mutating_expressions_are_refused_with_their_reason(server, body, says):
    status, reply = server.post(
        "/api/breakpoints", {"kind": "line", "file": "app.py", "line": 3, "action": "snapshot", **body}
    )
    assert status == 400, reply
    assert reply["error"] == "not_read_only" and says in reply["message"], reply
    status, reply = server.post("/api/breakpoints", {"kind": "line", "file": "app.py", "line": 3, "log_message": "n={n.pop()}"})
    assert (status, reply["error"]) == (400, "not_read_only"), reply
    status, reply = server.post("/api/breakpoints", {"kind": "line", "file": "app.py", "line": 3, "condition": "x.pop()"})
    assert status == 200, "a pausing breakpoint's condition stays full Python"
    remove(server, reply["id"])


BOUNDED = """\
    import time

    class Hangs:
        def __repr__(self):
            time.sleep(30)
            return "never"

    class Raises:
        def __repr__(self):
            raise ValueError("no repr")

    def work(i, big, hangs, raises):
        size = len(big)  # SNAP
        return size

    big = "x" * (10 * 1024 * 1024)
    hangs, raises = Hangs(), Raises()
    i = 0
    while True:
        work(i, big, hangs, raises)
        print("tick", i, flush=True)
        i += 1
        time.sleep(0.01)
"""


def test_a_hanging_repr_and_a_ten_megabyte_string_are_bounded(server, programs):
    # The hit that meets the hanging repr waits at most 0.1 s for it and is dropped; the type's
    # repr is not called again, so later snapshots show a placeholder. A generous budget lets
    # the next hit be captured soon after that 0.1 s.
    p = start(server, BOUNDED, env={"BREAKROOM_SNAPSHOT_BUDGET": "0.5"}, started=programs)
    printed_ticks(p, 2)
    bp = add(server, {"kind": "line", "file": p.path, "line": line_of(BOUNDED, "SNAP"), "action": "snapshot",
                      "expressions": ["big"], "capture": {"string_bytes": 100}})
    snap_id = wait_for(lambda: snapshots_of(server, bp) and snapshots_of(server, bp)[0]["snapshot_id"], what="snapshot")
    snap = server.get(f"/api/snapshots/{snap_id}")[1]
    assert snap["size_bytes"] < 64 * 1024
    local = {v["name"]: v["value"] for v in snap["frames"][0]["locals"]}
    assert len(local["big"]["repr"]) <= 110 and local["big"]["truncated"]
    assert "no repr" in local["raises"]["error"]
    assert local["hangs"].get("error"), local["hangs"]
    assert snap["capture_ms"] < 100, "a hanging repr is not waited for again"
    wait_for(lambda: record(server, bp)["dropped"] == 1, what="the hit that met it counted as dropped")
    assert printed_ticks(p, int(local["i"]["repr"]) + 10), "the loop goes on"


def test_an_expired_snapshot_breakpoint_stops_capturing(server, programs):
    p = start(server, LOOP, started=programs)
    printed_ticks(p, 2)
    bp = add(server, {"kind": "line", "file": p.path, "line": line_of(LOOP, "SNAP"), "action": "snapshot",
                      "max_hits": 1000, "max_per_second": 20, "expires_in": 1})
    wait_for(lambda: record(server, bp)["state"] == "expired", timeout=5, what="expiry")
    time.sleep(0.5)  # in flight at expiry
    count = len(snapshots_of(server, bp))
    assert count >= 1
    time.sleep(1.0)
    assert len(snapshots_of(server, bp)) == count, "nothing arrives after expiry"
    status, reply = server.post("/api/breakpoints", {"kind": "line", "file": "a.py", "line": 1, "action": "snapshot", "expires_in": "1w"})
    assert (status, reply["error"]) == (400, "invalid_expires_in")


def test_hits_past_the_time_budget_are_counted_as_skipped_quota(server, programs):
    p = start(server, LOOP, env={"BREAKROOM_SNAPSHOT_BUDGET": "0.0005"}, started=programs)
    printed_ticks(p, 2)
    bp = add(server, {"kind": "line", "file": p.path, "line": line_of(LOOP, "SNAP"), "action": "snapshot",
                      "max_hits": 1000})
    # The bucket's first captures depend on how cheap a capture is here (about 2.5 ms of them);
    # past it, arrivals are skipped far faster than the budget refills, so the skips overtake.
    def overtaken():
        r = record(server, bp)
        return r["captured"] >= 1 and r["skipped_quota"] > r["captured"] + 10

    wait_for(overtaken, timeout=20, what="skipped_quota past captured")


FLAKY = """\
    import time

    def step(i):
        value = i * 10  # SNAP
        return value

    for i in range(30):
        step(i)
        print("tick", i, flush=True)
        time.sleep(0.1)
    time.sleep(4)  # the sender catches up before the program ends
"""


def test_a_server_down_for_two_seconds_loses_no_snapshot_taken_meanwhile(programs):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data_dir = tempfile.mkdtemp(prefix="breakroom-snapdown-")
    srv = start_server("--port", str(port), data_dir=data_dir)
    try:
        p = start(srv, FLAKY, started=programs)
        printed_ticks(p, 0)
        # Armed from the program's next pass on; ticks before it are not expected.
        bp = add(srv, {"kind": "line", "file": p.path, "line": line_of(FLAKY, "SNAP"), "action": "snapshot",
                       "max_hits": 1000, "expressions": ["i"]})
        wait_for(lambda: snapshots_of(srv, bp), what="a first snapshot")
        srv.process.terminate()
        srv.process.wait(10)
        time.sleep(2)
        srv = start_server("--port", str(port), data_dir=data_dir)
        code = p.wait(30)
        assert code == 0, p.stderr.read()
        taken = sorted(int(s_["expressions"][0][1]) for s_ in snapshots_of(srv, bp))
        assert taken == list(range(taken[0], 30)), f"every pass from the first is there: {taken}"
        assert taken[0] <= 5
    finally:
        srv.process.terminate()
        srv.process.wait(10)


def test_a_function_snapshot_on_a_decorated_call_captures_its_arguments_without_pausing(server, programs):
    source = """\
        import time
        import breakroom

        @breakroom.breakpoint
        def charge(amount, currency="EUR"):
            return amount * 2

        for i in range(400):
            charge(i)
            print("tick", i, flush=True)
            time.sleep(0.01)
    """
    bp = add(server, {"kind": "function", "function_name": "charge", "action": "snapshot",
                      "expressions": ["amount + 1", "currency.lower()"], "max_hits": 2})
    p = start(server, source, started=programs)
    snaps = wait_for(lambda: len(snapshots_of(server, bp)) == 2 and snapshots_of(server, bp), what="2 snapshots")
    snap = server.get(f"/api/snapshots/{snaps[-1]['snapshot_id']}")[1]
    local = {v["name"]: v["value"]["repr"] for v in snap["frames"][0]["locals"]}
    assert local["currency"] == "'EUR'"
    watched = {w["expression"]: w["value"]["repr"] for w in snap["expressions"]}
    assert watched["amount + 1"] == str(int(local["amount"]) + 1) and watched["currency.lower()"] == "'eur'"
    assert not [x for x in server.paused() if x["call_data"]["process_pid"] == p.pid]
    remove(server, bp)


def test_the_cli_adds_lists_and_shows_snapshots_and_run_labels_a_program(server, programs):
    source = """\
        import time

        def work(i):
            squared = i * i
            return squared  # SNAP

        i = 0
        while True:
            work(i)
            print("tick", i, flush=True)
            i += 1
            time.sleep(0.01)
    """
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_snapcli_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    env = {**os.environ, "BREAKROOM_URL": server.url, "PYTHONPATH": str(CLIENT_DIR)}

    def cli(*args, check=True):
        done = subprocess.run([_binary(), *args], env=env, capture_output=True, text=True, timeout=30)
        assert not check or done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    run = subprocess.Popen(
        [_binary(), "run", "--detach", "--label", "service=api", "--label", "zone=eu", "--",
         PYTHON, "-m", "breakroom", path],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run.communicate(timeout=30)
    try:
        launched = wait_for(lambda: [p for p in server.get("/api/processes")[1]["processes"]
                                     if path in " ".join(p["command"]) and p.get("labels")], what="the labelled process")
        assert launched[0]["labels"] == {"service": "api", "zone": "eu"}
        bad = cli("snapshot", "add", f"{path}:{line_of(source, 'SNAP')}", "--expr", "squared.bit_length(", check=False)
        assert bad.returncode != 0 and "invalid_expression" in bad.stderr + bad.stdout
        added = cli("snapshot", "add", f"{path}:{line_of(source, 'SNAP')}", "--expr", "squared % 7",
                    "--where", "service=api", "--hits", "2", "--expires", "1h").stdout
        bp = added.split()[1]
        assert bp.startswith("bp-") and "where service=api" in added and "max hits 2" in added, added
        wait_for(lambda: len(snapshots_of(server, bp)) == 2, what="2 snapshots")
        listed = cli("snapshot", "list", "--breakpoint", bp).stdout
        snap_id = listed.split()[0]
        assert snap_id.startswith("snap-") and "squared % 7 = " in listed, listed
        shown = cli("snapshot", "show", snap_id).stdout
        assert f"{snap_id} of {bp}" in shown and "in work" in shown and "squared: int = " in shown, shown
        missing = cli("snapshot", "show", "snap-999999", check=False)
        assert missing.returncode != 0 and "snapshot_not_found" in missing.stderr + missing.stdout
        bad_label = cli("run", "--label", "no value", "--", "true", check=False)
        assert bad_label.returncode != 0 and "--label" in bad_label.stderr
    finally:
        for p in server.get("/api/processes")[1]["processes"]:
            if path in " ".join(p["command"]) and p["status"] in ("running", "paused"):
                server.post(f"/api/processes/{p['id']}/stop")
