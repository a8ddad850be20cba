"""Error breakpoints for uncaught exceptions (issue 18), in real programs at a real server: only
the breakpoint's exception types pause post-mortem, its condition is evaluated in the frame that
raised, and the hit is counted on the breakpoint."""

import time

import pytest
from conftest import PausedProgram, Program, start_server

# Connects, waits until the server's error breakpoints are applied here, then raises: a
# ValueError in a thread (not the breakpoint's type) and a KeyError in the main thread.
SOURCE = """
    import threading, time
    import breakroom
    from breakroom import breakpoint_channel as channel

    breakroom._get_client().ensure_connected()
    deadline = time.time() + 10
    while channel._channel is None or not channel._channel._hooked:
        assert time.time() < deadline, "the error breakpoint never reached the program"
        time.sleep(0.01)

    def worker(kind):
        note = "in " + kind
        if kind == "key":
            return {}["missing"]
        raise ValueError("bad value")

    t = threading.Thread(target=worker, args=("value",))
    t.start()
    t.join()
    print("the ValueError did not pause", flush=True)
    worker(KIND)
"""


@pytest.fixture(scope="module")
def own_server():
    srv = start_server("--eval-timeout", "10")
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


def add_error_breakpoint(server, **options):
    status, bp = server.post("/api/breakpoints", {"kind": "error", "exception_types": ["KeyError"], **options})
    assert status == 200, bp
    return bp


def remove(server, bp):
    server.request("DELETE", f"/api/breakpoints/{bp['id']}")


def test_uncaught_exception_of_the_breakpoints_type_pauses_and_others_do_not(own_server):
    bp = add_error_breakpoint(own_server, condition="kind == 'key'")
    program = Program(SOURCE.replace("KIND", "'key'"), own_server)
    try:
        pause = own_server.wait_for_pause("worker", pid=program.process.pid)
        p = PausedProgram(own_server, program, pause)
        assert pause["call_data"]["pause_reason"] == "exception"
        assert p.output("note") == "'in key'", "the frame that raised the KeyError, not the ValueError's"
        p.resume()
        code, out, err = program.finish()
        assert code == 1 and "KeyError: 'missing'" in err, err
        assert "the ValueError did not pause" in out
        assert "ValueError: bad value" in err, "its traceback is printed as always"
        deadline = time.time() + 10
        while True:
            listed = {b["id"]: b for b in own_server.get("/api/breakpoints")[1]["items"]}
            if listed[bp["id"]].get("hit_count") == 1:
                break
            assert time.time() < deadline, listed
            time.sleep(0.02)
        hits = [e for e in own_server.get("/api/events?from_sequence=0")[1]["events"] if e["type"] == "breakpoint_hit"]
        assert [h["data"]["breakpoint_id"] for h in hits] == [bp["id"]], [h["data"] for h in hits]
        assert "uncaught KeyError" in hits[0]["data"]["reason"]
    finally:
        program.kill()
        remove(own_server, bp)


def test_a_false_condition_lets_the_uncaught_exception_end_the_program(own_server):
    bp = add_error_breakpoint(own_server, condition="kind == 'other'")
    program = Program(SOURCE.replace("KIND", "'key'"), own_server)
    try:
        code, out, err = program.finish()
        assert code == 1 and "KeyError: 'missing'" in err, err
        assert not [p for p in own_server.paused() if p["call_data"]["process_pid"] == program.process.pid]
    finally:
        program.kill()
        remove(own_server, bp)


# A background task whose KeyError nobody retrieves: asyncio hands it to the loop's exception
# handler (when the task is freed), not to sys.excepthook. Another task ticks meanwhile.
ASYNC_SOURCE = """
    import asyncio, time
    import breakroom
    from breakroom import breakpoint_channel as channel

    TICKS = {"n": 0}


    async def ticker():
        while True:
            await asyncio.sleep(0.005)
            TICKS["n"] += 1


    async def crash():
        kept = 42
        await asyncio.sleep(0.05)
        raise KeyError("lost")


    async def main():
        breakroom._get_client().ensure_connected()
        deadline = time.time() + 10
        while channel._channel is None or not channel._channel._hooked:
            assert time.time() < deadline, "the error breakpoint never reached the program"
            time.sleep(0.01)
        keep = asyncio.create_task(ticker())
        asyncio.create_task(crash())  # not kept: its exception is never retrieved
        await asyncio.sleep(3600)


    asyncio.run(main())
"""


def test_an_exception_no_one_retrieves_from_a_task_pauses_post_mortem_beside_its_running_loop(own_server):
    bp = add_error_breakpoint(own_server)
    program = Program(ASYNC_SOURCE, own_server)
    try:
        pause = own_server.wait_for_pause("crash", pid=program.process.pid)
        p = PausedProgram(own_server, program, pause)
        assert pause["call_data"]["pause_reason"] == "exception"
        assert pause["blocking"] is False, "the loop's thread is not the pause's"
        assert p.output("kept") == "42"
        assert p.output("exception") == "KeyError('lost')"
        ticks = int(p.output("TICKS['n']"))
        time.sleep(0.1)
        assert int(p.output("TICKS['n']")) > ticks, "the loop runs its other task meanwhile"
        assert p.output("await asyncio.sleep(0, 'awaited')") == "'awaited'"
        p.resume()
        time.sleep(0.1)
        assert program.process.poll() is None, "the program goes on"
    finally:
        program.kill()
        remove(own_server, bp)
