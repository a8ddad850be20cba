"""MCP for agents (issue 22): the official Python MCP client against the real server, over
Streamable HTTP at /mcp and through the `breakroom mcp` stdio bridge, with real paused programs."""

import asyncio
import os
import subprocess
import sys

import pytest

# The official Python MCP SDK is the real client here; scripts/setup.sh installs it (a missing
# SDK fails these tests rather than skipping them).
from mcp import ClientSession, StdioServerParameters, types  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from conftest import CLIENT_DIR, _binary, start_server  # noqa: E402

CIDELDILL_TOOLS = {
    "breakpoint_list_breakpoints", "breakpoint_add", "breakpoint_remove", "breakpoint_set_behavior",
    "breakpoint_set_after_behavior", "breakpoint_set_replacement", "breakpoint_get_default_behavior",
    "breakpoint_set_default_behavior", "breakpoint_list_paused", "breakpoint_continue",
    "breakpoint_list_functions", "breakpoint_get_call_records", "breakpoint_repl_eval",
    "breakpoint_inspect_object",
}

BREAKROOM_TOOLS = {
    "repl_session_start", "repl_session_close", "repl_session_search", "repl_session_get",
    "breakpoint_record_add", "breakpoint_record_list", "breakpoint_record_update", "breakpoint_record_enable",
    "breakpoint_record_disable", "breakpoint_record_remove", "breakpoint_record_clear",
    "process_run", "process_status", "process_output", "process_pause", "process_attach", "process_stop", "list_tasks", "cancel_task",
    "runtime_exec", "runtime_state", "runtime_reset", "runtime_history",
    "checkpoint_step_back", "checkpoint_create", "checkpoint_rewind", "checkpoint_branch", "checkpoint_switch",
    "checkpoint_timeline", "checkpoint_diff",
    "snapshot_add", "snapshot_list", "snapshot_get",
}

COMPUTE = """
    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    print(compute(6, 7))
"""


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


class Agent:
    """An MCP client session on the server, keeping every notification it receives."""

    def __init__(self, session):
        self.session = session

    async def call(self, name, **arguments):
        return await self.session.call_tool(name, arguments)

    async def ok(self, name, **arguments):
        result = await self.call(name, **arguments)
        assert not result.is_error, (name, result)
        return result.structured_content


async def connect(url, body):
    """Runs `body(agent, updates)` in an initialized session over Streamable HTTP."""
    updates = asyncio.Queue()

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    async with streamable_http_client(url + "/mcp") as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            info = await session.initialize()
            assert info.server_info.name == "breakroom"
            return await body(Agent(session), updates)


async def next_update(updates, uri):
    while True:
        got = await asyncio.wait_for(updates.get(), 15)
        if got == uri:
            return got


def test_an_agent_lists_cideldills_tools_and_breakrooms_own_each_with_an_input_schema(server):
    async def body(agent, _):
        tools = (await agent.session.list_tools()).tools
        names = {t.name for t in tools}
        assert CIDELDILL_TOOLS <= names
        assert BREAKROOM_TOOLS <= names
        eval_tool = next(t for t in tools if t.name == "breakpoint_repl_eval")
        assert eval_tool.input_schema["required"] == ["pause_id", "expression"]
        assert all(t.input_schema["type"] == "object" for t in tools)
        resources = {str(r.uri) for r in (await agent.session.list_resources()).resources}
        assert {"breakpoint://status", "breakpoint://breakpoints", "breakpoint://paused", "breakpoint://call-history",
                "breakpoint://functions", "breakpoint://processes", "breakpoint://sessions"} <= resources
        prompts = {p.name for p in (await agent.session.list_prompts()).prompts}
        assert prompts == {"debug-session-start", "inspect-paused-call"}

    run(connect(server.url, body))


