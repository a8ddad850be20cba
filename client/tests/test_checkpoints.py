"""Time travel (issue 20) on real processes: step back (several times, with REPL changes before
and after Continue, and with no checkpoint to go back to), then checkpoint, rewind, branch,
switch, diff and timeline, threads refused, the cap, checkpoints gone after stop."""

import os
import time

import pytest

from conftest import Program

# A program whose global list grows on each call: a step back shows the list as it was.
STEPS = """
    import breakroom

    history = []

    @breakroom.breakpoint
    def step(i):
        history.append(i)
        return len(history)

    for i in range(5):
        step(i)
    print("done", history)
"""

CHECKPOINTS = {"BREAKROOM_CHECKPOINTS": "1"}


def gone(pid):
    """The pid names no process, or a zombie (it exited, not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_until(check, what, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")


class Travel:
    """A program run with checkpoints on, driven through the REST API like the browser does."""

    def __init__(self, server, source=STEPS, env=CHECKPOINTS):
        self.server = server
        self.program = Program(source, server, env)
        self.pid = self.program.process.pid
        self.process_id = None

    def pause(self, function_name="step", pid=None):
        pause = self.server.wait_for_pause(function_name, pid=pid or self.pid)
        if self.process_id is None:
            self.process_id = self.process_of(pause["call_data"]["process_pid"])
        return pause

    def process_of(self, pid):
        for p in self.server.get("/api/processes")[1]["processes"]:
            if p["pid"] == pid:
                return p["id"]
        raise AssertionError(f"no process record for pid {pid}")

    def process(self):
        return self.server.get(f"/api/processes/{self.process_id}")[1]

    def value(self, pause_id, expr):
        session = self.server.start_session(pause_id)
        return self.server.output(session, expr)

    def step_back(self, pause_id, **body):
        return self.server.post(f"/api/paused/{pause_id}/step-back", body)

    def timeline(self):
        status, body = self.server.get(f"/api/processes/{self.process_id}/timeline")
        assert status == 200, body
        return body

    def pause_at(self, pause_id):
        for p in self.server.paused():
            if p["id"] == pause_id:
                return p
        raise AssertionError(f"pause {pause_id} is not paused")

    def end(self):
        if self.process_id is not None:
            self.server.post(f"/api/processes/{self.process_id}/stop")
        self.program.kill()


@pytest.fixture
def travel(server):
    runs = []

    def start(source=STEPS, env=CHECKPOINTS):
        run = Travel(server, source, env)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.end()


def test_step_back_returns_to_the_earlier_pause_with_the_list_as_it_was(travel, server):
    t = travel()
    first = t.pause()
    assert server.resume(first["id"])["checkpoint"] == {"status": "snapshot"}
    second = t.pause()
    server.resume(second["id"])
    third = t.pause()
    assert t.value(third["id"], "history") == "[0, 1]"

    status, back = t.step_back(third["id"])
    assert status == 200, back
    assert back["pause_id"] != third["id"] and back["pid"] != t.pid
    again = t.pause_at(back["pause_id"])
    assert again["call_data"]["method_name"] == "step"
    assert t.value(back["pause_id"], "(i, history)") == "(1, [0])"
    # The abandoned line is killed; the process lives on in the new one, not lost or crashed.
    wait_until(lambda: gone(t.pid), "the abandoned line ended")
    time.sleep(1.5)  # the liveness check runs every second
    process = t.process()
    assert process["status"] == "paused" and process["pid"] == back["pid"], (process, back)
    kinds = [e["type"] for e in server.get("/api/events")[1]["events"] if e.get("data", {}).get("pause_id") == back["pause_id"]]
    assert "rewind" in kinds


def test_stepping_back_several_times_walks_back_to_the_first_pause_then_says_there_is_none(travel, server):
    t = travel()
    for _ in range(3):
        server.resume(t.pause()["id"])
    pause_id = t.pause()["id"]
    assert t.value(pause_id, "i") == "3"
    for expected in ("2", "1", "0"):
        status, back = t.step_back(pause_id)
        assert status == 200, back
        pause_id = back["pause_id"]
        assert t.value(pause_id, "(i, len(history))") == f"({expected}, {expected})"
    status, body = t.step_back(pause_id)
    assert status == 409 and body["error"] == "no_checkpoint", body
    assert "checkpoint" in body["message"]


def test_a_repl_change_made_before_continue_is_kept_and_one_made_after_is_lost(travel, server):
    t = travel()
    first = t.pause()
    session = server.start_session(first["id"])
    server.output(session, "history.append('before')")
    server.output(session, "note = 'made before Continue'")
    server.resume(first["id"])
    second = t.pause()
    later = server.start_session(second["id"])
    assert server.output(later, "history") == "['before', 0]"
    server.output(later, "history.append('after')")

    status, back = t.step_back(second["id"])
    assert status == 200, back
    # The REPL session's own names came back too, in the new pause's sessions.
    assert t.value(back["pause_id"], "(history, note)") == "(['before'], 'made before Continue')"
    # Forward again: the program runs on from the snapshot's memory.
    server.resume(back["pause_id"])
    nxt = t.pause(pid=back["pid"])
    assert t.value(nxt["id"], "history") == "['before', 0]"


def test_step_back_without_checkpoints_is_a_conflict_with_the_reason(travel, server):
    t = travel(env={})
    first = t.pause()
    server.resume(first["id"])
    second = t.pause()
    status, body = t.step_back(second["id"])
    assert status == 409 and body["error"] == "no_checkpoint", body
    assert "BREAKROOM_CHECKPOINTS=1" in body["message"]
    # And with checkpoints on, the first pause has nothing before it.
    on = travel()
    status, body = on.step_back(on.pause()["id"])
    assert status == 409 and body["error"] == "no_checkpoint", body
    status, body = server.post("/api/paused/no-such-pause/step-back")
    assert status == 404, body


THREADED = """
    import threading, time
    import breakroom

    stop = threading.Event()
    threading.Thread(target=stop.wait, name="worker", daemon=True).start()

    @breakroom.breakpoint
    def step(i):
        return i

    print("result", step(1))
    stop.set()
