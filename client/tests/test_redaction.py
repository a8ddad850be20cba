"""Secrets never leave the program (issue 50): a real program whose call holds secrets by name
(arguments, a nested dict key, an attribute) and by value (a card number inside a longer string,
a JWT, an AWS key id) is looked at through every surface; no secret shows on any, the other
values do. The secrets reach the program through its environment, so its source (which the
pages show) holds none of them."""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import CLIENT_DIR, pause_program, start_server
from test_stepping import INTERPRETERS  # 3.11 steps with f_trace, 3.12+ with sys.monitoring

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, in-process

from breakroom import redaction  # noqa: E402

CARD = "4111 1111 1111 1111"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
AWS = "AKIAQ3EGRZ7TL5VPMX2K"
SECRETS = {
    "T_PW": "Sw0rdf1sh-pw-7731",
    "T_ATTR": "tok-attr-99812",
    "T_NEST": "nest-pw-4471",
}
SECRET_TEXTS = [*SECRETS.values(), CARD, CARD.replace(" ", ""), JWT, AWS]
ENV = {**SECRETS, "T_USER": "bob-the-user", "T_NOTE": f"paid with card {CARD} today, jwt {JWT}, key {AWS}"}

PROGRAM = """
    import os
    import breakroom

    class Account:
        def __init__(self, user, api_token):
            self.user = user
            self.api_token = api_token

    @breakroom.breakpoint
    def charge(user, password, note, account, config, amount=4242):
        return amount

    print("charged", charge(
        os.environ["T_USER"],
        os.environ["T_PW"],
        os.environ["T_NOTE"],
        Account("alice-account", os.environ["T_ATTR"]),
        {"host": "db.local", "password": os.environ["T_NEST"]},
    ))
"""

FRAME_PROGRAM = """
    import os
    import breakroom

    class Account:
        def __init__(self, user, api_token):
            self.user = user
            self.api_token = api_token

    def charge(user, password, note):
        account = Account("alice-account", os.environ["T_ATTR"])
        config = {"host": "db.local", "password": os.environ["T_NEST"]}
        amount = 4242
        breakroom.set_trace()
        return amount

    charge(os.environ["T_USER"], os.environ["T_PW"], os.environ["T_NOTE"])
"""


def assert_clean(text, where):
    for secret in SECRET_TEXTS:
        assert secret not in text, f"{secret!r} shows in {where}: {text[:2000]}"