def test_an_agent_hears_of_a_pause_evaluates_in_it_and_continues_it(server, run_program):
    async def body(agent, updates):
        await agent.session.subscribe_resource("breakpoint://paused")
        program = run_program(COMPUTE)
        await next_update(updates, "breakpoint://paused")
        paused = await agent.ok("breakpoint_list_paused")
        pause = next(p for p in paused["paused"] if p["call_data"]["process_pid"] == program.process.pid)
        assert pause["call_data"]["method_name"] == "compute"

        result = await agent.call("breakpoint_repl_eval", pause_id=pause["id"], expression="a * b")
        assert not result.is_error
        assert result.structured_content["output"] == "42"
        assert result.content[0].text == "42"
        session_id = result.structured_content["session_id"]
        # Without session_id the pause's open session is used again: names stay.
        await agent.ok("breakpoint_repl_eval", pause_id=pause["id"], expression="x = a + b")
        again = await agent.ok("breakpoint_repl_eval", pause_id=pause["id"], expression="x")
        assert (again["output"], again["session_id"]) == ("13", session_id)

        contents = (await agent.session.read_resource("breakpoint://paused")).contents[0]
        assert pause["id"] in contents.text

        await agent.ok("breakpoint_continue", pause_id=pause["id"])
        # A second Continue is harmless, as on the REST API and the page: already resumed.
        second = await agent.ok("breakpoint_continue", pause_id=pause["id"])
        assert second == {"status": "ok", "pause_id": pause["id"], "already_resumed": True}, second
        await next_update(updates, "breakpoint://paused")
        code, out, err = await asyncio.to_thread(program.finish)
        assert (code, out) == (0, "43\n"), err
        transcript = (await agent.ok("repl_session_get", session_id=session_id))["session"]["transcript"]
        assert [e["input"] for e in transcript] == ["a * b", "x = a + b", "x"]

    run(connect(server.url, body))


def test_bad_arguments_are_tool_errors_that_name_the_problem(server):
    async def body(agent, _):
        cases = [
            ("breakpoint_repl_eval", {"expression": "1"}, "missing_parameter", "pause_id is required"),
            ("breakpoint_repl_eval", {"pause_id": 5, "expression": "1"}, "invalid_parameter",
             "pause_id must be a string, not a number"),
            ("breakpoint_repl_eval", {"pause_id": "no-such-pause", "expression": "1"}, "pause_not_found", None),
            ("breakpoint_continue", {"pause_id": "no-such-pause"}, "pause_not_found", None),
            ("repl_session_close", {"session_id": "1-1.0"}, "session_not_found", None),
            ("breakpoint_get_call_records", {"limit": "ten"}, "invalid_parameter", "limit must be an integer, not a string"),
            ("breakpoint_set_behavior", {"function_name": "f", "behavior": "sideways"}, None, None),
            ("breakpoint_add", {"function_name": "f", "behavior": "sideways"}, "invalid_parameter",
             'behavior must be one of stop, go, yield, not "sideways"'),
            ("process_run", {"command": "ls"}, "invalid_parameter", "command must be an array, not a string"),
            ("no_such_tool", {}, "unknown_tool", None),
        ]
        for name, arguments, code, message in cases:
            result = await agent.call(name, **arguments)
            assert result.is_error, (name, arguments, result)
            error = result.structured_content
            if code:
                assert error["error"] == code, (name, error)
            if message:
                assert error["message"] == message, (name, error)
            assert result.content[0].text.startswith(error["error"] + ": ")

    run(connect(server.url, body))


def test_a_finished_process_notifies_and_its_output_is_read_through_tools(server):
    async def body(agent, updates):
        await agent.session.subscribe_resource("breakpoint://processes")
        started = await agent.ok("process_run", command=[sys.executable, "-c", "print('from the agent')"])
        while True:
            await next_update(updates, "breakpoint://processes")
            status = await agent.ok("process_status", process_id=started["id"])
            if status["status"] != "running":
                break
        assert status["exit_code"] == 0
        output = await agent.ok("process_output", process_id=started["id"])
        assert [line["text"] for line in output["lines"]] == ["from the agent"]

    run(connect(server.url, body))


