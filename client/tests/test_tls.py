"""HTTPS end to end (issue 49): a server started with --tls-cert and --tls-key, a throwaway CA made
here with the openssl command, and the Python client, the JavaScript client, the CLI, the MCP and
DAP bridges and the live stream talking to it over TLS. Plain HTTP to the TLS port and a CA that
did not sign the server's certificate are refused, with errors that say why."""

import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import tls_ca
from conftest import CLIENT_DIR, _binary, start_server

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command makes the test CA")

PROGRAM = """
    import breakroom

    def checkout(order_id):
        total = order_id * 2
        breakroom.set_trace()
        return total

    print("result", checkout(21), flush=True)
"""


@pytest.fixture(scope="module")
def certificates():
    made = tls_ca.make()
    yield made
    tls_ca.remove(made)


@pytest.fixture(scope="module")
def tls_server(certificates):
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    srv = start_server("--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]),
                       "--eval-timeout", "10", context=context)
    srv.port = int(srv.url.rsplit(":", 1)[1])
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


def _program(source, server, **env):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_tls_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    return subprocess.Popen(
        [sys.executable, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url, **env},
    )


def _pause_eval_continue(server, pid, function_name="checkout", expr="total + 1"):
    pause = server.wait_for_pause(function_name, timeout=20, pid=pid)
    session = server.start_session(pause["id"])
    answer = server.output(session, expr)
    server.resume(pause["id"])
    return answer


def test_the_server_speaks_https_and_says_so(tls_server):
    assert tls_server.url.startswith("https://127.0.0.1:")
    status, body = tls_server.get("/api/paused")
    assert (status, body) == (200, {"paused": []})


def test_a_python_program_pauses_evaluates_and_continues_over_tls(tls_server, certificates):
    program = _program(PROGRAM, tls_server, BREAKROOM_CA_FILE=str(certificates["ca"]))
    try:
        assert _pause_eval_continue(tls_server, program.pid) == "43"
        out, err = program.communicate(timeout=20)
    finally:
        program.kill()
    assert program.returncode == 0, err
    assert out.strip() == "result 42"


def test_several_evals_reuse_one_kept_alive_tls_connection(tls_server, certificates):
    """The eval fast path stays one round trip: the program's answers go over the connection it
    already holds, so the server sees one TLS connection from it, not one per eval."""
    source = """
        import breakroom

        def checkout(order_id):
            total = order_id * 2
            breakroom.set_trace()
            return total

        checkout(21)
        from breakroom.protocol import transport
        print("handshakes", transport._tls_handshakes, flush=True)
    """
    counting = Path(tempfile.mkdtemp(prefix="breakroom-tls-count-"))
    (counting / "sitecustomize.py").write_text(textwrap.dedent("""
        import ssl
        from breakroom.protocol import transport

        transport._tls_handshakes = 0
        _wrap = ssl.SSLContext.wrap_socket

        def _counted(self, *args, **kwargs):
            transport._tls_handshakes += 1
            return _wrap(self, *args, **kwargs)

        ssl.SSLContext.wrap_socket = _counted
    """))
    program = _program(source, tls_server, BREAKROOM_CA_FILE=str(certificates["ca"]),
                       PYTHONPATH=f"{counting}{os.pathsep}{CLIENT_DIR}")
    try:
        pause = tls_server.wait_for_pause("checkout", timeout=20, pid=program.pid)
        session = tls_server.start_session(pause["id"])
        answers = [tls_server.output(session, f"total + {n}") for n in range(20)]
        tls_server.resume(pause["id"])
        out, err = program.communicate(timeout=20)
    finally:
        program.kill()
    assert answers == [str(42 + n) for n in range(20)]
    handshakes = int(re.search(r"handshakes (\d+)", out).group(1))
    # One connection per client thread that spoke (the paused call, the breakpoint channel), not
    # one per eval.
    assert 1 <= handshakes <= 3, (handshakes, err)


def test_plain_http_to_the_tls_port_is_answered_with_a_400_naming_https(tls_server):
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=10) as sock:
        sock.sendall(f"GET /api/paused HTTP/1.1\r\nHost: 127.0.0.1:{tls_server.port}\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk  # the server closes the connection after its one answer
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), head
    assert json.loads(body)["error"] == "https_required"
    assert "https://" in json.loads(body)["message"]


