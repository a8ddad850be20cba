"""`breakroom replay` and `breakroom export` on a recorded run of a real program."""

import json
import re
import subprocess
import time

import pytest

from conftest import _binary, pause_program, start_server

PROGRAM = """
    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    print("result:", compute(6, 7))
"""


@pytest.fixture(scope="module")
def recorded():
    """A data directory holding one paused call, one REPL session with four evals, and the resume."""
    server = start_server("--eval-timeout", "10")
    paused = pause_program(server, PROGRAM, "compute")
    try:
        for expr in ["x = 5", "x + 1", "print('hi')", "1/0"]:
            paused.eval(expr)
        paused.server.close(paused.session_id)
        paused.resume()
        assert paused.finish()[0] == 0
        yield {
            "data_dir": server.data_dir,
            "session_id": paused.session_id,
            "process_key": paused.pause["call_data"]["process_key"],
        }
    finally:
        paused.program.kill()
        server.process.terminate()
        server.process.wait(10)


def breakroom(*args, data_dir=None, check=True):
    cmd = [_binary(), *args] + (["--data-dir", data_dir] if data_dir else [])
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def kinds(output):
    return [line.split()[2] for line in output.splitlines() if line.startswith("#")]


def sequences(output):
    return [int(line.split()[0][1:]) for line in output.splitlines() if line.startswith("#")]


def test_replay_session_prints_its_events_in_order_and_a_closing_line(recorded):
    out = breakroom("replay", recorded["session_id"], data_dir=recorded["data_dir"]).stdout
    assert kinds(out) == ["session_start"] + ["eval_request", "eval_result"] * 4 + ["session_close"]
    assert sequences(out) == sorted(sequences(out))
    assert ">>> x + 1" in out and "] 6" in out
    assert "] hi" in out
    assert "] !! ZeroDivisionError: division by zero" in out
    assert out.rstrip().splitlines()[-1] == "--- Replay complete: 10 of 10 events ---"


def test_replay_process_shows_the_call_from_start_to_completion(recorded):
    out = breakroom("replay", recorded["process_key"], data_dir=recorded["data_dir"]).stdout
    got = kinds(out)
    assert got[:3] == ["process_seen", "call_start", "pause"]
    assert got[-2:] == ["resume", "call_complete"]
    assert "compute(6, 7)" in out and "compute returned 43" in out


def test_replay_filter_keeps_only_the_named_types(recorded):
    out = breakroom("replay", "--filter", "eval_request,session_close", recorded["session_id"], data_dir=recorded["data_dir"]).stdout
    assert kinds(out) == ["eval_request"] * 4 + ["session_close"]
    assert "Replay complete: 5 of 10 events" in out


def test_replay_rejects_unknown_filter_types_and_speeds(recorded):
    bad_filter = breakroom("replay", "--filter", "tool_call", recorded["session_id"], check=False)
    assert bad_filter.returncode == 2 and "known types" in bad_filter.stderr
    bad_speed = breakroom("replay", "--speed", "fast", recorded["session_id"], check=False)
    assert bad_speed.returncode == 2 and "2x or 0.5x" in bad_speed.stderr


def test_replay_from_sequence_starts_there(recorded):
    all_seqs = sequences(breakroom("replay", recorded["session_id"], data_dir=recorded["data_dir"]).stdout)
    start = all_seqs[5]
    out = breakroom("replay", "--from-sequence", str(start), recorded["session_id"], data_dir=recorded["data_dir"]).stdout
    assert sequences(out) == all_seqs[5:]


def test_replay_of_an_unknown_target_says_what_it_looked_for(recorded):
    done = breakroom("replay", "999-1.000000", data_dir=recorded["data_dir"], check=False)
    assert done.returncode == 1
    assert "no REPL session or process" in done.stderr


def test_export_then_replay_of_the_file_is_identical(recorded, tmp_path):
    exported = breakroom("export", recorded["session_id"], data_dir=recorded["data_dir"]).stdout
    lines = [json.loads(line) for line in exported.splitlines()]
    assert [e["type"] for e in lines][0] == "session_start"
    assert all({"sequence", "timestamp", "type", "session_id", "data"} <= set(e) for e in lines)
    path = tmp_path / "events.jsonl"
    path.write_text(exported)
    from_db = breakroom("replay", recorded["session_id"], data_dir=recorded["data_dir"]).stdout
    from_file = breakroom("replay", str(path)).stdout
    assert from_file == from_db
    # And the file exports nothing new when read back and written again.
    assert [json.loads(line) for line in path.read_text().splitlines()] == lines


def paced_file(tmp_path, gaps):
    t = 1_795_000_000.0
    events = []
    for seq, gap in enumerate([0.0, *gaps], start=1):
        t += gap
        events.append({"sequence": seq, "timestamp": t, "type": "eval_request", "process_key": "1+2.0",
                       "session_id": "1-2.000000", "data": {"expr": f"step {seq}"}})
    path = tmp_path / "paced.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def timed_run(*args):
    started = time.monotonic()
    out = breakroom("replay", *args).stdout
    return time.monotonic() - started, out


def test_replay_timed_follows_the_original_pacing(tmp_path):
    path = paced_file(tmp_path, [0.4, 0.4])
    untimed, _ = timed_run(path)
    timed, out = timed_run("--timed", path)
    assert kinds(out) == ["eval_request"] * 3
    assert timed >= 0.8 > untimed


def test_replay_speed_scales_the_pacing(tmp_path):
    path = paced_file(tmp_path, [0.4, 0.4])
    fast, _ = timed_run("--timed", "--speed", "4x", path)
    slow, _ = timed_run("--timed", "--speed", "0.5x", path)
    assert 0.2 <= fast < 0.7
    assert slow >= 1.6