def test_the_stdio_bridge_relays_tool_calls_to_the_server_it_finds(server, tmp_path):
    # Found through the port file, as the Python client finds it (no BREAKROOM_URL).
    port_file = tmp_path / "port"
    port_file.write_text(server.url.rsplit(":", 1)[1])
    env = {k: v for k, v in os.environ.items() if k != "BREAKROOM_URL"}
    env["CIDELDILL_PORT_FILE"] = str(port_file)
    params = StdioServerParameters(command=_binary(), args=["mcp"], env=env)

    async def body():
        updates = asyncio.Queue()

        async def on_message(message):
            if isinstance(message, types.ResourceUpdatedNotification):
                await updates.put(str(message.params.uri))

        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as session:
                info = await session.initialize()
                assert info.server_info.name == "breakroom"
                names = {t.name for t in (await session.list_tools()).tools}
                assert CIDELDILL_TOOLS <= names
                await session.subscribe_resource("breakpoint://breakpoints")
                added = await session.call_tool("breakpoint_add", {"function_name": "bridged"})
                assert added.structured_content == {"status": "ok", "function_name": "bridged"}
                # What the server sends unasked comes through the bridge too.
                await next_update(updates, "breakpoint://breakpoints")
                listed = await session.call_tool("breakpoint_list_breakpoints", {})
                assert "bridged" in listed.structured_content["breakpoints"]
                bad = await session.call_tool("breakpoint_remove", {})
                assert bad.is_error and bad.structured_content["error"] == "missing_parameter"
                await session.call_tool("breakpoint_remove", {"function_name": "bridged"})

    run(body())


