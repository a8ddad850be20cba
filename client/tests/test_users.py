"""Users, roles, program credentials and the audit trail (issue 48), end to end: people and a
program credential made with the command line on a data directory, the real server on it, real
Python programs (Breakroom's client, and an unchanged cideldill client's loop), and the audit
trail read back with `breakroom audit`, also after a restart."""

import json
import os
import subprocess
import threading
import time
import urllib.parse

import pytest

from conftest import Program, Server, _binary, start_server
from cideldill_driver import ProtocolDriver

PROGRAM = """
    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    print("result:", compute(6, 7))
"""


def cli(data_dir, *args, env=None, check=True):
    done = subprocess.run(
        [_binary(), "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **(env or {})},
    )
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def token_of(done):
    """`user add`, `rotate` and `token add-program` print the token alone on the last line."""
    return done.stdout.strip().splitlines()[-1]


class As(Server):
    """The server, as the holder of `token`."""

    def __init__(self, server, token):
        super().__init__(server.url, server.process)
        self.token = token

    def request(self, method, path, body=None, timeout=30):
        import urllib.error
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("team") / "data"
    tokens = {
        "ada": token_of(cli(data_dir, "user", "add", "ada", "--role", "admin")),
        "dan": token_of(cli(data_dir, "user", "add", "dan", "--role", "debugger")),
        "vera": token_of(cli(data_dir, "user", "add", "vera", "--role", "viewer")),
        "worker": token_of(cli(data_dir, "token", "add-program", "worker")),
    }
    audit_log = data_dir.parent / "audit.jsonl"
    server = start_server("--eval-timeout", "10", "--audit-log", str(audit_log), data_dir=data_dir)
    team = {"server": server, "tokens": tokens, "data_dir": data_dir, "audit_log": audit_log}
    yield team
    # The server of the moment: a test restarts it.
    for running in {id(server): server, id(team["server"]): team["server"]}.values():
        if running.process.poll() is None:
            running.process.terminate()
            running.process.wait(5)


def audit(team, *args, until=None):
    """The records `breakroom audit` prints; with `until`, read again (the server writes its
    records a few milliseconds after answering) until `until(records)` holds."""
    deadline = time.time() + 10
    while True:
        done = cli(team["data_dir"], "audit", "--json", *args)
        records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        if until is None or until(records) or time.time() > deadline:
            return records
        time.sleep(0.1)


def test_tokens_are_printed_alone_and_only_their_hash_is_kept(team):
    for token in team["tokens"].values():
        assert token.startswith("brk_") and len(token) == 47, token
    listed = cli(team["data_dir"], "user", "list").stdout
    assert "ada" in listed and "admin" in listed and "worker" in listed and "program" in listed
    database = (team["data_dir"] / "breakroom.sqlite3").read_bytes()
    for token in team["tokens"].values():
        assert token.encode() not in database


def test_nothing_is_answered_without_a_credential_even_on_loopback(team):
    server = team["server"]
    status, body = Server(server.url, server.process).get("/api/paused")
    assert (status, body["error"]) == (401, "token_required")


def test_a_program_with_a_program_token_pauses_a_debugger_evaluates_a_viewer_may_not(team):
    server, tokens = team["server"], team["tokens"]
    dan, vera = As(server, tokens["dan"]), As(server, tokens["vera"])
    program = Program(PROGRAM, server, env={"BREAKROOM_TOKEN": tokens["worker"]})
    try:
        pause = dan.wait_for_pause("compute", pid=program.process.pid)
        status, body = vera.post("/api/repl/start", {"pause_id": pause["id"]})
        assert (status, body["error"]) == (403, "not_allowed"), body
        assert "needs the debugger role; vera is a viewer" in body["message"]
        session = dan.start_session(pause["id"])
        assert dan.output(session, "a * b + 1000") == "1042"
        # The program's credential opens nothing of the API.
        status, body = As(server, tokens["worker"]).get("/api/paused")
        assert (status, body["error"]) == (403, "not_allowed"), body
        dan.resume(pause["id"])
        code, out, err = program.finish()
        assert code == 0, err
        assert "result: 43" in out
    finally:
        program.kill()
    evals = audit(team, "--user", "dan", "--action", "eval", until=bool)
    assert evals, audit(team)
    last = evals[-1]
    assert last["door"] == "rest" and last["role"] == "debugger" and last["outcome"] == "done"
    assert last["detail"] == {"expr": "a * b + 1000"} or last["detail"].get("expr") == "a * b + 1000", last
    assert last["target"]["session_id"] == session
    assert Server(server.url, server.process).get("/api/paused")[0] == 401  # this test's own refusal
    refused = audit(team, "--user", "vera", until=bool)
    assert any(r["outcome"] == "refused" and r["status"] == 403 and "/api/repl/start" in r["action"] for r in refused)
    anonymous = audit(team, "--user", "anonymous", until=lambda rs: any(r["status"] == 401 for r in rs))
    assert any(r["status"] == 401 for r in anonymous)
    assert not any(tokens["dan"] in json.dumps(r) for r in audit(team)), "a record never holds a token"


def test_an_unchanged_cideldill_client_runs_with_a_program_token(team):
    server, tokens = team["server"], team["tokens"]
    parsed = urllib.parse.urlsplit(server.url)
    url = f"http://breakroom:{tokens['worker']}@{parsed.hostname}:{parsed.port}"
    driver = ProtocolDriver(url, "cdd_checkout")
    thread = threading.Thread(target=driver.run, daemon=True)
    thread.start()
    assert driver.paused.wait(10), "the cideldill loop never paused"
    dan = As(server, tokens["dan"])
    session = dan.start_session(driver.pause_id)
    assert dan.output(session, "order_id * 6") == "42"
    dan.resume(driver.pause_id)
    thread.join(10)
    assert driver.action == {"action": "continue"} or driver.action.get("action") == "continue", driver.action


def test_user_changes_from_the_command_line_are_audited_and_take_effect_on_the_running_server(team):
    server, data_dir = team["server"], team["data_dir"]
    temp = token_of(cli(data_dir, "user", "add", "temp", "--role", "debugger"))
    assert As(server, temp).get("/api/paused")[0] == 200
    cli(data_dir, "user", "set-role", "temp", "viewer")
    deadline = time.time() + 5  # a running server re-reads a cached token within 2 s
    while As(server, temp).post("/api/repl/start", {"pause_id": "p-1"})[0] != 403:
        assert time.time() < deadline, "the new role never applied"
        time.sleep(0.2)
    cli(data_dir, "user", "remove", "temp")
    deadline = time.time() + 5
    while As(server, temp).get("/api/paused")[0] != 401:
        assert time.time() < deadline, "the removed token kept working"
        time.sleep(0.2)
    changes = [r for r in audit(team, "--action", "user") if r["target"].get("user") == "temp"]
    assert [r["action"] for r in changes] == ["user add", "user set-role", "user remove"], changes
    assert all(r["door"] == "cli" and r["actor"].startswith("local:") for r in changes)
    failed = cli(data_dir, "user", "remove", "nobody", check=False)
    assert failed.returncode == 1 and "no user named" in failed.stderr


def test_an_admin_launches_a_process_that_gets_a_credential_of_its_own(team):
    server, tokens, data_dir = team["server"], team["tokens"], team["data_dir"]
    ada = As(server, tokens["ada"])
    status, process = ada.post(
        "/api/processes",
        {"command": ["python3", "-c", "import os; print(os.environ['BREAKROOM_TOKEN'][:4], flush=True)"]},
    )
    assert status == 200, process
    status, body = As(server, tokens["dan"]).post("/api/processes", {"command": ["true"]})
    assert (status, body["error"]) == (403, "not_allowed"), "launching is an admin's"
    deadline = time.time() + 10
    while True:
        detail = ada.get(f"/api/processes/{process['id']}")[1]
        if detail["status"] != "running":
            break
        assert time.time() < deadline
        time.sleep(0.05)
    lines = ada.get(f"/api/processes/{process['id']}/output?stream=stdout")[1]["lines"]
    assert [line["text"] for line in lines] == ["brk_"], "it was given a program token"
    assert f"launched-{process['id']}" not in cli(data_dir, "user", "list").stdout, "its credential ended with it"
    launches = audit(team, "--user", "ada", "--action", "POST /api/processes", until=bool)
    assert launches and launches[-1]["detail"]["command"][0] == "python3"


def test_the_audit_trail_survives_a_restart_and_history_pruning_and_goes_to_the_log_file(team):
    before = audit(team)
    assert before
    logged = [json.loads(line) for line in team["audit_log"].read_text().splitlines()]
    assert {r["action"] for r in logged} >= {r["action"] for r in before if r["door"] != "cli"}
    server = team["server"]
    server.process.terminate()
    server.process.wait(5)
    # Back with a history of one process: launches pruned from history stay in the trail.
    team["server"] = start_server("--keep-processes", "1", "--retain-clean", "0", data_dir=team["data_dir"])
    after = audit(team)
    assert [r["id"] for r in after][: len(before)] == [r["id"] for r in before]
    ada = As(team["server"], team["tokens"]["ada"])
    assert ada.get("/api/audit?user=dan")[1]["records"]
    for _ in range(3):
        status, process = ada.post("/api/processes", {"command": ["true"]})
        assert status == 200, process
        # History is pruned when a process is added, and a running one is never pruned: each
        # ends before the next starts, so that the next one's start leaves only itself.
        deadline = time.time() + 10
        while ada.get(f"/api/processes/{process['id']}")[1]["status"] == "running":
            assert time.time() < deadline
            time.sleep(0.02)
    kept = ada.get("/api/processes?all=1")[1]["processes"]
    assert [p["id"] for p in kept] == [process["id"]], kept
    launches = audit(team, "--action", "POST /api/processes", until=lambda rs: len(rs) >= 4)
    assert len(launches) >= 4, launches


def test_users_live_in_postgresql_for_every_server_on_it(postgres_cluster, tmp_path):
    url = postgres_cluster.fresh_database()
    done = subprocess.run(
        [_binary(), "--database-url", url, "user", "add", "pat", "--role", "debugger"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    token = token_of(done)
    servers = [start_server("--database-url", url, data_dir=tmp_path / f"d{i}") for i in range(2)]
    try:
        for server in servers:
            assert Server(server.url, server.process).get("/api/paused")[0] == 401
            assert As(server, token).get("/api/paused")[0] == 200
        status, _ = As(servers[0], token).post("/api/repl/start", {"pause_id": "p-missing"})
        assert status == 404
        records = subprocess.run(
            [_binary(), "--database-url", url, "audit", "--json", "--user", "pat"],
            capture_output=True, text=True, timeout=60,
        )
        lines = [json.loads(line) for line in records.stdout.splitlines()]
        deadline = time.time() + 10
        while not any(r["status"] == 404 for r in lines) and time.time() < deadline:
            time.sleep(0.2)
            records = subprocess.run(
                [_binary(), "--database-url", url, "audit", "--json", "--user", "pat"],
                capture_output=True, text=True, timeout=60,
            )
            lines = [json.loads(line) for line in records.stdout.splitlines()]
        assert any(r["action"] == "POST /api/repl/start" and r["outcome"] == "failed" for r in lines), lines
    finally:
        for server in servers:
            server.process.terminate()
            server.process.wait(5)


def test_an_agent_over_mcp_acts_as_its_user_and_is_audited_with_door_mcp(team):
    import asyncio

    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server, tokens = team["server"], team["tokens"]

    async def as_user(name, tool, arguments):
        headers = {"Authorization": f"Bearer {tokens[name]}"}
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(server.url + "/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool(tool, arguments)

    def call(name, tool, arguments):
        return asyncio.run(asyncio.wait_for(as_user(name, tool, arguments), 30))

    listed = call("vera", "breakpoint_list_breakpoints", {})
    assert not listed.is_error, listed
    refused = call("vera", "breakpoint_add", {"function_name": "mcp_target"})
    assert refused.is_error and refused.structured_content["error"] == "not_allowed", refused
    assert "needs the debugger role" in refused.structured_content["message"]
    added = call("dan", "breakpoint_add", {"function_name": "mcp_target"})
    assert not added.is_error, added
    records = audit(team, "--action", "mcp breakpoint_add", until=lambda r: len(r) >= 2)
    by_actor = {r["actor"]: r for r in records}
    assert by_actor["vera"]["outcome"] == "refused" and by_actor["vera"]["door"] == "mcp"
    assert by_actor["dan"]["outcome"] == "done" and by_actor["dan"]["detail"] == {"function_name": "mcp_target"}
    assert not audit(team, "--action", "mcp breakpoint_list_breakpoints"), "reads are not audited"
    # A program credential is no agent: /mcp is refused at the door.
    with pytest.raises(BaseException):
        call("worker", "breakpoint_list_breakpoints", {})


def test_the_command_line_and_stdio_bridges_send_breakroom_token(team):
    server, tokens = team["server"], team["tokens"]
    env = {"BREAKROOM_URL": server.url, "BREAKROOM_TOKEN": tokens["ada"]}
    done = subprocess.run([_binary(), "ps"], capture_output=True, text=True, timeout=30, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    env["BREAKROOM_TOKEN"] = tokens["vera"]
    done = subprocess.run(
        [_binary(), "breakpoint", "add", "function", "cli_target"], capture_output=True, text=True, timeout=30,
        env={**os.environ, **env},
    )
    assert done.returncode != 0 and "debugger role" in done.stderr, (done.stdout, done.stderr)
    records = audit(team, "--user", "vera", until=lambda rs: any(r["door"] == "cli" for r in rs))
    assert any(r["door"] == "cli" and r["outcome"] == "refused" for r in records), records


def test_a_viewer_may_not_page_or_view_tables_they_run_code_in_the_program(team):
    server, tokens = team["server"], team["tokens"]
    dan, vera = As(server, tokens["dan"]), As(server, tokens["vera"])
    program = Program(PROGRAM, server, env={"BREAKROOM_TOKEN": tokens["worker"]})
    try:
        pause = dan.wait_for_pause("compute", pid=program.process.pid)
        session = dan.start_session(pause["id"])
        status, answer = dan.post(f"/api/repl/{session}/eval", {"expr": "rows = [{'n': i} for i in range(300)]; rows"})
        assert status == 200, answer
        url = answer["outputs"][0]["metadata"]["breakroom"]["table"]["url"]
        handle = url.rsplit("/", 1)[1]
        assert dan.get(f"{url}?offset=200")[0] == 200
        for path in (url, f"/repl/{session}/table/{handle}", f"/repl/{session}/view?path=%5B%5B%22var%22%2C%22rows%22%5D%5D"):
            status, body = vera.get(path)
            assert (status, body.get("error")) == (403, "not_allowed"), (path, body)
        status, body = vera.post(f"/api/repl/{session}/variables/view", {"path": [["var", "rows"]]})
        assert (status, body["error"]) == (403, "not_allowed"), body
        dan.resume(pause["id"])
    finally:
        program.kill()


def test_the_task_list_is_read_by_viewers_and_refused_without_a_credential_or_to_a_program(team):
    server, tokens = team["server"], team["tokens"]
    path = "/api/processes/no-such-process/tasks"
    status, body = Server(server.url, server.process).get(path)
    assert (status, body["error"]) == (401, "token_required")
    status, body = As(server, tokens["worker"]).get(path)  # a program credential: the protocol only
    assert (status, body["error"]) == (403, "not_allowed"), body
    status, body = As(server, tokens["vera"]).get(path)  # a viewer gets through to the answer
    assert status == 404, body
    # And the program's side of it is the program protocol's: a viewer may not post a list.
    status, body = As(server, tokens["vera"]).post("/api/task-lists", {"ask_id": "tasks-x", "tasks": []})
    assert (status, body["error"]) == (403, "not_allowed"), body
