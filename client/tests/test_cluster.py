"""Several real servers on one PostgreSQL (issue 35): any server lists, and drives, the pauses
of all; breakpoints and live events reach every server. Each test has its own database in a
throwaway cluster (the `postgres_cluster` fixture)."""

import json
import os
import signal
import threading
import time
import urllib.request

import pytest

from conftest import Program, start_server

SHOP = """
    import time
    import breakroom

    @breakroom.breakpoint
    def checkout(total):
        return total * 2

    print("result", checkout(21), flush=True)
"""


@pytest.fixture
def servers(postgres_cluster):
    """`servers(n)`: n real servers on one fresh database."""
    started = []

    def start(n):
        url = postgres_cluster.fresh_database()
        for _ in range(n):
            started.append(start_server("--eval-timeout", "10", "--database-url", url))
        return started[-n:]

    yield start
    for srv in started:
        if srv.process.poll() is None:
            srv.process.terminate()
            srv.process.wait(5)


def wait_for(what, check, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen in {timeout} s")


def pause_of(srv, function_name):
    return next((p for p in srv.paused() if p["call_data"]["method_name"] == function_name), None)


def test_a_pause_held_by_one_server_is_evaluated_and_resumed_from_another(servers):
    a, b = servers(2)
    status, _ = a.post("/api/breakpoints", {"function_name": "checkout"})
    assert status == 200
    program = Program(SHOP, b)  # its held poll is on B
    try:
        on_b = wait_for("the pause on B", lambda: pause_of(b, "checkout"))
        on_a = wait_for("the pause listed on A", lambda: pause_of(a, "checkout"))
        assert on_a["id"] == on_b["id"]
        session_id = a.start_session(on_a["id"])
        assert a.output(session_id, "total * 5") == "105"
        failed = a.eval(session_id, "1 / 0")
        assert failed["is_error"] and "ZeroDivisionError" in failed["output"]
        # The transcript is B's, and both servers read it from the shared database.
        assert [e["input"] for e in b.session(session_id)["transcript"]] == ["total * 5", "1 / 0"]
        a.resume(on_a["id"])
        code, out, err = program.finish()
        assert code == 0, err
        assert "result 42" in out
        assert pause_of(a, "checkout") is None and pause_of(b, "checkout") is None
        # An unknown pause is still a clear 404 from A, not a trip to B.
        status, body = a.post("/api/repl/start", {"pause_id": "no-such-pause"})
        assert status == 404 and body["error"] == "pause_not_found"
    finally:
        program.kill()


def test_a_line_breakpoint_added_on_one_server_pauses_a_program_following_another(servers, tmp_path):
    a, b = servers(2)
    module = tmp_path / "ticker.py"
    module.write_text("def tick(n):\n    doubled = n * 2\n    return doubled\n")
    program = Program(
        f"""
        import sys, time
        sys.path.insert(0, {str(tmp_path)!r})
        import ticker
        for n in range(600):
            ticker.tick(n)
            time.sleep(0.05)
        """,
        b,
        run_with_breakroom=True,  # python -m breakroom: it follows the breakpoints of its server
    )
    try:
        time.sleep(1.5)  # the program starts and holds its breakpoint channel on B
        status, bp = a.post("/api/breakpoints", {"kind": "line", "file": str(module), "line": 3})
        assert status == 200, bp
        paused = wait_for("the line pause on B", lambda: pause_of(b, "tick"))
        assert pause_of(a, "tick")["id"] == paused["id"]
        session_id = a.start_session(paused["id"])
        assert int(a.output(session_id, "doubled")) % 2 == 0
        a.resume(paused["id"])
        again = wait_for("the next pause, decided on B", lambda: [p for p in b.paused() if p["id"] != paused["id"]])
        assert again[0]["call_data"]["method_name"] == "tick"
    finally:
        program.kill()


def test_live_events_of_every_server_reach_each_servers_stream(servers):
    a, b = servers(2)
    a.post("/api/breakpoints", {"function_name": "checkout"})
    seen = []

    def read_stream():
        with urllib.request.urlopen(a.url + "/api/live", timeout=15) as stream:
            for raw in stream:
                line = raw.decode().strip()
                if line.startswith("data:"):
                    seen.append(json.loads(line[5:]))
                    if any(e.get("type") == "pause_added" for e in seen):
                        return

    reader = threading.Thread(target=read_stream, daemon=True)
    reader.start()
    time.sleep(0.5)
    program = Program(SHOP, b)
    try:
        wait_for("A's stream shows B's pause", lambda: any(e.get("type") == "pause_added" for e in seen))
        pause = wait_for("the pause", lambda: pause_of(b, "checkout"))
        b.resume(pause["id"])
        assert program.finish()[0] == 0
    finally:
        program.kill()


def test_a_server_starting_on_the_database_leaves_the_others_pauses_open(servers, postgres_cluster):
    a, b = servers(2)
    a.post("/api/breakpoints", {"function_name": "checkout"})
    program = Program(SHOP, a)
    try:
        pause = wait_for("the pause on A", lambda: pause_of(a, "checkout"))
        b.process.terminate()
        b.process.wait(5)
        # A restart of B (the same database) must not close what A holds.
        url = [arg for arg in b.process.args if arg.startswith("postgres://")][0]
        c = start_server("--database-url", url)
        try:
            assert pause_of(c, "checkout")["id"] == pause["id"]
            session_id = c.start_session(pause["id"])
            assert c.output(session_id, "total") == "21"
            c.resume(pause["id"])
            assert "result 42" in program.finish()[1]
        finally:
            c.process.terminate()
            c.process.wait(5)
    finally:
        program.kill()


def test_a_killed_servers_paused_programs_come_back_paused_on_another_within_3_s(servers):
    a, b, c = servers(3)
    a.post("/api/breakpoints", {"function_name": "checkout"})
    # Each program is given every address, its own server first.
    addresses = lambda first: ",".join(s.url for s in [first] + [s for s in (a, b, c) if s is not first])  # noqa: E731
    programs = [Program(SHOP, b, env={"BREAKROOM_URL": addresses(b)}) for _ in range(3)]
    try:
        pids = {p.process.pid for p in programs}
        held = lambda srv: {p["call_data"]["process_pid"] for p in srv.paused() if p["call_data"]["method_name"] == "checkout"}  # noqa: E731
        wait_for("three pauses on B", lambda: held(b) == pids)
        # A session opened from C on one of B's pauses, with an eval it acknowledged.
        first = next(p for p in c.paused() if p["call_data"]["process_pid"] in pids)
        session_id = c.start_session(first["id"])
        assert c.output(session_id, "total + 1") == "22"
        b.process.kill()
        b.process.wait(5)
        killed_at = time.time()
        wait_for("the pauses back on another server", lambda: held(a) == pids and held(c) == pids, timeout=3)
        assert time.time() - killed_at < 3
        # Nothing acknowledged is lost: the eval C made through B is in the shared history.
        assert [e["output"] for e in c.session(session_id)["transcript"]] == ["22"]
        for pause in [p for p in c.paused() if p["call_data"]["process_pid"] in pids]:
            new_session = c.start_session(pause["id"])
            assert c.output(new_session, "total") == "21"
            c.resume(pause["id"])
        for program in programs:
            code, out, err = program.finish()
            assert code == 0, err
            assert "result 42" in out
    finally:
        for program in programs:
            program.kill()


def test_a_hung_servers_paused_programs_are_drivable_on_another_and_it_lets_go_when_it_wakes(servers):
    a, b = servers(2)
    a.post("/api/breakpoints", {"function_name": "checkout"})
    program = Program(SHOP, b, env={"BREAKROOM_URL": f"{b.url},{a.url}"})
    try:
        pid = program.process.pid
        mine = lambda srv: [p for p in srv.paused() if p["call_data"]["process_pid"] == pid]  # noqa: E731
        before = wait_for("the pause on B", lambda: mine(b))[0]
        session_id = a.start_session(before["id"])
        assert a.output(session_id, "total + 1") == "22"
        # B hangs: its process and its database connections stay open, it answers nothing.
        os.kill(b.process.pid, signal.SIGSTOP)
        hung_at = time.time()
        try:
            moved = wait_for(
                "the pause listed on A again, under a new id",
                lambda: [p for p in mine(a) if p["id"] != before["id"]],
                timeout=30,
            )
            print(f"drivable on A {time.time() - hung_at:.1f} s after B hung")
            assert len(mine(a)) == 1, mine(a)  # B's stale pause is not listed beside it
            new_session = a.start_session(moved[0]["id"])
            assert a.output(new_session, "total") == "21"
        finally:
            os.kill(b.process.pid, signal.SIGCONT)
        # B wakes to an expired lease: it closes what it held, so no pause is listed twice.
        wait_for("B's old pause closed", lambda: b.session(session_id).get("closed_at"), timeout=15)
        assert [p["id"] for p in mine(b)] == [moved[0]["id"]]
        assert [p["id"] for p in mine(a)] == [moved[0]["id"]]
        # What was acknowledged before the hang is kept.
        assert [e["output"] for e in a.session(session_id)["transcript"]] == ["22"]
        a.resume(moved[0]["id"])
        code, out, err = program.finish()
        assert code == 0, err
        assert "result 42" in out
    finally:
        program.kill()