def test_a_program_given_the_wrong_ca_runs_on_and_names_the_untrusted_url(tls_server, certificates):
    program = _program(PROGRAM, tls_server, BREAKROOM_CA_FILE=str(certificates["other"]))
    out, err = program.communicate(timeout=30)
    assert program.returncode == 0, err
    assert out.strip() == "result 42"  # never paused: the server was not trusted
    assert f"the certificate of {tls_server.url} is not trusted" in err, err
    assert "BREAKROOM_CA_FILE" in err
    assert tls_server.paused() == []


def test_a_program_given_an_http_url_for_the_tls_port_is_told_to_use_https(tls_server):
    plain = type("Plain", (), {"url": tls_server.url.replace("https://", "http://")})()
    program = _program(PROGRAM, plain)
    out, err = program.communicate(timeout=30)
    assert out.strip() == "result 42", err
    assert "https_required" in err, err


def test_a_process_the_server_launches_calls_back_on_loopback_and_pauses(tls_server):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_tls_launch_")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(PROGRAM))
    status, launched = tls_server.post("/api/processes", {"command": [sys.executable, path]})
    assert status in (200, 201), launched
    process = launched.get("process", launched)
    try:
        assert _pause_eval_continue(tls_server, process["pid"]) == "43"
    except AssertionError as never_paused:
        # What the program said and how it ended: the reason it did not call back, if it did not.
        record = tls_server.get(f"/api/processes/{process['id']}")[1]
        said = {
            stream: [line["text"] for line in tls_server.get(f"/api/processes/{process['id']}/output?stream={stream}")[1].get("lines", [])]
            for stream in ("stdout", "stderr")
        }
        raise AssertionError(f"{never_paused}\nthe process: {record}\nits output: {said}") from never_paused


def test_the_port_file_names_the_loopback_port_local_commands_use(tls_server):
    port = int(Path(tls_server.home, "port").read_text().strip())
    assert port != tls_server.port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/paused", timeout=10) as answer:
        assert json.loads(answer.read()) == {"paused": []}


def test_the_loopback_port_keeps_the_guard_of_the_tls_port(tls_server, certificates):
    """Who may call the loopback port: the same Host check (loopback names only) and the same
    credentials as the TLS port."""
    port = int(Path(tls_server.home, "port").read_text().strip())
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/paused", headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403
    assert json.loads(refused.value.read())["error"] == "forbidden_host"
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    srv = start_server("--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]),
                       "--token", "loopback-owner", context=context)
    try:
        local = int(Path(srv.home, "port").read_text().strip())
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{local}/api/paused", timeout=10)
        assert refused.value.code == 401
        allowed = urllib.request.Request(f"http://127.0.0.1:{local}/api/paused",
                                         headers={"Authorization": "Bearer loopback-owner"})
        with urllib.request.urlopen(allowed, timeout=10) as answer:
            assert json.loads(answer.read()) == {"paused": []}
    finally:
        srv.process.terminate()
        srv.process.wait(5)


def _cli(tls_server, *args, **env):
    env = {**os.environ, "BREAKROOM_URL": tls_server.url, **env}
    env.pop("BREAKROOM_CA_FILE", None) if "BREAKROOM_CA_FILE" not in env else None
    return subprocess.run([_binary(), *args], capture_output=True, text=True, env=env, timeout=30)


def test_cli_commands_verify_the_server_against_breakroom_ca_file(tls_server, certificates):
    trusted = _cli(tls_server, "breakpoint", "list", BREAKROOM_CA_FILE=str(certificates["ca"]))
    assert trusted.returncode == 0, trusted.stderr
    untrusted = _cli(tls_server, "breakpoint", "list", BREAKROOM_CA_FILE=str(certificates["other"]))
    assert untrusted.returncode == 1
    assert f"cannot reach the server at {tls_server.url}" in untrusted.stderr
    assert "certificate" in untrusted.stderr and "BREAKROOM_CA_FILE" in untrusted.stderr
    missing = _cli(tls_server, "breakpoint", "list", BREAKROOM_CA_FILE="/nonexistent/ca.pem")
    assert missing.returncode == 1
    assert "BREAKROOM_CA_FILE: cannot read /nonexistent/ca.pem" in missing.stderr, missing.stderr


