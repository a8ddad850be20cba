"""Eval Threading and Timeout: each eval runs in its own daemon
thread with a timeout, so a runaway eval never takes the paused program down with it."""

import threading
import time

from conftest import FRAME, pause_program, start_server

SHORT = {"BREAKROOM_EVAL_TIMEOUT": "0.5"}


def test_eval_runs_in_background_thread(frame_pause):
    body = frame_pause.eval("import threading; (threading.current_thread().name, threading.current_thread() is threading.main_thread())")
    assert body["output"] == "('breakroom-eval', False)"


def test_eval_timeout_returns_error_message(paused):
    p = paused(FRAME, "process", env=SHORT)
    started = time.monotonic()
    body = p.eval("import time; time.sleep(5)")
    assert body["output"] == "TimeoutError: evaluation timed out" and body["is_error"]
    assert time.monotonic() - started < 3


def test_eval_timeout_does_not_block_polling_loop(paused):
    p = paused(FRAME, "process", env=SHORT)
    p.eval("import time; time.sleep(10)")
    started = time.monotonic()
    p.resume()
    code, out, _ = p.finish()
    # The resume reached the client at once although the abandoned eval is still sleeping.
    assert code == 0 and out.startswith("after:")
    assert time.monotonic() - started < 3


def test_eval_timeout_session_remains_active_after_timeout(paused):
    p = paused(FRAME, "process", env=SHORT)
    p.eval("import time; time.sleep(5)")
    assert p.output("total") == "6"
    assert p.server.session(p.session_id)["closed_at"] is None


def test_eval_timeout_configurable_per_server():
    server = start_server("--eval-timeout", "2")
    try:
        p = pause_program(server, FRAME, "process")
        started = time.monotonic()
        body = p.eval("import time; time.sleep(30)")
        elapsed = time.monotonic() - started
        # The client follows the server's timeout and answers just before it, so the user
        # gets the client's clear error rather than a 504.
        assert body["output"] == "TimeoutError: evaluation timed out"
        assert 1.0 < elapsed < 2.0, elapsed
        p.program.kill()
    finally:
        server.process.kill()
        server.process.wait()


def test_eval_fast_expression_completes_before_timeout(paused):
    p = paused(FRAME, "process", env=SHORT)
    assert p.output("sum(range(10000))") == "49995000"


def test_eval_abandoned_thread_does_not_crash_client(paused):
    source = FRAME.replace("process(7)", "process(7)\n    import time; time.sleep(1.5); print('still fine')")
    p = paused(source, "process", env=SHORT)
    body = p.eval("import time; time.sleep(1); print('late output'); 'late result'")
    assert body["output"] == "TimeoutError: evaluation timed out"
    time.sleep(0.8)  # the abandoned eval finishes now, with nowhere to report
    assert p.output("1 + 1") == "2"
    assert [e["output"] for e in p.server.session(p.session_id)["transcript"]] == ["TimeoutError: evaluation timed out", "2"]
    p.resume()
    code, out, err = p.finish()
    assert code == 0 and out.endswith("still fine\n") and "Traceback" not in err, err


def test_eval_concurrent_request_waits_for_previous(frame_pause):
    s = frame_pause.new_session()
    frame_pause.eval("import time; log = []", s)
    first = threading.Thread(target=frame_pause.eval, args=("time.sleep(0.4); log.append('first')", s))
    first.start()
    time.sleep(0.1)
    frame_pause.eval("log.append('second')", s)
    first.join()
    assert frame_pause.output("log", s) == "['first', 'second']"
