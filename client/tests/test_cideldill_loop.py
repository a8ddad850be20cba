"""An unchanged cideldill client's pause loop (docs/src/protocol.md §5.6, §6) against Breakroom: evals
reach it as soon as it can take them, and a paused client that has nothing to do is parked in
the server's long-poll instead of spinning. `cideldill_driver.ProtocolDriver` plays the client
request for request; what is asserted here is behaviour (answers, request counts), not speed —
`client/bench/cideldill_loop.py` measures that."""

import threading
import time

from cideldill_driver import ProtocolDriver
from conftest import start_server


def paused_driver(server, name, **kw):
    driver = ProtocolDriver(server.url, name, **kw)
    thread = driver.start()
    return driver, thread, server.start_session(driver.pause_id)


def stop(server, driver, thread):
    server.resume(driver.pause_id)
    thread.join(10)
    assert not thread.is_alive()


def test_server_asks_the_client_not_to_sleep_between_polls(server):
    driver, thread, _ = paused_driver(server, "no_sleep")
    try:
        assert driver.poll_interval_ms == 0
    finally:
        stop(server, driver, thread)


def test_back_to_back_evals_need_no_extra_polls(server):
    driver, thread, session = paused_driver(server, "back_to_back")
    try:
        for i in range(50):
            assert server.output(session, f"total * {i}") == str(6 * i)
        assert server.output(session, "x = 5") == ""
        assert server.output(session, "x + order_id") == "12"
        # One poll that announces each eval and one parked while it runs; the in-flight flag can
        # cost a retry or two. A client that spun would make hundreds.
        assert driver.counts["evals"] == 52
        assert driver.counts["poll"] <= 52 * 4, driver.counts
    finally:
        stop(server, driver, thread)


def test_idle_paused_client_is_parked_not_polling(server):
    driver, thread, session = paused_driver(server, "idle")
    try:
        assert server.output(session, "total") == "6"
        before = dict(driver.counts)
        time.sleep(1.5)
        # Parked in one long-poll (held 25 s by default): no new request at all.
        assert driver.counts["poll"] - before["poll"] <= 1, (before, driver.counts)
        assert driver.counts["poll_repl"] == before["poll_repl"]
    finally:
        stop(server, driver, thread)


def test_eval_arriving_while_the_previous_result_is_being_posted_is_handed_out_on_the_next_poll(server):
    # The next eval is sent while the client's eval thread still holds its in-flight flag (it has
    # posted the result but not yet cleared the flag): the client skips poll-repl once, and the
    # eval must be announced again on its next poll, not after the 25 s hold.
    window_open = threading.Event()
    release = threading.Event()

    def hold_flag():
        window_open.set()
        release.wait(5)

    driver, thread, session = paused_driver(server, "inflight_window", after_post=hold_flag)
    try:
        first = threading.Thread(target=server.output, args=(session, "total"))
        first.start()
        assert window_open.wait(5)
        first.join(5)
        answer = {}
        second = threading.Thread(target=lambda: answer.update(out=server.output(session, "total + 1")))
        second.start()
        time.sleep(0.2)  # the client sees the second eval while its flag is still set
        assert "out" not in answer
        release.set()
        second.join(5)
        assert answer.get("out") == "7", "the eval waited for a long-poll timeout"
    finally:
        release.set()
        stop(server, driver, thread)


def test_client_still_running_an_abandoned_eval_is_parked_until_it_answers():
    # The server gives up on an eval after 1 s; the cideldill client runs it to the end (its own
    # timeout is 30 s) and takes nothing new meanwhile. The next eval must wait for it without
    # the client spinning on polls that announce an eval it cannot take.
    server = start_server("--eval-timeout", "1")
    try:
        driver, thread, session = paused_driver(server, "abandoned")
        status, body = server.post(f"/api/repl/{session}/eval", {"expr": "__import__('time').sleep(2.5)"})
        assert status == 504, body
        polls_before = driver.counts["poll"]
        # Sent at ~1 s, the client is busy until ~2.5 s, the server gives up on it at ~2 s.
        status, body = server.post(f"/api/repl/{session}/eval", {"expr": "total"})
        assert status == 504, body
        status, body = server.post(f"/api/repl/{session}/eval", {"expr": "total * 2"})
        assert (status, body["output"]) == (200, "12")
        assert driver.counts["poll"] - polls_before <= 8, driver.counts
        stop(server, driver, thread)
    finally:
        server.process.kill()
        server.process.wait()


def test_resume_reaches_a_parked_client_at_once(server):
    driver, thread, session = paused_driver(server, "resume_parked")
    assert server.output(session, "total") == "6"
    time.sleep(0.3)  # parked in the long-poll now
    server.resume(driver.pause_id)
    thread.join(5)
    assert not thread.is_alive(), "the resume waited for the long-poll to time out"
    assert driver.action == {"action": "continue"}


def test_older_client_that_ignores_poll_interval_still_works_and_is_held(server):
    driver, thread, session = paused_driver(server, "old_client", honour_interval=False)
    try:
        for i in range(5):
            assert server.output(session, f"order_id + {i}") == str(7 + i)
        before = driver.counts["poll"]
        time.sleep(1)
        # A fixed 100 ms sleep, but each poll is held by the server: no 10 polls a second.
        assert driver.counts["poll"] - before <= 1, driver.counts
    finally:
        stop(server, driver, thread)


def test_unknown_pause_poll_is_held_instead_of_answered_at_once():
    server = start_server()
    try:
        started = time.monotonic()
        done = threading.Event()

        def poll():
            try:
                server.get("/api/poll/no-such-pause")
            except OSError:
                pass  # the server is stopped below while this poll is still held
            done.set()

        threading.Thread(target=poll, daemon=True).start()
        # A client whose pause the server does not know would otherwise spin with interval 0.
        assert not done.wait(1.0), f"answered after {time.monotonic() - started:.3f} s"
    finally:
        server.process.kill()
        server.process.wait()
