"""Several server addresses (`BREAKROOM_URL=http://a,http://b`): a program talks to the first
that answers and, when that server dies, moves on to the next, where its pause, its breakpoint
channel and its calls carry on. Real server binaries killed with SIGKILL, real programs; the
address list's own rules are tested without a server at the end."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest
from conftest import CLIENT_DIR, start_server

sys.path.insert(0, str(CLIENT_DIR))
from breakroom.protocol import servers as _servers  # noqa: E402

# A paused program is told of on the other server within this long of its server's death.
FAILOVER_LIMIT = 3.0


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    """One server on a fixed port and data directory, so it can be killed and started again."""

    def __init__(self):
        self.port = _free_port()
        self.data_dir = tempfile.mkdtemp(prefix="breakroom-failover-")
        self.server = None
        self.start()

    def start(self):
        self.server = start_server("--port", str(self.port), "--eval-timeout", "10", data_dir=self.data_dir)
        return self.server

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def kill(self):
        """SIGKILL: the server gets no chance to answer its held polls."""
        self.server.process.kill()
        self.server.process.wait()

    def stop(self):
        if self.server.process.poll() is None:
            self.kill()


@pytest.fixture
def nodes():
    made = []

    def make():
        node = Node()
        made.append(node)
        return node

    yield make
    for node in made:
        node.stop()


@pytest.fixture
def programs():
    started = []

    def run(source, urls, *, module=False, **env):
        fd, path = tempfile.mkstemp(suffix=".py", prefix="breakroom_failover_")
        with os.fdopen(fd, "w") as f:
            f.write(textwrap.dedent(source))
        command = [sys.executable, *(["-m", "breakroom"] if module else []), path]
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": urls, "PYTHONUNBUFFERED": "1", **env},
        )
        process.path = path
        started.append(process)
        return process

    yield run
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _pause_of(server, pid, function_name, timeout):
    """The pause of `pid` in `function_name` listed by `server`, or None after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        for p in server.paused():
            if p["call_data"]["process_pid"] == pid and p["call_data"]["method_name"] == function_name:
                return p
        if time.monotonic() > deadline:
            return None
        time.sleep(0.01)


def _listed(server, pid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.get("pid") == pid for p in server.get("/api/processes")[1]["processes"]):
            return True
        time.sleep(0.02)
    return False


def _must_pause(server, process, function_name, timeout=15):
    pause = _pause_of(server, process.pid, function_name, timeout)
    if pause is None:
        process.kill()
        raise AssertionError(f"{function_name} never paused at {server.url}: {process.communicate()}")
    return pause


CHECKOUT = """
    import breakroom

    @breakroom.breakpoint
    def checkout(order_id, discount):
        return order_id * 3 - discount

    print("total:", checkout(7, 1))
"""


def test_a_paused_call_moves_to_the_second_server_within_3_s_of_the_first_dying(nodes, programs):
    first, second = nodes(), nodes()
    program = programs(CHECKOUT, f"{first.url},{second.url}")
    before = _must_pause(first.server, program, "checkout")
    assert _pause_of(second.server, program.pid, "checkout", 0) is None, "paused on the first server only"

    first.kill()
    killed = time.monotonic()
    moved = _pause_of(second.server, program.pid, "checkout", FAILOVER_LIMIT)
    took = time.monotonic() - killed
    assert moved is not None, f"not paused at the second server {FAILOVER_LIMIT} s after the first died"
    assert moved["call_data"]["stop"]["reconnected_from"] == before["id"]

    server = second.server
    session = server.start_session(moved["id"])
    assert server.output(session, "(order_id, discount)") == "(7, 1)"
    server.eval(session, "discount = 5")  # the call runs with what the REPL left
    server.resume(moved["id"])
    out, err = program.communicate(timeout=20)
    assert program.returncode == 0, err
    assert out.strip() == "total: 16"
    assert f"{first.url} stopped answering" in err and f"using {second.url}" in err, err
    assert "cannot reach" not in err, "it never ran without its server"
    print(f"failover of a paused call: {took * 1000:.0f} ms")


TICKS = """
    import time

    state = {"done": False}

    def tick(n):
        return n + 1  # TICK

    n = 0
    while not state["done"]:
        n = tick(n)
        time.sleep(0.02)
    print("ticks done")
"""


def test_a_breakpoint_set_on_the_second_server_after_failover_pauses_the_program(nodes, programs):
    first, second = nodes(), nodes()
    program = programs(TICKS, f"{first.url},{second.url}", module=True)
    assert _listed(first.server, program.pid, 15), "the program called in at the first server"

    first.kill()
    killed = time.monotonic()
    # Its breakpoint channel asks the second server for the whole set, which lists the process.
    assert _listed(second.server, program.pid, FAILOVER_LIMIT), "the channel did not move to the second server"
    took = time.monotonic() - killed

    server = second.server
    tick_line = next(n for n, line in enumerate(textwrap.dedent(TICKS).splitlines(), 1) if line.endswith("# TICK"))
    status, bp = server.post("/api/breakpoints", {"kind": "line", "file": program.path, "line": tick_line})
    assert status == 200, bp
    pause = _must_pause(server, program, "tick", timeout=10)
    assert pause["call_data"]["stop"]["kind"] == "line"
    session = server.start_session(pause["id"])
    assert int(server.output(session, "n")) > 0
    server.eval(session, 'state["done"] = True')
    server.request("DELETE", f"/api/breakpoints/{bp['id']}")
    server.resume(pause["id"])
    out, err = program.communicate(timeout=20)
    assert program.returncode == 0, err
    assert out.strip() == "ticks done"
    print(f"failover of the breakpoint channel: {took * 1000:.0f} ms")


