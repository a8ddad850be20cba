"""Edge cases, the client-side ones: odd results, odd input, threads, and
sessions and evals racing with resumes and closes."""

import threading
import time

from conftest import FRAME, METHOD, answer_fields


def test_eval_expression_that_raises_exception(frame_pause):
    body = frame_pause.eval("raise ValueError('bad value')")
    assert body["is_error"] and body["output"] == "ValueError: bad value"


def test_eval_expression_that_returns_none(frame_pause):
    assert answer_fields(frame_pause.eval("None")) == {"output": "None", "stdout": "", "is_error": False, "result_cid": None}


def test_eval_expression_that_returns_empty_string(frame_pause):
    assert frame_pause.output("''") == "''"


def test_eval_expression_that_returns_very_large_result(frame_pause):
    body = frame_pause.eval("'x' * 5_000_000")
    assert body["is_error"] is False
    # Cut before it is repr'd: 100,000 characters shown, and how many were left out.
    assert len(body["output"]) < 100_100 and body["output"].endswith("… [cut: 4,900,000 more characters]")


def test_eval_expression_with_unicode(frame_pause):
    assert frame_pause.output("'héllo ✓ 日本' + label") == "'héllo ✓ 日本order'"
    assert frame_pause.eval("print('ünïcode ✓')")["stdout"] == "ünïcode ✓\n"


def test_eval_expression_with_special_characters(frame_pause):
    assert frame_pause.output(r"'tab\there \"quoted\" \\ back'") == r"""'tab\there "quoted" \\ back'"""
    assert frame_pause.output("'<script>&amp;</script>'") == "'<script>&amp;</script>'"


def test_eval_expression_that_blocks_indefinitely_times_out(paused):
    p = paused(FRAME, "process", env={"BREAKROOM_EVAL_TIMEOUT": "0.5"})
    assert p.output("import threading; threading.Event().wait()") == "TimeoutError: evaluation timed out"
    assert p.output("total") == "6"


def test_eval_expression_that_prints_to_stdout(frame_pause):
    assert frame_pause.eval("print(*items, sep='-')")["stdout"] == "1-2-3\n"


def test_eval_expression_that_modifies_mutable_argument(paused):
    p = paused(METHOD, "checkout")
    p.eval("self.items.append(10)")
    p.resume()
    code, out, _ = p.finish()
    assert (code, out) == (0, "checkout: 12\n")  # 3 + 4 + 10 - 5


def test_close_session_while_eval_in_flight(paused):
    p = paused(FRAME, "process")
    answer = {}
    slow = threading.Thread(target=lambda: answer.update(r=p.server.post(f"/api/repl/{p.session_id}/eval", {"expr": "import time; time.sleep(1); 'late'"})))
    slow.start()
    time.sleep(0.3)
    p.server.close(p.session_id)
    slow.join(5)
    assert answer["r"][0] == 409
    other = p.new_session()
    time.sleep(1)  # the late result arrives and is refused
    assert p.output("total", other) == "6"
    assert p.server.session(p.session_id)["transcript"] == []


def test_resume_breakpoint_while_eval_in_flight(paused):
    p = paused(FRAME, "process")
    answer = {}
    slow = threading.Thread(target=lambda: answer.update(r=p.server.post(f"/api/repl/{p.session_id}/eval", {"expr": "import time; time.sleep(5)"})))
    slow.start()
    time.sleep(0.3)
    p.resume()
    slow.join(5)
    assert answer["r"][0] == 409 and answer["r"][1]["error"] == "session_closed"
    code, out, _ = p.finish()
    assert code == 0 and out.startswith("after:")
    assert p.server.session(p.session_id)["closed_at"] is not None


def test_repl_session_for_inline_breakpoint_vs_proxy_breakpoint(paused):
    inline = paused(FRAME, "process")
    proxy = paused(METHOD, "checkout")
    # set_trace runs in the real frame (locals() is the frame's); the proxy sees the call's arguments.
    assert inline.output("{'items', 'label', 'order_id', 'total'} <= set(dir())") == "True"
    assert inline.output("'args' in dir()") == "False"
    assert proxy.output("sorted({'self', 'discount', 'note', 'args', 'kwargs'} & set(dir()))") == (
        "['args', 'discount', 'kwargs', 'note', 'self']"
    )
    assert inline.session_id.startswith(f"{inline.program.process.pid}-")
    assert proxy.session_id.startswith(f"{proxy.program.process.pid}-")