def test_with_a_token_mcp_needs_it_too(tmp_path):
    srv = start_server("--token", "s3cret")
    try:
        async def refused():
            async with streamable_http_client(srv.url + "/mcp") as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()

        with pytest.raises(BaseException):
            run(refused())

        import httpx2

        async def allowed():
            headers = {"Authorization": "Bearer s3cret"}
            async with httpx2.AsyncClient(headers=headers) as http:
                async with streamable_http_client(srv.url + "/mcp", http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        return len((await session.list_tools()).tools)

        assert run(allowed()) >= len(CIDELDILL_TOOLS)
    finally:
        srv.process.terminate()
        srv.process.wait(5)


def test_the_stdio_bridge_answers_every_line_of_a_script_before_it_exits(server):
    import json

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "breakpoint_list_paused", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "breakpoint_continue", "arguments": {}}},
    ]
    script = "\n".join(json.dumps(line) for line in lines) + "\nnot json\n"
    env = {**os.environ, "BREAKROOM_URL": server.url}
    done = subprocess.run([_binary(), "mcp"], input=script, capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "breakroom"
    assert answers[2]["result"]["isError"] is False
    assert answers[3]["result"]["isError"] is True
    assert answers[3]["result"]["structuredContent"]["message"] == "pause_id is required"
    assert answers[None]["error"]["code"] == -32700


def test_a_2026_client_hears_of_a_pause_through_subscriptions_listen(server, run_program):
    from mcp import Client
    from mcp.shared.subscriptions import ResourceUpdated

    async def body():
        async with Client(server.url + "/mcp") as client:
            async with client.listen(resource_subscriptions=["breakpoint://paused", "breakpoint://nothing"]) as sub:
                program = run_program(COMPUTE)
                async for event in sub:
                    if isinstance(event, ResourceUpdated) and event.uri == "breakpoint://paused":
                        break
            paused = await client.call_tool("breakpoint_list_paused", {})
            pause = next(p for p in paused.structured_content["paused"]
                         if p["call_data"]["process_pid"] == program.process.pid)
            answer = await client.call_tool("breakpoint_repl_eval", {"pause_id": pause["id"], "expression": "a + b"})
            assert answer.structured_content["output"] == "13"
            await client.call_tool("breakpoint_continue", {"pause_id": pause["id"]})
            code, out, err = await asyncio.to_thread(program.finish)
            assert (code, out) == (0, "43\n"), err

    run(body())


# Two pauses of one program with checkpoints on: the agent steps back from the second.
STEPS = """
    import breakroom

    history = []

    @breakroom.breakpoint
    def step(i):
        history.append(i)
        return len(history)

    for i in range(3):
        step(i)
    print("done", history)
"""


def test_an_agent_steps_back_to_the_earlier_pause_through_the_time_travel_tools(server, run_program):
    async def body(agent, _):
        program = run_program(STEPS, env={"BREAKROOM_CHECKPOINTS": "1"})
        first = await asyncio.to_thread(server.wait_for_pause, "step", 10, program.process.pid)
        await agent.ok("breakpoint_continue", pause_id=first["id"])
        second = await asyncio.to_thread(server.wait_for_pause, "step", 10, program.process.pid)
        assert second["id"] != first["id"]
        missing = await agent.call("checkpoint_step_back", pause_id="no-such-pause")
        assert missing.is_error and missing.content[0].text.startswith("pause_not_found"), missing

        back = await agent.ok("checkpoint_step_back", pause_id=second["id"])
        assert back["pause_id"] not in (first["id"], second["id"]) and back["pid"] != program.process.pid
        out = await agent.ok("breakpoint_repl_eval", pause_id=back["pause_id"], expression="(i, history)")
        assert out["output"] == "(0, [])", "the memory as it was when Continue was pressed"
        timeline = await agent.ok("checkpoint_timeline", process_id=back["process_id"])
        assert timeline["checkpoints"] and timeline["live"]["pause_id"] == back["pause_id"]
        await agent.ok("process_stop", process_id=back["process_id"])

    run(connect(server.url, body))


RUNNING = """
    import time, breakroom
    breakroom._get_client().ensure_connected()  # follows the server's breakpoint channel
    ticks = 0
    while True:
        ticks += 1
        time.sleep(0.002)
"""


def test_an_agent_pauses_a_running_program_and_looks_inside(server, run_program):
    async def body(agent, _):
        program = run_program(RUNNING)
        process_id = None
        for _ in range(300):
            listed = await agent.ok("process_status")
            process_id = next((p["id"] for p in listed["processes"] if p["pid"] == program.process.pid), None)
            if process_id:
                break
            await asyncio.sleep(0.05)
        assert process_id, "the running program is a process before it ever pauses"
        missing = await agent.call("process_pause", process_id="no-such-process")
        assert missing.is_error, missing

        asked = await agent.ok("process_pause", process_id=process_id)
        assert asked["process_id"] == process_id and "thread" not in asked
        pause = await asyncio.to_thread(server.wait_for_pause, "<module>", 10, program.process.pid)
        assert pause["call_data"]["stop"]["kind"] == "interrupt"
        out = await agent.ok("breakpoint_repl_eval", pause_id=pause["id"], expression="ticks > 0")
        assert out["output"] == "True"
        await agent.ok("breakpoint_continue", pause_id=pause["id"])

    run(connect(server.url, body))


def test_an_agent_attaches_to_a_plain_running_program(server):
    from test_attach import SCENARIOS, Target

    target = Target(sys.executable, SCENARIOS["sleep"])

    async def body(agent, _):
        missing = await agent.call("process_attach", pid=-1)
        assert missing.is_error, missing
        attached = await agent.ok("process_attach", pid=target.pid)
        assert attached["pid"] == target.pid and attached["method"] == "blocked_thread"
        listed = await agent.ok("process_status")
        assert any(p["id"] == attached["process_id"] and p["origin"] == "attached" for p in listed["processes"])

    try:
        target.wait_for_line("tick")
        run(connect(server.url, body))
    finally:
        target.kill()


def test_an_agent_takes_a_snapshot_of_a_running_program_and_reads_it(server, tmp_path):
    program = tmp_path / "ticker.py"
    program.write_text(
        "import time\n"
        "def tick(n):\n"
        "    total = n * 3\n"
        "    return total\n"
        "for i in range(3000):\n"
        "    tick(i)\n"
        "    time.sleep(0.01)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    target = subprocess.Popen([sys.executable, "-m", "breakroom", str(program)], env=env)

    async def body(agent, _):
        refused = await agent.call("snapshot_add", file=str(program), line=4, expressions=["tick.cache.clear()"])
        assert refused.is_error and "not_read_only" in str(refused.content), refused
        added = await agent.ok("snapshot_add", file=str(program), line=4, expressions=["total // 3"], max_hits=1)
        assert added["action"] == "snapshot"
        for _ in range(300):
            listed = await agent.ok("snapshot_list", breakpoint_id=added["id"])
            if listed["snapshots"]:
                break
            await asyncio.sleep(0.05)
        snap = await agent.ok("snapshot_get", snapshot_id=listed["snapshots"][0]["snapshot_id"])
        n = next(v["value"]["repr"] for v in snap["frames"][0]["locals"] if v["name"] == "n")
        assert snap["expressions"][0]["value"]["repr"] == n
        missing = await agent.call("snapshot_get", snapshot_id="snap-999999")
        assert missing.is_error

    try:
        run(connect(server.url, body))
        assert target.poll() is None, "the program never stopped"
    finally:
        target.kill()
        target.wait()
