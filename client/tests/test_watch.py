"""The debug page's watch expressions (issue 45) through the server, from a real paused program:
read at the pause as a snapshot breakpoint's expressions are, so nothing in them can change the
program; never recorded in the transcript; refused before anything is sent when they would write."""

from cideldill_driver import ProtocolDriver

PROGRAM = """
    import sys
    import breakroom

    class Sensor:
        def __init__(self):
            self.reading = 21

        @property
        def calibrate(self):
            open(sys.argv[1], "w").write("getter ran")
            return 1

    def inspect_me():
        sensor = Sensor()
        orders = [{"id": 1, "total": 9.5}, {"id": 2, "total": 3.25}]
        password = "hunter2-secret"
        breakroom.set_trace()
        return len(orders)

    inspect_me()
"""


def watch(p, expressions, **extra):
    return p.server.post(f"/api/repl/{p.session_id}/watch", {"expressions": expressions, **extra})


def test_watches_show_values_and_refuse_whatever_would_change_the_program(paused, tmp_path):
    marker = tmp_path / "marker"
    p = paused(PROGRAM.replace("sys.argv[1]", repr(str(marker))), "inspect_me")
    p.eval("seen = 7")  # a REPL name: watches see the session's names too
    status, reply = watch(p, [
        "sensor.reading * 2",
        "[o['total'] for o in orders]",
        "orders.append(3)",
        "sensor.calibrate",
        "seen + 1",
        "password",
        "1 +",
    ])
    assert status == 200, reply
    by_text = {w["expression"]: w for w in reply["expressions"]}
    assert [w["expression"] for w in reply["expressions"]][0] == "sensor.reading * 2"
    assert by_text["sensor.reading * 2"]["value"] == {"type": "int", "repr": "42"}
    totals = by_text["[o['total'] for o in orders]"]["value"]
    assert (totals["type"], [c["value"]["repr"] for c in totals["children"]]) == ("list", ["9.5", "3.25"])
    # Refused by the server before it was sent: the program's list is unchanged below.
    assert by_text["orders.append(3)"]["error"].startswith('watch expression "orders.append(3)" is not read-only: it calls orders.append')
    assert "value" not in by_text["orders.append(3)"]
    # A property is the program's own code: the guard stops it, the getter never runs.
    assert by_text["sensor.calibrate"]["error"].startswith("would run Sensor.calibrate") and not marker.exists()
    assert by_text["seen + 1"]["value"]["repr"] == "8"
    assert "hunter2" not in str(by_text["password"])
    assert "is not a Python expression" in by_text["1 +"]["error"]
    assert p.eval("len(orders)")["output"] == "2"
    assert [e["input"] for e in p.server.session(p.session_id)["transcript"]] == ["seen = 7", "len(orders)"]


def test_a_bad_watch_list_is_a_400_naming_the_problem(paused):
    p = paused(PROGRAM.replace("sys.argv[1]", "'/dev/null'"), "inspect_me")
    for body, code in [
        ({}, "missing_expressions"),
        ({"expressions": ["x", "  "]}, "missing_expr"),
        ({"expressions": ["x"] * 21}, "too_many_watches"),
        ({"expressions": ["x" * 2001]}, "watch_too_long"),
        ({"expressions": "x"}, None),
        ({"expressions": ["x"], "frame": 99}, "invalid_frame"),
    ]:
        status, reply = p.server.post(f"/api/repl/{p.session_id}/watch", body)
        assert status == 400, (body, status, reply)
        if code:
            assert reply["error"] == code, (body, reply)
    status, reply = p.server.post("/api/repl/no-such-session/watch", {"expressions": ["x"]})
    assert status == 404, reply


def test_an_unchanged_cideldill_client_gets_each_watch_with_the_reason(server):
    driver = ProtocolDriver(server.url, "snippet_watch")
    thread = driver.start()
    session = server.start_session(driver.pause_id)
    try:
        status, reply = server.post(f"/api/repl/{session}/watch", {"expressions": ["items", "total + 1"]})
        assert status == 200, reply
        assert [w["expression"] for w in reply["expressions"]] == ["items", "total + 1"]
        assert all("Breakroom client" in w["error"] and "value" not in w for w in reply["expressions"])
        assert server.session(session)["transcript"] == []
    finally:
        server.resume(driver.pause_id)
        thread.join(10)
