"""Integration tests on the client side: a real server, real Python processes."""

import threading
import time

from conftest import FRAME, pause_program, start_server


def test_full_repl_flow_start_eval_close(paused):
    p = paused(FRAME, "process")
    assert p.output("total + LIMIT") == "106"
    p.resume()
    assert p.finish()[0] == 0
    session = p.server.session(p.session_id)
    assert session["closed_at"] is not None
    assert [(e["input"], e["output"]) for e in session["transcript"]] == [("total + LIMIT", "106")]


def test_repl_eval_accesses_live_client_state(paused):
    source = """
        import threading, time
        import breakroom

        state = {"ticks": 0, "name": "worker"}

        def tick():
            while True:
                state["ticks"] += 1
                time.sleep(0.01)

        def handle(request_id):
            pending = ["a", "b"]
            breakroom.set_trace()

        threading.Thread(target=tick, daemon=True).start()
        handle(42)
    """
    p = paused(source, "handle")
    assert p.output("(request_id, pending, state['name'])") == "(42, ['a', 'b'], 'worker')"
    first = int(p.output("state['ticks']"))
    time.sleep(0.2)
    # The same live object, still being changed by the program's other thread.
    assert int(p.output("state['ticks']")) > first


def test_repl_eval_modifies_client_state(paused):
    source = """
        import breakroom

        config = {"mode": "normal"}

        def run(limit):
            breakroom.set_trace()
            print(config["mode"], limit)

        run(3)
    """
    p = paused(source, "run")
    p.eval("config['mode'] = 'debug'")
    p.eval("limit = 30")
    assert p.output("(config['mode'], limit)") == "('debug', 30)"
    p.resume()
    assert p.finish()[1] == "debug 30\n"


def test_client_dying_during_eval_closes_its_session_with_the_reason():
    # The server notices the dead pid (issue 17) within a second, before the eval's 5 s timeout.
    server = start_server("--eval-timeout", "5")
    try:
        p = pause_program(server, FRAME, "process")
        answer = {}
        slow = threading.Thread(
            target=lambda: answer.update(r=server.post(f"/api/repl/{p.session_id}/eval", {"expr": "import time; time.sleep(60)"}))
        )
        slow.start()
        time.sleep(0.3)
        p.program.kill()  # the paused program dies mid-eval
        slow.join(10)
        status, body = answer["r"]
        assert (status, body["error"]) == (409, "session_closed")
        session = server.session(p.session_id)
        assert session["closed_at"] is not None
        assert session["closed_reason"] == f"process {p.program.process.pid} ended"
    finally:
        server.process.kill()
        server.process.wait()


def test_concurrent_evals_serialized(paused):
    p = paused(FRAME, "process")
    other = p.new_session()
    first = threading.Thread(target=p.eval, args=("import time; time.sleep(0.3); items.append('first')",))
    first.start()
    time.sleep(0.05)
    p.eval("items.append('second')", other)
    first.join()
    assert p.output("items") == "[1, 2, 3, 'first', 'second']"


def test_builtin_breakpoint_pauses_in_the_callers_real_frame(paused):
    source = """
        def apply_discount(price, rate):
            discounted = price * (1 - rate)
            breakpoint()
            return discounted

        print(apply_discount(200, 0.25))
    """
    p = paused(source, "apply_discount", env={"PYTHONBREAKPOINT": "breakroom.set_trace"})
    frame = p.pause["call_data"]["frames"][0]
    assert (frame["function"], frame["code_context"]) == ("apply_discount", "breakpoint()")
    assert frame["locals"] == ["discounted", "price", "rate"]
    assert p.output("(price, rate, discounted)") == "(200, 0.25, 150.0)"
    p.eval("discounted = 99.5")
    p.resume()
    assert p.finish()[1] == "99.5\n"


def test_uncaught_exception_pauses_post_mortem_in_the_raising_frame(paused):
    source = """
        import breakroom

        breakroom.install_excepthook()

        def parse(text):
            fields = text.split(",")
            return int(fields[2])

        def main():
            return parse("a,b,not-a-number")

        main()
    """
    p = paused(source, "parse")
    assert p.pause["call_data"]["pause_reason"] == "exception"
    assert [f["function"] for f in p.pause["call_data"]["frames"]] == ["parse", "main", "<module>"]
    assert p.output("fields") == "['a', 'b', 'not-a-number']"
    assert p.output("type(exception).__name__") == "'ValueError'"
    p.resume()
    code, _, err = p.finish()
    assert code == 1
    assert "ValueError: invalid literal for int()" in err


def test_post_mortem_in_an_except_block(paused):
    source = """
        import breakroom

        def risky(values):
            index = len(values)
            return values[index]

        try:
            risky([1, 2])
        except IndexError:
            breakroom.post_mortem()
        print("handled")
    """
    p = paused(source, "risky")
    assert p.output("(values, index)") == "([1, 2], 2)"
    assert p.output("str(exception)") == "'list index out of range'"
    p.resume()
    assert p.finish()[:2] == (0, "handled\n")


def test_repl_session_closes_on_breakpoint_resume(paused):
    p = paused(FRAME, "process")
    p.eval("total")
    p.resume()  # from outside the REPL, as the Paused page does
    assert p.finish()[0] == 0
    session = p.server.session(p.session_id)
    assert session["closed_at"] is not None
    assert [e["input"] for e in session["transcript"]] == ["total"]


def test_repl_eval_after_resume_returns_error(paused):
    p = paused(FRAME, "process")
    p.resume()
    p.finish()
    status, body = p.server.post(f"/api/repl/{p.session_id}/eval", {"expr": "1"})
    assert (status, body["error"]) == (409, "session_closed")


def test_repl_transcript_persists_after_close(paused):
    p = paused(FRAME, "process")
    for expr in ("label", "total * 2", "print(items)"):
        p.eval(expr)
    p.server.close(p.session_id)
    transcript = p.server.session(p.session_id)["transcript"]
    assert [(e["input"], e["output"], e["stdout"]) for e in transcript] == [
        ("label", "'order'", ""),
        ("total * 2", "12", ""),
        ("print(items)", "", "[1, 2, 3]\n"),
    ]