"""


def test_a_process_with_threads_is_refused_and_its_continue_still_runs(travel, server):
    t = travel(THREADED)
    pause = t.pause()
    reply = server.resume(pause["id"])
    assert reply["checkpoint"]["status"] == "refused"
    assert "threads" in reply["checkpoint"]["reason"] and "threads='allow'" in reply["checkpoint"]["reason"]
    code, out, _ = t.program.finish()
    assert code == 0 and "result 1" in out
    timeline = t.timeline()
    assert timeline["checkpoints"] == []
    assert timeline["refusals"][0]["pause_id"] == pause["id"]
    events = server.get("/api/events")[1]["events"]
    assert any(e["type"] == "checkpoint" and e["data"].get("refused") for e in events)


def test_threads_allow_snapshots_a_threaded_process(travel, server):
    source = THREADED.replace("    import breakroom\n", "    import breakroom\n    breakroom.checkpoints(True, threads='allow')\n")
    t = travel(source, env={})
    pause = t.pause()
    assert server.resume(pause["id"])["checkpoint"] == {"status": "snapshot"}
    wait_until(lambda: len(t.timeline()["checkpoints"]) == 1, "one checkpoint")


def test_the_cap_drops_the_oldest_snapshots_and_ends_their_processes(travel, server):
    t = travel(env={**CHECKPOINTS, "BREAKROOM_CHECKPOINT_CAP": "2"})
    for _ in range(4):
        server.resume(t.pause()["id"])
    t.pause()
    timeline = t.timeline()
    assert timeline["cap"] == 2
    statuses = [c["status"] for c in timeline["checkpoints"]]
    assert statuses == ["dropped", "dropped", "held", "held"], statuses
    for cp in timeline["checkpoints"]:
        if cp["status"] == "dropped":
            wait_until(lambda: gone(cp["pid"]), f"dropped snapshot {cp['pid']} ended")
        else:
            assert not gone(cp["pid"]) and cp["memory_bytes"] > 0
    assert timeline["memory_bytes"] == sum(c["memory_bytes"] or 0 for c in timeline["checkpoints"])


def test_snapshots_outlive_the_program_and_end_when_it_is_stopped(travel, server):
    t = travel()
    for _ in range(5):
        server.resume(t.pause()["id"])
    wait_until(lambda: gone(t.pid), "the program finished")
    wait_until(lambda: t.process()["status"] == "lost", "the process is seen ended")
    cps = t.timeline()["checkpoints"]
    assert len(cps) == 5 and all(not gone(c["pid"]) for c in cps)
    # Back after the end: the third checkpoint's call pauses again, the process runs again.
    status, back = server.post(f"/api/checkpoints/{cps[2]['id']}/rewind")
    assert status == 200, back
    assert t.value(back["pause_id"], "(i, history)") == "(2, [0, 1])"
    assert t.process()["status"] == "paused"
    status, _ = server.post(f"/api/processes/{t.process_id}/stop")
    assert status == 200
    for cp in cps:
        wait_until(lambda: gone(cp["pid"]), f"snapshot {cp['pid']} ended")
    wait_until(lambda: gone(back["pid"]), "the woken line ended")
    assert {c["status"] for c in t.timeline()["checkpoints"]} == {"ended"}
    status, body = server.post(f"/api/checkpoints/{cps[0]['id']}/rewind")
    assert status == 409 and body["error"] == "checkpoint_ended", body


def test_branch_keeps_the_line_left_paused_and_switch_and_diff_compare_them(travel, server):
    t = travel()
    server.resume(t.pause()["id"])
    server.resume(t.pause()["id"])
    main_pause = t.pause()["id"]
    server.output(server.start_session(main_pause), "'on main'")

    status, back = t.step_back(main_pause, keep=True, name="retry")
    assert status == 200, back
    assert back["branch"] == "retry" and back["abandoned_kept"] is True
    assert not gone(t.pid)
    t.pause_at(main_pause)  # still paused
    session = server.start_session(back["pause_id"])
    server.output(session, "history.append('tried')")
    server.resume(back["pause_id"])
    t.pause(pid=back["pid"])

    timeline = t.timeline()
    branches = {b["name"]: b for b in timeline["branches"]}
    assert branches["retry"]["live"] and branches["retry"]["fork_point"] == back["checkpoint_id"]
    assert not branches["main"]["live"] and branches["main"]["kept_pause"] == main_pause
    assert timeline["live"]["branch"] == "retry"

    status, diff = server.get(f"/api/processes/{t.process_id}/branches/diff?a=main&b=retry")
    assert status == 200, diff
    assert diff["fork_point"] == back["checkpoint_id"]
    assert "'on main'" in [e["input"] for e in diff["a"]["transcript"]]
    assert "history.append('tried')" in [e["input"] for e in diff["b"]["transcript"]]
    assert [c["function_name"] for c in diff["b"]["calls"]] == ["step", "step"]

    status, switched = server.post(f"/api/processes/{t.process_id}/branches/main/switch")
    assert status == 200, switched
    assert switched["pause_id"] == main_pause and switched["pid"] == t.pid
    assert t.timeline()["live"]["branch"] == "main"
    status, body = server.post(f"/api/processes/{t.process_id}/branches/nope/switch")
    assert status == 404 and body["error"] == "branch_not_found"
    status, body = server.post(f"/api/checkpoints/{back['checkpoint_id']}/branch", {"name": "retry"})
    assert status == 409 and body["error"] == "branch_exists", body
    status, body = server.get(f"/api/processes/{t.process_id}/branches/diff?a=main")
    assert status == 400 and body["error"] == "missing_branch"


def test_a_named_checkpoint_is_taken_while_paused_and_rewound_to(travel, server):
    t = travel()
    first = t.pause()
    status, cp = server.post(f"/api/processes/{t.process_id}/checkpoints", {"label": "clean"})
    assert status == 200, cp
    assert cp["named"] and cp["label"] == "clean" and cp["pause_id"] == first["id"]
    server.output(server.start_session(first["id"]), "history.append('dirty')")
    server.resume(first["id"])
    later = t.pause()
    status, back = server.post(f"/api/checkpoints/{cp['id']}/rewind")
    assert status == 200, back
    assert t.value(back["pause_id"], "(i, history)") == "(0, [])"
    wait_until(lambda: gone(t.pid), "the rewound line ended")
    status, body = server.get("/api/processes/nope/timeline")
    assert status == 404
    assert later["id"] not in [p["id"] for p in server.paused()]


FRAME = """
    import breakroom
    breakroom.checkpoints(True)

    def work():
        total = 0
        for n in range(3):
            total += n
            breakroom.set_trace()
        print("total", total)

    work()
