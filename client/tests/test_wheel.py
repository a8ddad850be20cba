"""The wheel users install (issue 53), in the fresh virtual environment scripts/test.sh made
(`BREAKROOM_WHEEL_VENV`): its `breakroom` command, started from another directory with none of
the project's variables, serves the site built into it (compressed, with ETags), and its client
follows a debugged program's children as `PYTHONPATH=client` does."""

import os
import re
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, Server
from test_installed_client import follows_a_child

VENV = os.environ.get("BREAKROOM_WHEEL_VENV")
pytestmark = pytest.mark.skipif(not VENV, reason="BREAKROOM_WHEEL_VENV is unset: scripts/test.sh builds and installs the wheel")


def clean_env(home):
    """What a user's shell has: none of the project's variables (LEPTOS_*, BREAKROOM_*, PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEPTOS_", "BREAKROOM_", "CIDELDILL_", "PYTHON"))}
    return {**env, "HOME": home, "XDG_DATA_HOME": os.path.join(home, "data")}


@pytest.fixture(scope="module")
def wheel_server():
    home = tempfile.mkdtemp(prefix="breakroom-wheel-")
    process = subprocess.Popen(
        [os.path.join(VENV, "bin", "breakroom"), "--port", "0"],
        cwd=home,
        env=clean_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen = ""
    deadline = time.time() + 20
    while time.time() < deadline:
        line = process.stdout.readline()
        seen += line
        match = re.search(r"Server running on (http://\S+)", line)
        if match:
            break
        if process.poll() is not None:
            break
    else:
        match = None
    if not match:
        process.kill()
        raise AssertionError(f"the wheel's breakroom did not start: {seen}")
    server = Server(match.group(1), process)
    yield server
    process.terminate()
    process.wait(5)


def fetch(url, **headers):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def test_the_command_is_the_wheel_s_and_names_its_commit():
    command = Path(VENV, "bin", "breakroom")
    assert command.is_file() and not str(command.resolve()).startswith(str(ROOT))
    done = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=10)
    match = re.match(r"breakroom 0\.1\.0 \(commit ([0-9a-f]{12}), site [0-9a-f]{16}\)$", done.stdout.strip())
    assert done.returncode == 0 and match, done
    # The commit it was built from (HEAD then; scripts/build.sh does not rebuild for a commit
    # that changed no build input, so it may be an ancestor of HEAD now).
    kind = subprocess.run(["git", "cat-file", "-t", match.group(1)], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", match.group(1), "HEAD"], cwd=ROOT).returncode
    assert kind == "commit" and ancestor == 0, (match.group(1), kind)


def test_the_site_comes_from_the_binary_compressed_and_cached(wheel_server):
    status, headers, page = fetch(wheel_server.url + "/")
    assert status == 200 and b"/pkg/breakroom.js" in page
    status, headers, body = fetch(wheel_server.url + "/pkg/breakroom.wasm", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["Content-Type"] == "application/wasm"
    assert headers["Content-Encoding"] == "br" and headers["Vary"] == "accept-encoding"
    raw = (ROOT / "target" / "site" / "pkg" / "breakroom.wasm").read_bytes()
    assert len(body) < len(raw) // 2, "brotli makes the wasm less than half its size"
    status, headers, body = fetch(wheel_server.url + "/pkg/breakroom.wasm", **{"Accept-Encoding": "identity"})
    assert status == 200 and "Content-Encoding" not in headers and body == raw
    status, headers, css = fetch(wheel_server.url + "/pkg/breakroom.css", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Type"] == "text/css" and headers["Content-Encoding"] == "gzip"
    etag = headers["ETag"]
    status, headers, body = fetch(wheel_server.url + "/pkg/breakroom.css", **{"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert status == 304 and body == b""
    status, _, _ = fetch(wheel_server.url + "/pkg/no-such-file.js")
    assert status == 404


def test_the_wheel_s_client_follows_children(wheel_server, tmp_path):
    follows_a_child(os.path.join(VENV, "bin", "python"), wheel_server, tmp_path)