def test_repl_with_async_debug_call_breakpoint(paused):
    source = """
        import asyncio
        import breakroom

        @breakroom.breakpoint
        async def fetch(key, retries=2):
            await asyncio.sleep(0)
            return f"{key}:{retries}"

        async def ticker(ticks):
            while True:
                ticks.append(1)
                await asyncio.sleep(0.01)

        async def main():
            ticks = []
            task = asyncio.ensure_future(ticker(ticks))
            result = await fetch("user", retries=3)
            task.cancel()
            print(result, len(ticks) > 5)

        asyncio.run(main())
    """
    p = paused(source, "fetch")
    assert p.output("(key, retries)") == "('user', 3)"
    time.sleep(0.2)
    p.resume()
    code, out, err = p.finish()
    # The event loop kept running (the ticker ticked) while fetch was paused.
    assert (code, out) == (0, "user:3 True\n"), err


def test_eval_in_nested_breakpoint_scope(paused):
    source = """
        import breakroom

        def outer(base):
            factor = 3

            def inner(n):
                local_only = n * factor
                breakroom.set_trace()
                return local_only + base

            return inner(2)

        print(outer(10))
    """
    p = paused(source, "outer.<locals>.inner")
    assert p.output("(n, local_only, factor, base)") == "(2, 6, 3, 10)"
    p.resume()
    assert p.finish()[1] == "16\n"


def test_stdout_redirect_thread_safety_during_concurrent_eval(paused):
    source = """
        import sys, threading, time
        import breakroom

        stop = threading.Event()

        def chatter():
            while not stop.is_set():
                print("tick")
                time.sleep(0.005)

        def work():
            breakroom.set_trace()

        t = threading.Thread(target=chatter, daemon=True)
        t.start()
        work()
        stop.set()
        t.join()
        print("end")
    """
    p = paused(source, "work")
    for _ in range(10):
        body = p.eval("import time\nfor i in range(5):\n    print('eval', i)\n    time.sleep(0.005)\n")
        # Only the eval's own output, never the other thread's ticks.
        assert body["stdout"] == "".join(f"eval {i}\n" for i in range(5))
    p.resume()
    code, out, _ = p.finish()
    assert code == 0 and "tick\n" in out and out.endswith("end\n")
    assert "eval" not in out


def test_eval_expression_that_modifies_sys_stdout_directly(paused):
    p = paused(FRAME, "process")
    p.eval("import sys, io; sys.stdout = io.StringIO()")
    assert p.eval("print('still captured')")["stdout"] == "still captured\n"
    p.resume()
    code, out, _ = p.finish()
    # The program's own stdout came back after the eval replaced it.
    assert (code, out) == (0, "after: 6 [1, 2, 3] order\n")


def test_eval_expression_that_spawns_threads(frame_pause):
    body = frame_pause.eval(
        "import threading\nresults = []\nthreads = [threading.Thread(target=results.append, args=(i,)) for i in range(4)]\n"
        "for t in threads: t.start()\nfor t in threads: t.join()\nsorted(results)"
    )
    assert (body["output"], body["is_error"]) == ("[0, 1, 2, 3]", False)


def test_abandoned_timeout_thread_eventual_completion(paused):
    p = paused(FRAME, "process", env={"BREAKROOM_EVAL_TIMEOUT": "0.3"})
    assert p.output("import time; time.sleep(0.6); finished_late = True") == "TimeoutError: evaluation timed out"
    time.sleep(0.6)
    # The abandoned thread ran to its end; its assignment landed in the session namespace.
    assert p.output("finished_late") == "True"


def test_session_namespace_not_leaked_to_other_sessions(frame_pause):
    a, b = frame_pause.new_session(), frame_pause.new_session()
    frame_pause.eval("import secrets as private_module; private_value = 1", a)
    assert "NameError" in frame_pause.output("private_module", b)
    assert "NameError" in frame_pause.output("private_value", b)


def test_eval_result_cid_graceful_degradation_unpicklable(frame_pause):
    body = frame_pause.eval("(x for x in items)")
    assert body["is_error"] is False and body["output"].startswith("<generator object")
    assert body["result_cid"] is None


def test_concurrent_sessions_interleaved_evals_correct_transcripts(frame_pause):
    a, b = frame_pause.new_session(), frame_pause.new_session()
    done = []

    def drive(session, tag):
        for i in range(5):
            frame_pause.eval(f"'{tag}{i}'", session)
        done.append(tag)

    threads = [threading.Thread(target=drive, args=(a, "a")), threading.Thread(target=drive, args=(b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(done) == ["a", "b"]
    for session, tag in ((a, "a"), (b, "b")):
        transcript = frame_pause.server.session(session)["transcript"]
        assert [e["output"] for e in transcript] == [f"'{tag}{i}'" for i in range(5)]
