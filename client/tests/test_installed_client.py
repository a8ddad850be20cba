"""The client as `pip install ./client` installs it, in a fresh virtual environment, not the
checkout on PYTHONPATH: every module imports, a program using it pauses at a real server, and the
Python processes a debugged program starts are debugged too (the `.pth` hook, issue 53)."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

CLIENT_DIR = pathlib.Path(__file__).resolve().parent.parent
PACKAGE_DIR = CLIENT_DIR / "breakroom"


def checkout_modules():
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(CLIENT_DIR).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[-1] != "__main__":  # runs the program runner: `-m breakroom --help` below instead
            names.append(".".join(parts))
    return names


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory):
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    can_build = subprocess.run([python, "-c", "import setuptools, wheel"], capture_output=True).returncode == 0
    # Offline when the venv can build a wheel already; else pip fetches the build backend.
    isolation = ["--no-build-isolation"] if can_build else []
    # From a copy: a build in place would leave build/ and *.egg-info in the checkout.
    source = tmp_path_factory.mktemp("source") / "client"
    subprocess.run(["cp", "-r", str(CLIENT_DIR), str(source)], check=True)
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", *isolation, str(source)],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        cwd=venv,
    )
    return python


def run_installed(python, args, cwd, env=None, **kw):
    """`python args` with only the installed client to import: no PYTHONPATH, not run from the
    checkout."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BREAKROOM_URL")}
    return subprocess.run([python, *args], cwd=cwd, env={**clean, **(env or {})}, capture_output=True, text=True, **kw)


def test_every_module_of_the_checkout_imports_from_the_installed_client(venv_python, tmp_path):
    names = checkout_modules()
    code = textwrap.dedent(
        f"""
        import importlib, os, sys
        for name in {names!r}:
            module = importlib.import_module(name)
            assert os.path.realpath(module.__file__).startswith(os.path.realpath(sys.prefix)), module.__file__
        print(len({names!r}))
        """
    )
    done = run_installed(venv_python, ["-c", code], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(names))


def test_python_m_breakroom_runs_from_the_installed_client(venv_python, tmp_path):
    done = run_installed(venv_python, ["-m", "breakroom"], cwd=tmp_path)
    assert done.returncode == 2 and "python -m breakroom" in done.stderr, done.stderr


def test_a_program_using_the_installed_client_pauses_at_the_server(venv_python, tmp_path, server):
    program = tmp_path / "installed_prog.py"
    program.write_text(
        textwrap.dedent(
            """
            import breakroom

            @breakroom.breakpoint
            def installed_double(n):
                return n * 2

            print(breakroom.__file__)
            print(installed_double(21))
            """
        )
    )
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    process = subprocess.Popen(
        [venv_python, str(program)],
        cwd=tmp_path,
        env={**clean, "BREAKROOM_URL": server.url, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pause = server.wait_for_pause("installed_double", timeout=20, pid=process.pid)
        session = server.start_session(pause["id"])
        assert server.output(session, "n + 1") == "22"
        server.resume(pause["id"])
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    where, result = out.split()
    assert "site-packages" in where and not where.startswith(str(CLIENT_DIR)), where
    assert result == "42"


CHILD = """
print("child ran", flush=True)
"""

# The parent pauses once its child has run: the child, which never imports breakroom, is listed
# under it only if the hook called in from the child.
PARENT = """
import subprocess, sys
import breakroom

child = subprocess.Popen([sys.executable, sys.argv[1]], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
output = child.communicate()[0]
breakroom.set_trace()
print(output.strip(), child.pid, child.returncode, flush=True)
"""


def follows_a_child(python, server, tmp_path):
    """`python -m breakroom parent.py` with nothing but the install to import (no PYTHONPATH):
    the child it starts is debugged too (listed under it, connected by the hook), as with
    `PYTHONPATH=client`; the parent pauses, is evaluated in and continues."""
    (tmp_path / "child.py").write_text(CHILD)
    (tmp_path / "parent.py").write_text(PARENT)
    process = subprocess.Popen(
        [python, "-m", "breakroom", "parent.py", "child.py"],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith(("BREAKROOM_", "PYTHON"))},
            "BREAKROOM_URL": server.url,
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pause = server.wait_for_pause("<module>", timeout=30, pid=process.pid)
        session = server.start_session(pause["id"])
        child_pid = int(server.output(session, "child.pid"))
        assert server.output(session, "output") == repr("child ran\n")
        everyone = server.get("/api/processes")[1]["processes"]
        parent = next(p for p in everyone if p["pid"] == process.pid and p["status"] == "paused")
        children = [p for p in everyone if p["id"] in parent["children"]]
        assert [p["pid"] for p in children] == [child_pid], (parent, everyone)
        assert children[0]["origin"] == "connected" and children[0]["role"] == "child", children
        server.resume(pause["id"])
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.split() == ["child", "ran", str(child_pid), "0"], (out, err)


def test_a_child_of_a_program_using_the_installed_client_is_debugged_too(venv_python, tmp_path, server):
    follows_a_child(venv_python, server, tmp_path)
