"""Completion and the variables panel through the server, from a real paused program: the
client's own `complete`/`variables`/`expand` requests, and the snippet path an unchanged
cideldill client takes (it evaluates the snippet like any input). Neither shows up in the
session's transcript."""

from cideldill_driver import ProtocolDriver
from conftest import METHOD

# A program paused in its own frame, with an object whose property writes a marker file and a
# value whose repr never ends.
OBJECTS = """
    import sys, time
    import breakroom

    class Sensor:
        def __init__(self):
            self.reading = 21
            self.history = list(range(100000))

        @property
        def calibrate(self):
            open(sys.argv[1], "w").write("getter ran")
            return 1

    class Slow:
        def __repr__(self):
            time.sleep(60)
            return "never"

    def inspect_me():
        sensor = Sensor()
        settings = {"mode": "fast", "level": 3}
        slow = Slow()
        breakroom.set_trace()

    inspect_me()
"""



def test_completion_from_the_paused_frame_runs_no_getter(paused, tmp_path):
    marker = tmp_path / "marker"
    p = paused(OBJECTS.replace("sys.argv[1]", repr(str(marker))), "inspect_me")
    url = f"/api/repl/{p.session_id}/complete"
    status, reply = p.server.post(url, {"code": "sensor.re", "cursor_pos": 9})
    assert status == 200, reply
    assert (reply["matches"], reply["cursor_start"], reply["cursor_end"]) == (["reading"], 7, 9)
    status, reply = p.server.post(url, {"code": "sensor.cal"})
    assert (reply["matches"], reply["metadata"]["types"]) == (["calibrate"], ["property"])
    assert not marker.exists()
    status, reply = p.server.post(url, {"code": "settings['m"})
    assert reply["matches"] == ["mode']"]
    p.eval("session_only = 1")
    status, reply = p.server.post(url, {"code": "session_o"})
    assert reply["matches"] == ["session_only"]
    assert [e["input"] for e in p.server.session(p.session_id)["transcript"]] == ["session_only = 1"]


def test_variables_panel_bounds_reprs_and_expands_statically(paused, tmp_path):
    marker = tmp_path / "marker"
    p = paused(OBJECTS.replace("sys.argv[1]", repr(str(marker))), "inspect_me")
    status, reply = p.server.get(f"/api/repl/{p.session_id}/variables")
    assert status == 200, reply
    rows = {row["name"]: row for row in reply["variables"]}
    assert rows["slow"]["repr"] == "<repr timed out>"
    assert rows["settings"]["count"] == 2
    status, reply = p.server.post(f"/api/repl/{p.session_id}/variables/expand", {"path": rows["sensor"]["path"]})
    assert status == 200, reply
    children = {c["name"]: c for c in reply["children"]}
    assert children["calibrate"]["type"] == "property"
    assert children["history"]["count"] == 100000
    assert len(children["history"]["repr"]) <= 200
    assert not marker.exists()
    # One level at a time, 100 children a page.
    status, reply = p.server.post(f"/api/repl/{p.session_id}/variables/expand",
                         {"path": children["history"]["path"], "offset": 100})
    assert (reply["count"], reply["offset"], len(reply["children"]), reply["truncated"]) == (100000, 100, 100, True)
    assert reply["children"][0]["repr"] == "100"
    assert p.server.session(p.session_id)["transcript"] == []


def test_an_unchanged_cideldill_client_completes_through_the_snippet(server):
    driver = ProtocolDriver(server.url, "snippet_path")
    thread = driver.start()
    session = server.start_session(driver.pause_id)
    try:
        driver.namespace["inventory"] = {"apples": 3, "pears": 4}
        status, reply = server.post(f"/api/repl/{session}/complete", {"code": "inventory['a"})
        assert status == 200, reply
        assert (reply["matches"], reply["metadata"]["types"]) == (["apples']"], ["dict key"])
        status, reply = server.post(f"/api/repl/{session}/complete", {"code": "ord"})
        assert reply["matches"] == ["order_id", "ord"], reply
        status, reply = server.get(f"/api/repl/{session}/variables")
        assert status == 200, reply
        rows = {row["name"]: row for row in reply["variables"]}
        assert rows["items"]["repr"] == "[1, 2, 3]"
        status, reply = server.post(f"/api/repl/{session}/variables/expand", {"path": rows["inventory"]["path"]})
        assert [(c["name"], c["repr"]) for c in reply["children"]] == [("'apples'", "3"), ("'pears'", "4")]
        # The snippet bound no name in the REPL's namespace, and nothing was recorded.
        assert server.output(session, "sorted(k for k in globals() if not k.startswith('__'))") == \
            "['inventory', 'items', 'order_id', 'total']"
        assert [e["input"] for e in server.session(session)["transcript"]] == [
            "sorted(k for k in globals() if not k.startswith('__'))"]
    finally:
        server.resume(driver.pause_id)
        thread.join(10)


def test_call_arguments_in_the_panel_link_to_their_stored_values(paused):
    p = paused(METHOD, "checkout")
    status, reply = p.server.get(f"/api/repl/{p.session_id}/variables")
    assert status == 200, reply
    rows = {row["name"]: row for row in reply["variables"]}
    status, stored = p.server.get(f"/api/objects/{rows['discount']['cid']}")
    assert status == 200, stored
    assert "cid" not in rows["args"]  # not an argument of the call, a name the client adds