def fetch_text(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as resp:
        return resp.read().decode("utf-8", "replace")


@pytest.fixture
def redacting_server():
    srv = start_server("--eval-timeout", "10")
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


# ---- the rules themselves ---------------------------------------------------------------------


def test_the_client_and_the_server_hold_the_same_default_rules(redacting_server):
    status, policy = redacting_server.get("/api/policy")
    assert status == 200, policy
    assert policy["names"] == list(redaction.DEFAULT_NAMES)
    assert policy["values"] == list(redaction.DEFAULT_VALUES)
    assert policy["cards"] is True
    assert policy["no_debug"] == []


def test_rules_in_the_program_redact_names_values_and_key_value_text():
    rules = redaction.Rules(redaction.DEFAULT_NAMES, redaction.DEFAULT_VALUES, True)
    assert rules.text(f"card {CARD}!") == ("card [redacted]!", 1)
    assert rules.text("card 4111 1111 1111 1112")[1] == 0  # fails the Luhn check
    assert rules.text(f"{JWT} and {AWS}")[0] == "[redacted] and [redacted]"
    assert rules.text("DB_PASSWORD=hunter2 USER=bob")[0] == "DB_PASSWORD=[redacted] USER=bob"
    assert rules.text("{'user': 'bob', 'api_key': 'k1'}")[0] == "{'user': 'bob', 'api_key': '[redacted]'}"
    assert rules.name_matches("X-Auth-Token") and not rules.name_matches("amount")


# ---- a paused call, on every surface --------------------------------------------------------------


def test_a_paused_calls_secrets_show_on_no_surface_while_the_rest_does(redacting_server):
    server = redacting_server
    p = pause_program(server, PROGRAM, "charge", env=ENV)
    try:
        paused = server.get("/api/paused")[1]
        text = json.dumps(paused)
        assert_clean(text, "/api/paused")
        assert "bob-the-user" in text and "[redacted]" in text

        # REPL answers: by name (plain, attribute, item) and by value.
        assert p.output("password") == "[redacted]"
        assert p.output("account.api_token") == "[redacted]"
        assert p.output("config['password']") == "[redacted]"
        assert p.output("user") == "'bob-the-user'"
        note = p.output("note")
        assert_clean(note, "the REPL's note")
        assert note.startswith("'paid with card [redacted] today")
        config = p.output("config")
        assert config == "{'host': 'db.local', 'password': '[redacted]'}"
        assert p.output("account.user") == "'alice-account'"

        # The variables panel and its expansions.
        status, panel = server.get(f"/api/repl/{p.session_id}/variables")
        assert status == 200, panel
        rows = {row["name"]: row for row in panel["variables"]}
        assert rows["password"]["repr"] == "[redacted]"
        assert rows["user"]["repr"] == "'bob-the-user'"
        assert panel["redacted"] >= 2
        assert_clean(json.dumps(panel), "the variables panel")
        status, expanded = server.post(
            f"/api/repl/{p.session_id}/variables/expand", {"path": rows["account"]["path"]}
        )
        assert status == 200, expanded
        children = {c["name"]: c for c in expanded["children"]}
        assert children["api_token"]["repr"] == "[redacted]"
        assert children["user"]["repr"] == "'alice-account'"
        assert expanded["redacted"] == 1
        status, expanded = server.post(f"/api/repl/{p.session_id}/variables/expand", {"path": rows["config"]["path"]})
        assert_clean(json.dumps(expanded), "the config expansion")
        # A path made by hand through a secret's name shows nothing of it.
        status, by_hand = server.post(
            f"/api/repl/{p.session_id}/variables/expand", {"path": [["var", "account"], ["attr", "api_token"]]}
        )
        assert_clean(json.dumps(by_hand), "an expansion under a secret's name")

        # Completion hints.
        status, done = server.post(f"/api/repl/{p.session_id}/complete", {"code": "config['", "cursor_pos": 8})
        assert status == 200, done
        assert_clean(json.dumps(done), "completion")

        # The pages.
        assert_clean(fetch_text(server, "/"), "/")
        assert_clean(fetch_text(server, f"/repl/{p.session_id}"), f"/repl/{p.session_id}")
        assert_clean(fetch_text(server, "/repls"), "/repls")
        status, found = server.get("/api/repl/sessions?search=redacted")
        assert status == 200, found
        assert_clean(json.dumps(found), "/api/repl/sessions?search=")
        for secret in SECRET_TEXTS:
            status, found = server.get("/api/repl/sessions?search=" + urllib.parse.quote(secret[:12]))
            assert status == 200 and not found.get("sessions"), (secret, found)

        p.resume()
        code, out, err = p.finish()
        assert code == 0, err
        assert "charged 4242" in out
    finally:
        p.program.kill()




# ---- snapshots and logpoints, where the program never stops -------------------------------------------

LINE_PROGRAM = """\
import os
import shutil


class Account:
    def __init__(self, user, api_token):
        self.user = user
        self.api_token = api_token


def charge(user, password, note):
    account = Account("alice-account", os.environ["T_ATTR"])
    config = {"host": "db.local", "password": os.environ["T_NEST"]}
    amount = 4242
    return amount  # HERE


print("charged", charge(os.environ["T_USER"], os.environ["T_PW"], os.environ["T_NOTE"]))
"""


def run_under_breakroom(server, source, env=None, tmp_path=None):
    path = tmp_path / "charge_app.py"
    path.write_text(source)
    proc = subprocess.run(
        [sys.executable, "-m", "breakroom", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, **ENV, **(env or {})},
    )
    return proc


def wait_for(check, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("never happened")


def test_a_snapshot_and_a_logpoint_show_no_secret_and_count_what_they_hid(redacting_server, tmp_path):
    server = redacting_server
    path = str(tmp_path / "charge_app.py")
    line = LINE_PROGRAM.splitlines().index("    return amount  # HERE") + 1
    status, snap = server.post(
        "/api/breakpoints",
        {"kind": "line", "file": path, "line": line, "action": "snapshot",
         "expressions": ["password", "account.api_token", "config['password']", "note", "config", "amount"]},
    )
    assert status == 200, snap
    status, log = server.post(
        "/api/breakpoints",
        {"kind": "line", "file": path, "line": line,
         "log_message": "pw={password} tok={account.api_token} note={note} cfg={config} amount={amount}"},
    )
    assert status == 200, log
    proc = run_under_breakroom(server, LINE_PROGRAM, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "charged 4242" in proc.stdout
    logged = [ln for ln in proc.stderr.splitlines() if ln.startswith("breakroom log")]
    assert logged, proc.stderr
    assert_clean("\n".join(logged), "the logpoint's message")
    assert "pw=[redacted] tok=[redacted] note=paid with card [redacted] today" in logged[0]
    assert "amount=4242" in logged[0]

    snaps = wait_for(lambda: server.get(f"/api/snapshots?breakpoint_id={snap['id']}")[1]["snapshots"])
    status, full = server.get(f"/api/snapshots/{snaps[0]['snapshot_id']}")
    assert status == 200, full
    text = json.dumps(full)
    assert_clean(text, "the snapshot")
    values = {e["expression"]: e.get("value", {}).get("repr") for e in full["expressions"]}
    assert values["password"] == values["account.api_token"] == values["config['password']"] == "[redacted]"
    assert values["amount"] == "4242"
    assert "alice-account" in text and "bob-the-user" in text
    assert full["redacted"] >= 6
    page = fetch_text(server, f"/snapshots/{snaps[0]['snapshot_id']}")
    assert_clean(page, "the snapshot page")
    assert f'<dd class="snapshot-redacted">{full["redacted"]} values</dd>' in page
    status, events = server.get("/api/events")
    assert status == 200
    assert_clean(json.dumps(events), "/api/events")


def exercise_every_store(server, tmp_path):
    """Pauses, evals, the panel, a snapshot and a logpoint with the secrets: all a server stores."""
    p = pause_program(server, PROGRAM, "charge", env=ENV)
    for expr in ("password", "note", "config", "account.api_token", "args", "print(note)"):
        p.output(expr)
    server.get(f"/api/repl/{p.session_id}/variables")
    p.resume()
    assert p.finish()[0] == 0
    path = str(tmp_path / "charge_app.py")
    line = LINE_PROGRAM.splitlines().index("    return amount  # HERE") + 1
    server.post("/api/breakpoints", {"kind": "line", "file": path, "line": line, "action": "snapshot",
                                     "expressions": ["note", "config"]})
    server.post("/api/breakpoints", {"kind": "line", "file": path, "line": line, "log_message": "{note} {password}"})
    assert run_under_breakroom(server, LINE_PROGRAM, tmp_path=tmp_path).returncode == 0
    wait_for(lambda: server.get("/api/snapshots")[1]["snapshots"])


def assert_no_secret_bytes(data, where):
    for secret in SECRET_TEXTS:
        for form in (secret.encode(), secret.encode().hex().encode()):
            assert form not in data, f"{secret!r} is in {where}"


def test_after_the_server_stops_no_secret_is_anywhere_in_its_data_directory(tmp_path):
    server = start_server("--eval-timeout", "10")
    try:
        exercise_every_store(server, tmp_path)
    finally:
        server.process.terminate()
        server.process.wait(10)
    files = [f for f in Path(server.data_dir).rglob("*") if f.is_file()]
    assert files, "the server kept nothing at all"
    for f in files:
        assert_no_secret_bytes(f.read_bytes(), f)


def test_after_the_server_stops_no_secret_is_in_any_table_of_its_postgresql_database(postgres_cluster, tmp_path):
    url = postgres_cluster.fresh_database()
    server = start_server("--eval-timeout", "10", "--database-url", url)
    try:
        exercise_every_store(server, tmp_path)
    finally:
        server.process.terminate()
        server.process.wait(10)
    # Every table, whole: pg_dump writes text as it is and bytea as hex.
    dump = subprocess.run(
        [os.path.join(postgres_cluster.bin, "pg_dump"), "--data-only", "-h", "127.0.0.1", "-p",
         str(postgres_cluster.port), "-U", "postgres", url.rsplit("/", 1)[-1]],
        capture_output=True, timeout=120,
    )
    assert dump.returncode == 0, dump.stderr
    assert b"COPY public." in dump.stdout and b"bob-the-user" in dump.stdout, "the dump holds the session"
    assert_no_secret_bytes(dump.stdout, "the PostgreSQL database")


def test_a_name_rule_of_the_servers_own_redacts_too():
    server = start_server("--eval-timeout", "10", "--redact-names", "pin_code,otp")
    try:
        status, policy = server.get("/api/policy")
        assert status == 200 and policy["names"][-2:] == ["pin_code", "otp"]
        p = pause_program(server, """
            import os
            import breakroom

            @breakroom.breakpoint
            def unlock(door, card_pin_code):
                return door

            unlock("front-door", os.environ["T_PIN"])
        """, "unlock", env={"T_PIN": "8841-pin"})
        assert p.output("card_pin_code") == "[redacted]"
        assert p.output("door") == "'front-door'"
        assert "8841-pin" not in json.dumps(server.get("/api/paused")[1])
        p.resume()
        p.finish()
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_a_name_rule_the_program_adds_with_configure_or_its_environment():
    server = start_server("--eval-timeout", "10")
    try:
        p = pause_program(server, """
            import os
            import breakroom

            breakroom.configure(redact_names=["member_no"])

            @breakroom.breakpoint
            def enrol(club, member_no, locker):
                return club

            enrol("chess", os.environ["T_MEMBER"], os.environ["T_LOCKER"])
        """, "enrol", env={"BREAKROOM_REDACT_NAMES": "locker", "T_MEMBER": "M-5521-x", "T_LOCKER": "L-77-x"})
        text = json.dumps(server.get("/api/paused")[1])
        assert "M-5521-x" not in text and "L-77-x" not in text
        assert p.output("member_no") == "[redacted]"
        assert p.output("locker") == "[redacted]"
        assert p.output("club") == "'chess'"
        p.resume()
        p.finish()
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_a_rule_outside_the_shared_dialect_stops_the_server_naming_it():
    from conftest import _binary

    proc = subprocess.run([_binary(), "--memory", "--port", "0", "--redact-values", "(?i)x"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0
    assert "(?i)x" in proc.stderr


# ---- an unchanged cideldill client ------------------------------------------------------------------------------


def test_an_unchanged_cideldill_clients_arguments_are_redacted_by_value_on_the_server(redacting_server):
    import base64
    import hashlib
    import pickle

    server = redacting_server
    note = ENV["T_NOTE"]
    data = pickle.dumps(note, protocol=4)
    cid = hashlib.sha512(data).hexdigest()
    pw = pickle.dumps(SECRETS["T_PW"], protocol=4)
    status, _ = server.post("/api/breakpoints", {"function_name": "cd_charge", "timestamp": time.time()})
    assert status == 200
    status, action = server.post("/api/call/start", {
        "method_name": "cd_charge",
        "args": [{"cid": cid, "client_ref": 1, "data": base64.b64encode(data).decode()}],
        "kwargs": {"password": {"cid": hashlib.sha512(pw).hexdigest(), "client_ref": 2,
                                "data": base64.b64encode(pw).decode()}},
        "call_site": {"timestamp": time.time(), "stack_trace": []},
        "process_pid": os.getpid(),
        "process_start_time": 1795331833.75,
        "signature": "(note, password)",
    })
    assert status == 200 and action["action"] == "poll", action
    text = json.dumps(server.get("/api/paused")[1])
    assert_clean(text, "/api/paused of a cideldill call")
    assert "paid with card [redacted] today" in text
    status, _ = server.get(f"/api/objects/{cid}")
    assert status == 404  # the secret's pickle was never stored
    pause_id = action["poll_url"].rsplit("/", 1)[-1]
    server.resume(pause_id)


# ---- places that are not debugged ---------------------------------------------------------------------------------

NO_DEBUG_MAIN = """\
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breakroom  # noqa: E402
from vault import keys  # noqa: E402


def inner():
    breakroom.set_trace()  # INNER
    return 1


def main():
    breakroom.set_trace()
    key = keys.fetch("k", None)  # CALL
    print("got", key)  # AFTER
    keys.fetch("k", inner)


main()
"""

NO_DEBUG_KEYS = """\
import os
import shutil


def fetch(name, then):
    vault_secret = os.environ["T_PW"]
    if then is not None:
        then()
    return name.upper() + str(len(vault_secret))  # INSIDE
"""


@pytest.mark.parametrize("python", INTERPRETERS)
def test_a_no_debug_place_refuses_breakpoints_is_stepped_over_and_hides_its_frames(tmp_path, python):
    server = start_server("--eval-timeout", "10", "--no-debug", "*/vault/*")
    app = tmp_path / "app"
    (app / "vault").mkdir(parents=True)
    (app / "vault" / "__init__.py").write_text("")
    keys = app / "vault" / "keys.py"
    keys.write_text(NO_DEBUG_KEYS)
    main = app / "main.py"
    main.write_text(NO_DEBUG_MAIN)
    proc = None
    try:
        status, policy = server.get("/api/policy")
        assert policy["no_debug"] == ["*/vault/*"]
        # The breakpoints panel lists the rules in force.
        req = urllib.request.Request(server.url + "/rpc/breakpoints_html", data=b"", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            panel_html = resp.read().decode()
        assert "not debugged (--no-debug): <code>*/vault/*</code>" in panel_html
        assert "password, passwd, secret" in panel_html
        for body in ({"kind": "line", "file": str(keys), "line": 7},
                     {"kind": "line", "file": str(keys), "line": 7, "action": "snapshot"},
                     {"kind": "line", "file": str(keys), "line": 7, "log_message": "{vault_secret}"}):
            status, refused = server.post("/api/breakpoints", body)
            assert status == 400, refused
            assert refused["error"] == "blocked_location"
            assert "*/vault/*" in refused["message"]
        status, ok = server.post("/api/breakpoints", {"kind": "line", "file": str(main), "line": 3, "log_message": "x"})
        assert status == 200, ok
        server.request("DELETE", f"/api/breakpoints/{ok['id']}")

        proc = subprocess.Popen(
            [python, str(main)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, **ENV},
        )
        lines = NO_DEBUG_MAIN.splitlines()

        def marker(n):
            return lines[n - 1].rsplit("# ", 1)[-1]

        pause = wait_for(lambda: [p for p in server.paused() if p["call_data"]["process_pid"] == proc.pid])[0]
        session = server.start_session(pause["id"])
        status, body = server.post(f"/api/paused/{pause['id']}/step", {"kind": "over"})
        assert status == 200 and body["status"] == "stopped", body
        assert marker(body["line"]) == "CALL"
        # Into the vault's fetch: stepped over, the next stop is the caller's next line.
        status, body = server.post(f"/api/paused/{body['pause_id']}/step", {"kind": "into"})
        assert status == 200 and body["status"] == "stopped", body
        assert body["function"] == "main" and marker(body["line"]) == "AFTER", body
        server.resume(body["pause_id"])

        # Paused in code the vault called: its frame shows where it is, nothing of what it holds.
        pause = wait_for(lambda: [p for p in server.paused()
                                  if p["call_data"]["process_pid"] == proc.pid and p["id"] != body["pause_id"]])[0]
        text = json.dumps(pause)
        assert SECRETS["T_PW"] not in text
        session = server.start_session(pause["id"])
        status, reply = server.post(f"/api/repl/{session}/eval", {"expr": "vault_secret", "frame": 1})
        assert status == 200, reply
        assert "hidden by policy" in reply["output"] and SECRETS["T_PW"] not in reply["output"]
        status, panel = server.get(f"/api/repl/{session}/variables?frame=1")
        assert status == 200, panel
        assert panel["variables"] == [] and "hidden by policy" in panel["hidden"]
        status, mine = server.get(f"/api/repl/{session}/variables?frame=0")
        assert status == 200 and "hidden" not in mine
        assert_clean(fetch_text(server, "/"), "/ with a hidden frame")
        server.resume(pause["id"])
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "got K" in out
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate()
        server.process.terminate()
        server.process.wait(10)


# ---- agents (MCP) and editors (DAP) -------------------------------------------------------------------------------


class Dap:
    """A minimal DAP client over `breakroom dap` (the stdio bridge an editor launches)."""

    def __init__(self, server):
        from conftest import _binary

        self.proc = subprocess.Popen([_binary(), "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, "BREAKROOM_URL": server.url})
        self.seq = 0

    def _read(self):
        header = self.proc.stdout.readline()
        assert header.startswith(b"Content-Length: "), (header, self.proc.stderr.read1() if self.proc.poll() else b"")
        length = int(header.split(b":")[1])
        self.proc.stdout.readline()
        return json.loads(self.proc.stdout.read(length))

    def request(self, command, **arguments):
        self.seq += 1
        data = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()
        while True:
            message = self._read()
            if message.get("type") == "response" and message.get("request_seq") == self.seq:
                assert message["success"], message
                return message.get("body") or {}

    def close(self):
        self.proc.kill()
        self.proc.wait(5)


def test_mcp_tools_and_dap_requests_show_no_secret(redacting_server):
    import asyncio

    from test_mcp import connect, run

    server = redacting_server
    p = pause_program(server, PROGRAM, "charge", env=ENV)
    try:
        pause = p.pause
        cids = [a.get("cid") for a in pause["call_data"].get("args", []) if isinstance(a, dict)]
        assert cids, pause

        async def body(agent, updates):
            seen = []
            frames = await agent.ok("list_frames", pause_id=p.pause_id)
            seen.append(json.dumps(frames))
            for cid in cids:
                seen.append(json.dumps(await agent.ok("breakpoint_inspect_object", cid=cid)))
            answer = await agent.ok("breakpoint_repl_eval", pause_id=p.pause_id, expression="password")
            seen.append(json.dumps(answer))
            return seen

        seen = run(connect(server.url, body))
        for text in seen:
            assert_clean(text, "an MCP tool's answer")
        assert any("bob-the-user" in t for t in seen)

        p.resume()
        p.finish()
        # An editor sees a frame's locals: the program pauses in its own frame (set_trace).
        p = pause_program(server, FRAME_PROGRAM, "charge", env=ENV)
        dap = Dap(server)
        try:
            dap.request("initialize", adapterID="breakroom")
            dap.request("attach")
            threads = dap.request("threads")["threads"]
            assert threads, threads
            mine = [t for t in threads if f"(pid {p.program.process.pid})" in t["name"]]
            assert mine, threads
            stack = dap.request("stackTrace", threadId=mine[0]["id"])["stackFrames"]
            assert stack, mine
            frame_id = stack[0]["id"]
            scopes = dap.request("scopes", frameId=frame_id)["scopes"]
            variables = dap.request("variables", variablesReference=scopes[0]["variablesReference"])["variables"]
            shown = {v["name"]: v["value"] for v in variables}
            assert shown.get("password") == "[redacted]", (stack, scopes, variables)
            assert shown["user"] == "'bob-the-user'"
            assert_clean(json.dumps(variables), "DAP variables")
            for expr in ("password", "note", "account.api_token", "config"):
                answer = dap.request("evaluate", expression=expr, frameId=frame_id, context="hover")
                assert_clean(json.dumps(answer), f"DAP evaluate {expr}")
            assert dap.request("evaluate", expression="password", frameId=frame_id, context="hover")["result"] == "[redacted]"
        finally:
            dap.close()
        p.resume()
        p.finish()
    finally:
        p.program.kill()


# ---- who may read the rules; what the audit trail keeps -------------------------------------------------------


def test_the_policy_is_shown_to_viewers_and_programs_only_and_the_audit_trail_keeps_no_secret(tmp_path):
    from test_users import As, audit, cli, token_of

    data_dir = tmp_path / "data"
    vera = token_of(cli(data_dir, "user", "add", "vera", "--role", "viewer"))
    dan = token_of(cli(data_dir, "user", "add", "dan", "--role", "debugger"))
    worker = token_of(cli(data_dir, "token", "add-program", "worker"))
    server = start_server("--eval-timeout", "10", "--no-debug", "*/vault/*", data_dir=data_dir)
    try:
        status, refused = server.get("/api/policy")
        assert status == 401, refused
        status, policy = As(server, vera).get("/api/policy")
        assert status == 200 and policy["no_debug"] == ["*/vault/*"], policy
        status, for_program = As(server, worker).get("/api/policy")
        assert status == 200 and for_program == policy, for_program  # the JavaScript client reads it

        # A debugger types a card number into an eval: the trail records the eval, not the number.
        as_dan = As(server, dan)
        p = pause_program(as_dan, PROGRAM, "charge", env={**ENV, "BREAKROOM_TOKEN": worker})
        status, answer = as_dan.post(f"/api/repl/{p.session_id}/eval", {"expr": f"len('{CARD}')"})
        assert status == 200 and answer["output"] == "19", answer
        records = audit({"data_dir": data_dir}, until=lambda rs: any("len(" in json.dumps(r) for r in rs))
        text = json.dumps(records)
        assert "len(" in text
        assert_clean(text, "the audit trail")
        as_dan.post(f"/api/paused/{p.pause_id}/continue", {"action": "continue"})
        p.finish()
    finally:
        server.process.terminate()
        server.process.wait(10)


# ---- the JavaScript client ----------------------------------------------------------------------------------------------

NODE_PROGRAM = """
import breakroom from %(client)s;
breakroom.configure({ redactNames: 'member_no' });

async function charge(user, password, note, member_no) {
  return `${user}:${note.length}`;
}

const wrapped = breakroom.withDebug(charge);
console.log('charged', await wrapped('bob-the-user', process.env.T_PW, process.env.T_NOTE, 'M-5521-x'));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_javascript_client_holds_the_same_rules_and_redacts_before_sending(redacting_server, tmp_path):
    server = redacting_server
    module = CLIENT_DIR.parent / "client-js" / "lib" / "redaction.mjs"
    check = tmp_path / "defaults.mjs"
    check.write_text(f"import {{ DEFAULT_NAMES, DEFAULT_VALUES }} from {json.dumps(module.as_uri())};\n"
                     "console.log(JSON.stringify({ names: DEFAULT_NAMES, values: DEFAULT_VALUES }));\n")
    done = subprocess.run(["node", str(check)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    status, policy = server.get("/api/policy")
    assert json.loads(done.stdout) == {"names": policy["names"], "values": policy["values"]}

    status, _ = server.post("/api/breakpoints", {"function_name": "charge"})
    assert status == 200
    source = tmp_path / "charge.mjs"
    client = CLIENT_DIR.parent / "client-js" / "breakroom.mjs"
    source.write_text(NODE_PROGRAM % {"client": json.dumps(client.as_uri())})
    program = subprocess.Popen(["node", str(source)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "BREAKROOM_URL": server.url, **ENV})
    try:
        pause = server.wait_for_pause("charge", timeout=20, pid=program.pid)
        text = json.dumps(server.get("/api/paused")[1])
        assert_clean(text, "/api/paused of a JavaScript call")
        assert "M-5521-x" not in text and "bob-the-user" in text
        session = server.start_session(pause["id"])
        assert server.output(session, "password") == "[redacted]"
        assert server.output(session, "member_no") == "[redacted]"
        assert "[redacted]" in server.output(session, "note")
        assert_clean(server.output(session, "note"), "a JavaScript eval")
        assert_clean(server.output(session, "args"), "a JavaScript eval of args")
        status, panel = server.get(f"/api/repl/{session}/variables")
        assert status == 200, panel
        assert_clean(json.dumps(panel), "the JavaScript variables panel")
        assert panel["redacted"] >= 3
        server.resume(pause["id"])
        out, err = program.communicate(timeout=20)
        assert program.returncode == 0, err
        assert out.startswith("charged bob-the-user:")
    finally:
        program.kill()


def test_an_unchanged_cideldill_clients_eval_answers_are_redacted_by_value_on_the_server(redacting_server):
    from cideldill_driver import ProtocolDriver

    server = redacting_server
    driver = ProtocolDriver(server.url, "cd_evals")
    thread = driver.start()
    try:
        session = server.start_session(driver.pause_id)
        answer = server.output(session, f"'paid with ' + {CARD!r}")
        assert answer == "'paid with [redacted]'"
        assert server.output(session, "total * 7") == "42"
        # What was typed is kept as typed (the book says so); what the program answered is not.
        outputs = [(e["output"], e["stdout"]) for e in server.session(session)["transcript"]]
        assert_clean(json.dumps(outputs), "a cideldill session's answers")
    finally:
        server.resume(driver.pause_id)
        thread.join(10)


def test_a_snapshot_from_a_client_that_does_not_redact_is_redacted_on_the_server(redacting_server):
    server = redacting_server
    status, bp = server.post("/api/breakpoints", {"kind": "line", "file": "/srv/app/pay.py", "line": 3,
                                                  "action": "snapshot"})
    assert status == 200, bp
    status, kept = server.post("/api/snapshots", {
        "breakpoint_id": bp["id"], "process_pid": 4242, "process_start_time": 1795331833.75, "taken_at": time.time(),
        "file": "/srv/app/pay.py", "line": 3, "function": "pay",
        "frames": [{"file": "/srv/app/pay.py", "line": 3, "function": "pay", "locals": [
            {"name": "password", "value": {"type": "str", "repr": repr(SECRETS["T_PW"])}},
            {"name": "note", "value": {"type": "str", "repr": repr(ENV["T_NOTE"])}},
            {"name": "user", "value": {"type": "str", "repr": "'bob-the-user'"}},
        ]}],
        "expressions": [{"expression": "token_text", "value": {"type": "str", "repr": repr(JWT)}}],
    })
    assert status == 201, kept
    status, full = server.get(f"/api/snapshots/{kept['snapshot_id']}")
    assert status == 200, full
    assert_clean(json.dumps(full), "a snapshot an older client sent")
    assert "bob-the-user" in json.dumps(full)
    assert full["redacted"] == 5  # the password, the card, the JWT and the AWS key in the note, the JWT


def test_commas_separate_rules_except_inside_a_repetition_or_a_class():
    assert redaction._split(r"pin_code, otp,ORDER-\d{6,8},[a,b]x,a\,b") == ["pin_code", "otp", r"ORDER-\d{6,8}", "[a,b]x", r"a\,b"]


def test_a_value_rule_with_a_comma_in_a_repetition_redacts_what_it_matches():
    server = start_server("--eval-timeout", "10", "--redact-values", r"ORDER-\d{6,8}")
    try:
        status, policy = server.get("/api/policy")
        assert policy["values"][-1] == r"ORDER-\d{6,8}", policy
        p = pause_program(server, """
            import os
            import breakroom

            @breakroom.breakpoint
            def ship(label):
                return label

            ship("box " + os.environ["T_ORDER"])
        """, "ship", env={"T_ORDER": "ORDER-1234567"})
        assert p.output("label") == "'box [redacted]'"
        p.resume()
        p.finish()
    finally:
        server.process.terminate()
        server.process.wait(10)
