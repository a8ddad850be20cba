"""History survives the server: restarts, and kill -9 in the middle of a burst of evals."""

import os
import re
import signal
import socket
import threading
import time
import urllib.parse

from conftest import METHOD, pause_program, start_server

COMPUTE = """
    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    print("result:", compute(6, 7))
"""


def restart(server, kill=False):
    """Stops `server` and starts another on the same data directory and, if free, the same port."""
    port = urllib.parse.urlsplit(server.url).port
    if kill:
        server.process.send_signal(signal.SIGKILL)
    else:
        server.process.terminate()
    server.process.wait(10)
    again = start_server("--port", str(port), "--eval-timeout", "10", data_dir=server.data_dir)
    return again


def stop(server):
    if server.process.poll() is None:
        server.process.terminate()
        server.process.wait(10)


def test_sessions_transcripts_cids_and_breakpoints_survive_a_restart():
    server = start_server("--eval-timeout", "10")
    paused = pause_program(server, COMPUTE, "compute")
    try:
        assert paused.output("a * b") == "42"
        assert paused.eval("print('hi')")["stdout"] == "hi\n"
        assert paused.eval("1/0")["is_error"]
        status, _ = server.post("/api/breakpoints/compute/after_behavior", {"behavior": "go"})
        assert status == 200
        status, _ = server.post("/api/breakpoints", {"function_name": "audit"})
        assert status == 200
        arg_cid = paused.pause["call_data"]["args"][0]["cid"]
        process_key = paused.pause["call_data"]["process_key"]
        before = server.session(paused.session_id)
        paused.resume()
        code, out, _ = paused.finish()
        assert (code, out) == (0, "result: 43\n")

        again = restart(server)
        try:
            after = again.session(paused.session_id)
            assert after["transcript"] == before["transcript"]
            assert after["closed_at"] is not None and after.get("closed_reason") is None
            listed = again.get("/api/repl/sessions?search=print")[1]["sessions"]
            assert [s["session_id"] for s in listed] == [paused.session_id]
            status, obj = again.get(f"/api/objects/{arg_cid}")
            assert status == 200 and obj["display"] == "6", obj
            breakpoints = again.get("/api/breakpoints")[1]
            assert {"compute", "audit"} <= set(breakpoints["breakpoints"]), breakpoints
            assert again.get("/api/breakpoints/compute/history")[1]["history"][0]["call_data"]["status"] == "success"
            tree = urllib_text(again.url + f"/call-tree/{urllib.parse.quote(process_key, safe='')}")
            assert "compute" in tree and paused.session_id in tree
        finally:
            stop(again)
    finally:
        paused.program.kill()
        stop(server)


def urllib_text(url):
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read().decode()


def test_live_sessions_come_back_closed_and_the_paused_program_tells_its_pause_again():
    server = start_server("--eval-timeout", "10")
    paused = pause_program(server, METHOD, "checkout")
    try:
        assert paused.output("discount") == "5"
        old_pause = paused.pause["id"]
        again = restart(server, kill=True)
        try:
            session = again.session(paused.session_id)
            assert session["closed_at"] is not None
            assert session["closed_reason"] == "server restarted"
            assert session["transcript"][0]["output"] == "5"
            status, body = again.post(f"/api/repl/{paused.session_id}/eval", {"expr": "1"})
            assert (status, body["error"]) == (409, "session_closed")
            # The program, still polling the same address, tells its pause again (issue 32).
            assert again.url == server.url
            back = again.wait_for_pause("checkout", pid=paused.program.process.pid)
            assert back["id"] != old_pause and back["call_data"]["stop"]["reconnected_from"] == old_pause
            assert [p["id"] for p in again.paused()] == [back["id"]]
            new_session = again.start_session(back["id"])
            assert again.output(new_session, "discount") == "5", "the same call, its arguments as they were"
            again.resume(back["id"])
            code, out, _ = paused.finish()
            assert (code, out) == (0, "checkout: 2\n")
        finally:
            stop(again)
    finally:
        paused.program.kill()
        stop(server)


def test_kill_9_during_a_burst_of_evals_loses_no_acknowledged_entry():
    server = start_server("--eval-timeout", "10")
    paused = pause_program(server, COMPUTE, "compute")
    acknowledged = {}
    lock = threading.Lock()
    stop_flag = threading.Event()
    sessions = [paused.session_id, paused.new_session(), paused.new_session()]

    def burst(worker, session_id):
        for i in range(100_000):
            if stop_flag.is_set():
                return
            expr = f"{worker} * 1000 + {i}"
            try:
                status, body = server.post(f"/api/repl/{session_id}/eval", {"expr": expr}, timeout=5)
            except (OSError, Exception):
                return
            if status != 200:
                return
            with lock:
                acknowledged[(session_id, expr)] = body["output"]

    threads = [threading.Thread(target=burst, args=(w, sid)) for w, sid in enumerate(sessions)]
    try:
        for t in threads:
            t.start()
        deadline = time.time() + 10
        while len(acknowledged) < 150 and time.time() < deadline:
            time.sleep(0.01)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(10)
        stop_flag.set()
        for t in threads:
            t.join(10)
        assert len(acknowledged) >= 150, len(acknowledged)

        again = start_server("--eval-timeout", "10", data_dir=server.data_dir)
        try:
            recorded = {}
            for sid in sessions:
                for entry in again.session(sid)["transcript"]:
                    recorded[(sid, entry["input"])] = entry["output"]
            lost = {k: v for k, v in acknowledged.items() if recorded.get(k) != v}
            assert not lost, f"{len(lost)} acknowledged entries lost, e.g. {list(lost.items())[:3]}"
            for (sid, expr), output in acknowledged.items():
                assert output == str(eval(expr))
        finally:
            stop(again)
    finally:
        stop_flag.set()
        paused.program.kill()
        stop(server)