RUNNING = """
    import time, breakroom

    @breakroom.breakpoint
    def tick(n):
        return n

    n = 0
    while True:
        tick(n)
        print("called", n)
        n += 1
        time.sleep(0.05)
"""


def test_a_running_program_pauses_at_the_second_server_at_its_next_call(nodes, programs):
    first, second = nodes(), nodes()
    first.server.post("/api/behavior", {"behavior": "go"})  # its calls run on while it is up
    program = programs(RUNNING, f"{first.url},{second.url}")
    assert program.stdout.readline().strip() == "called 0", "the first call ran at the first server"

    first.kill()
    killed = time.monotonic()
    # The next call is told to the second server, which learned the function and pauses it.
    pause = _pause_of(second.server, program.pid, "tick", FAILOVER_LIMIT)
    assert pause is not None, f"no pause at the second server {FAILOVER_LIMIT} s after the first died"
    took = time.monotonic() - killed
    session = second.server.start_session(pause["id"])
    assert int(second.server.output(session, "n")) > 0
    program.kill()
    _, err = program.communicate()
    assert "cannot reach" not in err, "no call ran without a server"
    print(f"failover of a running program: {took * 1000:.0f} ms")


def test_the_first_address_that_answers_is_used_and_the_list_wraps_around(nodes, programs):
    first, second = nodes(), nodes()
    first.kill()  # down when the program starts: it talks to the second
    program = programs(
        """
        import breakroom
        value = 1
        breakroom.set_trace()
        print("value", value)
        """,
        f"{first.url},{second.url}",
    )
    on_second = _must_pause(second.server, program, "<module>")
    first.start()
    second.kill()
    killed = time.monotonic()
    back = _pause_of(first.server, program.pid, "<module>", FAILOVER_LIMIT)
    assert back is not None, "the pause did not wrap around to the first address"
    assert time.monotonic() - killed < FAILOVER_LIMIT
    assert back["call_data"]["stop"]["reconnected_from"] == on_second["id"]
    session = first.server.start_session(back["id"])
    first.server.eval(session, "value = 2")
    first.server.resume(back["id"])
    out, err = program.communicate(timeout=20)
    assert program.returncode == 0, err
    assert out.strip() == "value 2"


def test_a_bad_entry_in_the_list_is_an_error_naming_it(programs):
    program = programs(CHECKOUT, "http://127.0.0.1:5174,ftp://backup:21")
    out, err = program.communicate(timeout=20)
    assert program.returncode == 1 and out == ""
    assert "ValueError: BREAKROOM_URL entry 2 of 2, 'ftp://backup:21', is not an http:// or https:// URL" in err, err

    runner = programs("print('never runs')", "http://127.0.0.1:5174, 127.0.0.1:5175", module=True)
    out, err = runner.communicate(timeout=20)
    assert runner.returncode == 2 and out == ""
    assert err.strip() == "breakroom: BREAKROOM_URL entry 2 of 2, '127.0.0.1:5175', is not an http:// or https:// URL", err


NODE_TICKS = """
    import { withDebug } from 'CLIENT';
    const tick = withDebug(function tick(n) { return n; });
    let n = 0;
    for (;;) {
      await tick(n);
      n += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
"""