"""


def test_set_trace_pauses_step_back_into_the_same_frame_with_its_locals(travel, server):
    t = travel(FRAME, env={})
    first = t.pause("work")
    session = server.start_session(first["id"])
    server.output(session, "total = 100")
    server.resume(first["id"])
    second = t.pause("work")
    assert t.value(second["id"], "(n, total)") == "(1, 101)"
    status, back = t.step_back(second["id"])
    assert status == 200, back
    assert t.value(back["pause_id"], "(n, total)") == "(0, 100)"


def cli(server, *args):
    from conftest import _binary
    import subprocess

    done = subprocess.run(
        [_binary(), *args], capture_output=True, text=True, timeout=30, env={**os.environ, "BREAKROOM_URL": server.url}
    )
    return done.returncode, done.stdout + done.stderr


def test_the_command_line_lists_rewinds_branches_diffs_and_draws_the_timeline(travel, server):
    t = travel()
    server.resume(t.pause()["id"])
    server.resume(t.pause()["id"])
    t.pause()
    code, out = cli(server, "checkpoint", "list", "--process", t.process_id)
    assert code == 0 and out.count("held") == 2, out
    # Without --process: the process with the newest checkpoint, which is this one.
    assert cli(server, "checkpoint", "list") == (0, out)
    first = t.timeline()["checkpoints"][0]["id"]
    code, out = cli(server, "branch", first, "again")
    assert code == 0 and "branched at" in out and "kept paused" in out, out
    code, out = cli(server, "branch", "list", "--process", t.process_id)
    assert code == 0 and "again" in out and "live" in out and "kept paused" in out, out
    code, out = cli(server, "timeline", "--process", t.process_id)
    assert code == 0 and "main" in out and "again" in out and "[live]" in out and "not rewound" in out, out
    code, out = cli(server, "diff", "main", "again", "--process", t.process_id)
    assert code == 0 and f"fork point: {first}" in out and "== again ==" in out, out
    code, out = cli(server, "switch", "main", "--process", t.process_id)
    assert code == 0 and "switched to" in out, out
    code, out = cli(server, "rewind", first)
    assert code == 0 and "rewound to" in out and "killed" in out, out
    code, out = cli(server, "rewind", "cp-999999")
    assert code != 0 and "checkpoint_not_found" in out, out


def test_breakroom_run_with_checkpoints_turns_them_on(server, tmp_path):
    import re

    from conftest import CLIENT_DIR

    script = tmp_path / "prog.py"
    script.write_text("import breakroom\n\n@breakroom.breakpoint\ndef step(i):\n    return i\n\nstep(1)\nstep(2)\n")
    code, out = cli(server, "run", "--checkpoints", "--detach", "--env", f"PYTHONPATH={CLIENT_DIR}", "--", "python3", str(script))
    assert code == 0, out
    process_id = re.search(r"is process (\S+):", out).group(1)
    wait_until(lambda: server.get(f"/api/processes/{process_id}")[1].get("pid"), "the launched program has a pid")
    pid = server.get(f"/api/processes/{process_id}")[1]["pid"]
    try:
        pause = server.wait_for_pause("step", pid=pid)
        assert server.resume(pause["id"])["checkpoint"] == {"status": "snapshot"}
        second = server.wait_for_pause("step", pid=pid)
        status, back = server.post(f"/api/paused/{second['id']}/step-back")
        assert status == 200, back
        assert back["process_id"] == process_id
        server.resume(back["pause_id"])
        server.resume(server.wait_for_pause("step", pid=back["pid"])["id"])
    finally:
        server.post(f"/api/processes/{process_id}/stop")


def test_the_pages_offer_step_back_and_its_form_opens_a_repl_where_it_went_back_to(travel, server):
    import http.client
    import urllib.parse
    import urllib.request

    t = travel()
    first = t.pause()
    page = lambda path: urllib.request.urlopen(server.url + path, timeout=30).read().decode()  # noqa: E731
    assert "step_back_form" not in page("/")  # nothing before the first pause
    server.resume(first["id"])
    second = t.pause()
    session = server.start_session(second["id"])
    assert f'name="pause_id" value="{second["id"]}"' in page("/")
    assert "Step back" in page(f"/repl/{session}")
    assert "<svg" in page(f"/process/{t.process_id}/timeline")

    url = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    body = urllib.parse.urlencode({"pause_id": second["id"], "repl": "1"})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "text/html",
        "Referer": f"{server.url}/repl/{session}",
        "Origin": server.url,
    }
    conn.request("POST", "/rpc/step_back_form", body, headers)
    answer = conn.getresponse()
    answer.read()
    assert answer.status in (302, 303), answer.status
    new_session = answer.getheader("Location").rsplit("/", 1)[-1]
    assert new_session != session
    reopened = server.session(new_session)
    assert reopened["pause_id"] != second["id"]
    assert server.output(new_session, "(i, history)") == "(0, [])"
