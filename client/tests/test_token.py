"""A server started with --token: this client passes BREAKROOM_TOKEN as a Bearer token and is
refused without it; an unchanged cideldill client (plain `requests`) passes it as Basic
credentials, from its server URL or from ~/.netrc."""

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import Program, Server, pause_program, start_server

TOKEN = "s3cret-token"

PROGRAM = """
    import breakroom

    @breakroom.breakpoint
    def compute(a, b):
        return a * b + 1

    print("result:", compute(6, 7))
"""


class TokenServer(Server):
    """The browser's side of the tests, carrying the token as the UI's cookie would."""

    def request(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        req.add_header("Authorization", f"Bearer {TOKEN}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")


@pytest.fixture(scope="module")
def token_server():
    plain = start_server("--token", TOKEN, "--eval-timeout", "10")
    srv = TokenServer(plain.url, plain.process)
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


def test_requests_without_the_token_are_refused(token_server):
    status, body = Server(token_server.url, token_server.process).get("/api/breakpoints")
    assert (status, body["error"]) == (401, "token_required")
    assert token_server.get("/api/breakpoints")[0] == 200


def test_a_program_with_breakroom_token_pauses_and_resumes(token_server):
    paused = pause_program(token_server, PROGRAM, "compute", env={"BREAKROOM_TOKEN": TOKEN})
    try:
        assert paused.output("a * b") == "42"
        paused.resume()
        code, out, err = paused.finish()
        assert code == 0, err
        assert "result: 43" in out
    finally:
        paused.program.kill()


def test_a_program_without_the_token_runs_unpaused_and_says_why(token_server):
    for token in ("", "wrong"):
        program = Program(PROGRAM, token_server, env={"BREAKROOM_TOKEN": token})
        code, out, err = program.finish()
        assert code == 0, err
        assert "result: 43" in out
        assert "401" in err and "token_required" in err, err
    assert not [p for p in token_server.paused() if p["call_data"]["method_name"] == "compute"]


def cideldill_base(token_server, userinfo=""):
    """The server URL as a cideldill client is configured with it, and the check it applies
    (docs/src/protocol.md §2: the host name must be a loopback name)."""
    parsed = urllib.parse.urlsplit(token_server.url)
    base = f"http://{userinfo}{parsed.hostname}:{parsed.port}"
    assert urllib.parse.urlparse(base).hostname in {"localhost", "127.0.0.1", "::1"}
    return base


def test_an_unchanged_cideldill_client_passes_the_token_in_its_server_url(token_server):
    requests = pytest.importorskip("requests")
    # What cideldill's DebugClient does: requests.get/post(f"{server_url}{path}"), no headers.
    base = cideldill_base(token_server, f"breakroom:{TOKEN}@")
    assert requests.get(f"{base}/api/breakpoints", timeout=5).status_code == 200
    reply = requests.post(f"{base}/api/breakpoints", json={"function_name": "cdd", "timestamp": 1.0}, timeout=5)
    assert reply.status_code == 200, reply.text
    assert requests.get(f"{cideldill_base(token_server)}/api/breakpoints", timeout=5).status_code == 401
    wrong = cideldill_base(token_server, "breakroom:nope@")
    assert requests.get(f"{wrong}/api/breakpoints", timeout=5).status_code == 401


def test_an_unchanged_cideldill_client_passes_the_token_from_netrc(token_server, tmp_path, monkeypatch):
    requests = pytest.importorskip("requests")
    netrc = tmp_path / "netrc"
    host = urllib.parse.urlsplit(token_server.url).hostname
    netrc.write_text(f"machine {host} login breakroom password {TOKEN}\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    assert requests.get(f"{cideldill_base(token_server)}/api/breakpoints", timeout=5).status_code == 200