def _node(source, urls):
    fd, path = tempfile.mkstemp(suffix=".mjs", prefix="breakroom_failover_")
    client = CLIENT_DIR.parent / "client-js" / "breakroom.mjs"
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source).replace("CLIENT", client.as_uri()))
    env = {**os.environ, "BREAKROOM_URL": urls}
    return subprocess.Popen(["node", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_a_running_node_program_moves_to_the_second_server_at_its_next_call(nodes):
    first, second = nodes(), nodes()
    second.server.post("/api/breakpoints", {"function_name": "tick"})  # a JavaScript call pauses at one
    proc = _node(NODE_TICKS, f"{first.url},{second.url}")
    try:
        assert _listed(first.server, proc.pid, 15), "the program called in at the first server"
        first.kill()
        killed = time.monotonic()
        pause = _pause_of(second.server, proc.pid, "tick", FAILOVER_LIMIT)
        assert pause is not None, f"no pause at the second server {FAILOVER_LIMIT} s after the first died"
        print(f"failover of a running Node program: {(time.monotonic() - killed) * 1000:.0f} ms")
        session = second.server.start_session(pause["id"])
        assert int(second.server.output(session, "n")) > 0
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert f"using {second.url}" in err and "cannot reach" not in err, err


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_a_running_node_program_leaves_a_hung_server_after_6_s_of_silence(nodes):
    first, second = nodes(), nodes()
    second.server.post("/api/breakpoints", {"function_name": "tick"})
    proc = _node(NODE_TICKS, f"{first.url},{second.url}")
    try:
        assert _listed(first.server, proc.pid, 15), "the program called in at the first server"
        # Hung, not dead: its socket still accepts connections, it answers nothing.
        os.kill(first.server.process.pid, signal.SIGSTOP)
        hung = time.monotonic()
        try:
            pause = _pause_of(second.server, proc.pid, "tick", 15)
            assert pause is not None, "no pause at the second server 15 s after the first hung"
            print(f"a running Node program left a hung server after {time.monotonic() - hung:.1f} s")
            assert time.monotonic() - hung >= 5.5, "moved before the server had been silent 6 s"
            session = second.server.start_session(pause["id"])
            assert int(second.server.output(session, "n")) > 0
        finally:
            os.kill(first.server.process.pid, signal.SIGCONT)
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert f"stopped answering (silent for 6 s); using {second.url}" in err, err


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_node_client_refuses_a_bad_entry_by_name():
    proc = _node(
        """
        import { configure } from 'CLIENT';
        try {
          configure({ serverUrl: 'http://127.0.0.1:5174,ws://backup' });
        } catch (err) {
          console.log(err.message);
        }
        """,
        "",
    )
    out, err = proc.communicate(timeout=20)
    assert out.strip() == 'breakroom: BREAKROOM_URL entry 2 of 2, "ws://backup", is not an http(s) URL', err


# ---- the address list, without a server ---------------------------------------------------------


def test_a_list_of_addresses_is_parsed_with_spaces_and_a_trailing_comma():
    entries = _servers.parse(" http://a:1 , http://[::1]:2/base/ , https://c ,")
    assert [(s.url, s.host, s.port, s.base_path, s.host_header, s.tls) for s in entries] == [
        ("http://a:1", "a", 1, "", "a:1", False),
        ("http://[::1]:2/base", "::1", 2, "/base", "[::1]:2", False),
        ("https://c", "c", 443, "", "c", True),
    ]
    assert [s.url for s in _servers.parse(["http://a", "http://b:5"])] == ["http://a", "http://b:5"]
    assert [s.url for s in _servers.parse("")] == [_servers.DEFAULT_URL]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ftp://a", "BREAKROOM_URL must be an http:// or https:// URL, not 'ftp://a'"),
        ("http://a,http://b:port", "BREAKROOM_URL entry 2 of 2, 'http://b:port', is not an http:// or https:// URL"),
        ("localhost:5174,http://b", "BREAKROOM_URL entry 1 of 2, 'localhost:5174', is not an http:// or https:// URL"),
    ],
)
def test_an_entry_that_is_not_an_http_url_is_refused_by_name(spec, message):
    with pytest.raises(ValueError) as raised:
        _servers.parse(spec)
    assert str(raised.value) == message


def test_configure_refuses_a_bad_entry_and_accepts_a_list(monkeypatch):
    import breakroom
    from breakroom.process import current

    monkeypatch.setattr(current, "_client", None)
    with pytest.raises(ValueError, match="entry 2 of 2, 'udp://x'"):
        breakroom.configure(url="http://127.0.0.1:1,udp://x")
    client = breakroom.configure(url=["http://127.0.0.1:1", "http://127.0.0.1:2"])
    assert client.transport.url == "http://127.0.0.1:1,http://127.0.0.1:2"


def test_failures_move_round_robin_and_say_when_an_untried_address_is_left(capsys):
    servers = _servers.Servers(_servers.parse("http://a,http://b,http://c"))
    assert servers.current()[1].url == "http://a"
    assert servers.failed(0) is True  # b has not failed yet
    assert servers.failed(0) is True  # another thread saw a fail too: still b, moved once
    assert (servers.current()[1].url, servers.generation) == ("http://b", 1)
    assert servers.failed(1) is True
    assert servers.failed(2) is False  # all three failed since one answered: back to a, wait
    assert (servers.current()[1].url, servers.generation) == ("http://a", 3)
    servers.answered()
    assert servers.failed(0) is True  # a answered since: b is worth asking at once again
    said = capsys.readouterr().err.splitlines()
    assert said[0] == "breakroom: the Breakroom server at http://a stopped answering; using http://b"
    assert len(said) == 4


def test_a_single_address_never_moves():
    servers = _servers.Servers(_servers.parse("http://a"))
    assert servers.failed(0) is False
    assert (servers.current()[0], servers.generation) == (0, 0)
    assert servers.connect_timeout is None  # connects wait as long as any request, as before


def test_transports_of_one_list_share_the_address_in_use():
    from breakroom.protocol.transport import Transport

    dead = [f"http://127.0.0.1:{_free_port()}" for _ in range(2)]
    one, other = Transport(",".join(dead)), Transport(",".join(dead), timeout=5.0)
    assert one.servers is other.servers
    with pytest.raises(Exception) as raised:
        one.get_any("/api/breakpoints")
    assert type(raised.value).__name__ == "ServerUnavailable" and raised.value.moved is False
    assert one.servers.generation == other.servers.generation == 2  # each address tried once