def test_the_mcp_bridge_works_over_tls(tls_server, certificates):
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "breakpoint_list_paused", "arguments": {}}},
    ]
    env = {**os.environ, "BREAKROOM_URL": tls_server.url, "BREAKROOM_CA_FILE": str(certificates["ca"])}
    script = "\n".join(json.dumps(line) for line in lines) + "\n"
    done = subprocess.run([_binary(), "mcp"], input=script, capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "breakroom"
    assert answers[2]["result"]["isError"] is False


def _dap_message(body):
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def test_the_dap_upgrade_works_over_tls(tls_server, certificates):
    env = {**os.environ, "BREAKROOM_URL": tls_server.url, "BREAKROOM_CA_FILE": str(certificates["ca"])}
    bridge = subprocess.Popen([_binary(), "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env)
    try:
        bridge.stdin.write(_dap_message({"seq": 1, "type": "request", "command": "initialize",
                                         "arguments": {"adapterID": "breakroom"}}))
        bridge.stdin.flush()
        header = bridge.stdout.readline()
        assert header.startswith(b"Content-Length: "), (header, bridge.stderr.read1() if bridge.poll() else b"")
        length = int(header.split(b":")[1])
        bridge.stdout.readline()
        answer = json.loads(bridge.stdout.read(length))
    finally:
        bridge.kill()
        bridge.wait(5)
    assert answer["type"] == "response" and answer["command"] == "initialize" and answer["success"] is True


def test_the_live_stream_works_over_tls(tls_server, certificates):
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    with urllib.request.urlopen(tls_server.url + "/api/live", timeout=15, context=context) as stream:
        assert stream.status == 200
        program = _program(PROGRAM, tls_server, BREAKROOM_CA_FILE=str(certificates["ca"]))
        try:
            pause = tls_server.wait_for_pause("checkout", timeout=20, pid=program.pid)
            # The stream was open before the pause: its event is in what the stream sent.
            deadline = time.time() + 20
            heard = ""
            while pause["id"] not in heard and time.time() < deadline:
                heard += stream.readline().decode()
            assert pause["id"] in heard
            tls_server.resume(pause["id"])
            program.communicate(timeout=20)
        finally:
            program.kill()


NODE_PROGRAM = """
    import breakroom from %(client)s;
    async function checkout(orderId) {
      let total = orderId * 2;
      ({ total } = await breakroom.pause({ total }));
      return total;
    }
    console.log('result', await checkout(21));
"""


def _node(source, server, **env):
    fd, path = tempfile.mkstemp(suffix=".mjs", prefix="breakroom_tls_")
    client = CLIENT_DIR.parent / "client-js" / "breakroom.mjs"
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source % {"client": json.dumps(client.as_uri())}))
    env = {**os.environ, "BREAKROOM_URL": server.url, **env}
    return subprocess.Popen(["node", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_js_client_pauses_evaluates_and_continues_over_tls(tls_server, certificates):
    program = _node(NODE_PROGRAM, tls_server, BREAKROOM_CA_FILE=str(certificates["ca"]))
    try:
        pause = tls_server.wait_for_pause("checkout", timeout=20, pid=program.pid)
        session = tls_server.start_session(pause["id"])
        assert tls_server.output(session, "total + 1") == "43"
        tls_server.resume(pause["id"])
        out, err = program.communicate(timeout=20)
    finally:
        program.kill()
    assert program.returncode == 0, err
    assert out.strip() == "result 42"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_js_client_given_the_wrong_ca_names_the_untrusted_url(tls_server, certificates):
    program = _node(NODE_PROGRAM, tls_server, BREAKROOM_CA_FILE=str(certificates["other"]))
    out, err = program.communicate(timeout=30)
    assert program.returncode == 0, err
    assert out.strip() == "result 42"
    assert f"the certificate of {tls_server.url} is not trusted" in err, err


def test_a_server_given_an_unreadable_certificate_or_half_the_pair_says_so(certificates, tmp_path):
    missing = subprocess.run([_binary(), "--memory", "--port", "0", "--tls-cert", "/nonexistent/cert.pem",
                              "--tls-key", str(certificates["key"])], capture_output=True, text=True, timeout=30)
    assert missing.returncode == 1
    assert "cannot read the certificate /nonexistent/cert.pem" in missing.stderr, missing.stderr
    not_pem = tmp_path / "cert.txt"
    not_pem.write_text("not a certificate\n")
    garbage = subprocess.run([_binary(), "--memory", "--port", "0", "--tls-cert", str(not_pem),
                              "--tls-key", str(certificates["key"])], capture_output=True, text=True, timeout=30)
    assert garbage.returncode == 1
    assert f"{not_pem} holds no PEM certificate" in garbage.stderr, garbage.stderr
    mismatched = subprocess.run([_binary(), "--memory", "--port", "0", "--tls-cert", str(certificates["cert"]),
                                 "--tls-key", str(certificates["folder"] / "other.key")],
                                capture_output=True, text=True, timeout=30)
    assert mismatched.returncode == 1
    assert "do not make a TLS identity" in mismatched.stderr, mismatched.stderr
    half = subprocess.run([_binary(), "--memory", "--port", "0", "--tls-cert", str(certificates["cert"])],
                          capture_output=True, text=True, timeout=30)
    assert half.returncode != 0
    assert "--tls-key" in half.stderr, half.stderr


def test_cookies_set_over_tls_are_secure(certificates):
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    srv = start_server("--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]),
                       "--token", "tls-owner-token", context=context)
    try:
        request = urllib.request.Request(srv.url + "/?token=tls-owner-token")
        with urllib.request.urlopen(request, timeout=15, context=context) as page:
            cookies = page.headers.get_all("Set-Cookie")
        assert cookies and all(c.endswith("; Secure") for c in cookies), cookies
    finally:
        srv.process.terminate()
        srv.process.wait(5)


@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_serving_beyond_loopback_in_plain_http_warns_of_the_risk(certificates, tls):
    args = ["--host", "0.0.0.0", "--token", "beyond-loopback"]
    if tls:
        args += ["--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"])]
    srv = start_server(*args)
    try:
        warned = "cross the network in clear" in srv.started_with
        assert warned is not tls, srv.started_with
    finally:
        srv.process.terminate()
        srv.process.wait(5)


def test_a_paused_program_comes_back_to_a_restarted_tls_server(certificates):
    """The program's kept-alive TLS connections die with the server; it connects again, with a
    new handshake, to the server started on the same port, and its pause is drivable there."""
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    tls = ["--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"])]
    first = start_server(*tls, context=context)
    port = first.url.rsplit(":", 1)[1]
    program = _program(PROGRAM, first, BREAKROOM_CA_FILE=str(certificates["ca"]))
    second = None
    try:
        first.wait_for_pause("checkout", timeout=20, pid=program.pid)
        first.process.terminate()
        first.process.wait(10)
        second = start_server(*tls, "--port", port, data_dir=first.data_dir, context=context)
        assert second.url == first.url
        assert _pause_eval_continue(second, program.pid) == "43"
        out, err = program.communicate(timeout=20)
        assert out.strip() == "result 42", err
    finally:
        program.kill()
        for server in (first, second):
            if server is not None and server.process.poll() is None:
                server.process.terminate()
                server.process.wait(5)


def test_a_program_attached_by_pid_calls_back_on_loopback_and_pauses(tls_server):
    """Attach injects the client with the server's local address: the loopback port, so the
    attached program needs no certificate."""
    from test_attach import SCENARIOS, Target, pause_at_tick_and_eval

    target = Target(sys.executable, SCENARIOS["busy_loop"])
    try:
        target.wait_for_line("tick")
        status, answer = tls_server.post("/api/processes/attach", {"pid": target.pid, "timeout_s": 60}, timeout=90)
        assert status == 202, answer
        pause_at_tick_and_eval(tls_server, target)
    finally:
        target.kill()
