"""Child processes follow (issue 33): a program launched by the server, run with
`python -m breakroom`, or attached, has the Python processes it starts debugged too, filed
under it: subprocess, os.system, fork, fork+exec, multiprocessing fork/spawn/forkserver,
ProcessPoolExecutor. Children that cannot follow are listed as not followed, with why."""

import os
import subprocess
import sys
import tempfile
import textwrap
import time

from conftest import CLIENT_DIR
from test_attach import SCENARIOS, Target
from test_attach import server  # noqa: F401  (the module's own server, as test_attach has)


def write(source, prefix):
    fd, path = tempfile.mkstemp(suffix=".py", prefix=prefix)
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(source))
    return path


CHILD = write(
    """
    import sys, time
    time.sleep(float(sys.argv[1]))
    """,
    "breakroom_child_",
)

FAMILY = f"""
    import concurrent.futures, multiprocessing as mp, os, subprocess, sys, time
    CHILD = {CHILD!r}

    def square(x):
        # Long enough for a worker to call in on its own thread before the pool terminates it,
        # on a loaded machine too (a worker killed first is never listed).
        time.sleep(1.0)
        return x * x

    if __name__ == "__main__":
        started = [subprocess.Popen([sys.executable, CHILD, "1.01"])]
        os.system(f"{{sys.executable}} {{CHILD}} 1.02")
        forked = os.fork()
        if forked == 0:
            time.sleep(1.03)
            os._exit(0)
        execed = os.fork()
        if execed == 0:
            os.execv(sys.executable, [sys.executable, CHILD, "1.04"])
        started.append(subprocess.Popen([sys.executable, CHILD, "1.05"], env={{"PATH": os.environ["PATH"]}}))
        started.append(subprocess.Popen([sys.executable, "-I", CHILD, "1.06"]))
        for method in ("fork", "spawn", "forkserver"):
            with mp.get_context(method).Pool(2) as pool:
                print(method, pool.map(square, range(4)), flush=True)
        with concurrent.futures.ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as executor:
            print("executor", list(executor.map(square, range(4))), flush=True)
        for p in started:
            p.wait()
        os.waitpid(forked, 0)
        os.waitpid(execed, 0)
        time.sleep(0.5)
        print("done", flush=True)
"""


def processes(server):
    return server.get("/api/processes")[1]["processes"]


def wait_until_ended(server, process_id, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        status, record = server.get(f"/api/processes/{process_id}")
        if record["status"] not in ("running", "paused"):
            return record
        time.sleep(0.1)
    raise AssertionError(f"process {process_id} still runs")


def family_of(server, root_id):
    everyone = {p["id"]: p for p in processes(server)}
    tree = {}

    def walk(pid):
        for child in everyone[pid]["children"]:
            tree[child] = everyone[child]
            walk(child)

    walk(root_id)
    return everyone[root_id], tree


def arg_of(process):
    """The sleep seconds a CHILD got (its tag), or the multiprocessing role."""
    return process["command"][-1] if process["command"] else ""


def test_a_launched_program_s_children_are_filed_under_it(server):
    path = write(FAMILY, "breakroom_family_")
    status, launched = server.post("/api/processes", {"command": [sys.executable, path]})
    assert status == 200, launched
    ended = wait_until_ended(server, launched["id"])
    assert ended["exit_code"] == 0, ended
    root, tree = family_of(server, launched["id"])
    for child in tree:  # the children's ends are noticed by pid, within a second each
        wait_until_ended(server, child, timeout=20)
    root, tree = family_of(server, launched["id"])
    direct = [tree[c] for c in root["children"]]
    tags = sorted(arg_of(p) for p in direct if arg_of(p).startswith("1.0"))
    # subprocess, os.system (through sh), fork+exec (one record: the exec replaced it), env=, -I
    assert tags == ["1.01", "1.02", "1.04", "1.05", "1.06"], [p["command"] for p in direct]
    not_followed = {arg_of(p): p["not_followed"] for p in direct if p["not_followed"]}
    assert set(not_followed) == {"1.05", "1.06"}
    assert "env=" in not_followed["1.05"] and "-I" in not_followed["1.06"]
    assert all(p["role"] == "child" for p in direct if arg_of(p).startswith("1.0"))
    assert all(p["parent_id"] == root["id"] for p in direct)
    helpers = [p for p in tree.values() if p["role"] == "helper"]
    # spawn's and forkserver's resource trackers, and the forkserver itself
    assert len(helpers) >= 2, [p["command"] for p in tree.values()]
    forkserver = [p for p in helpers if any("forkserver" in a for a in p["command"])] or [
        p for p in helpers if p["children"]
    ]
    assert forkserver and len(forkserver[0]["children"]) == 2, "the forkserver's two workers are its children"
    workers = [p for p in tree.values() if p["role"] == "child" and not arg_of(p).startswith("1.0")]
    # the fork child, 2 fork workers, 2 spawn workers, 2 forkserver workers, 2 executor workers
    assert len(workers) == 9, [(p["command"], p["parent_id"]) for p in workers]
    assert all(p["origin"] == "connected" and p["status"] != "running" for p in tree.values())


def test_breakpoint_in_a_worker_pauses_under_the_worker_s_own_record(server):
    path = write(
        """
        import multiprocessing as mp, os

        def work(x):
            breakpoint()
            return x + 1

        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(1) as pool:
                print("result", pool.apply(work, (41,)), flush=True)
        """,
        "breakroom_worker_",
    )
    status, launched = server.post("/api/processes", {"command": [sys.executable, path]})
    assert status == 200, launched
    pause = server.wait_for_pause("work", timeout=20)
    worker_pid = pause["call_data"]["process_pid"]
    record = next(p for p in processes(server) if p["pid"] == worker_pid and p["status"] in ("running", "paused"))
    assert record["id"] != launched["id"] and record["parent_id"] == launched["id"]
    assert record["status"] == "paused"
    server.resume(pause["id"])
    assert wait_until_ended(server, launched["id"])["exit_code"] == 0


def run_module(server, *options):
    path = write(
        f"""
        import subprocess, sys
        subprocess.run([sys.executable, {CHILD!r}, "1.5"])
        """,
        "breakroom_run_",
    )
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    env.pop("BREAKROOM_FOLLOW_CHILDREN", None)
    done = subprocess.run([sys.executable, "-m", "breakroom", *options, path], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ours = [p for p in processes(server) if p["command"][-1:] == [path]]
    assert len(ours) == 1, ours
    return ours[0]


def test_python_m_breakroom_follows_children_unless_told_not_to(server):
    followed = run_module(server)
    assert len(followed["children"]) == 1
    alone = run_module(server, "--no-children")
    assert alone["children"] == []


def test_a_break_option_pauses_the_child_that_runs_its_file_and_no_server_record_is_made(server):
    child = write(
        """
        import sys
        total = int(sys.argv[1])
        total += 1  # BREAK
        print("child", total, flush=True)
        """,
        "breakroom_break_child_",
    )
    parent = write(
        f"""
        import subprocess, sys
        subprocess.run([sys.executable, {child!r}, "41"])
        print("parent done", flush=True)
        """,
        "breakroom_break_parent_",
    )
    line = next(n for n, text in enumerate(open(child).read().splitlines(), 1) if text.endswith("# BREAK"))
    env = {**os.environ, "PYTHONPATH": str(CLIENT_DIR), "BREAKROOM_URL": server.url}
    env.pop("BREAKROOM_FOLLOW_CHILDREN", None)
    running = subprocess.Popen([sys.executable, "-m", "breakroom", "--break", f"{child}:{line}", parent], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pause = server.wait_for_pause("<module>", timeout=30)
        stop = pause["call_data"]["stop"]
        assert (stop["file"], stop["line"], stop["breakpoint_id"]) == (os.path.realpath(child), line, "break-1"), stop
        assert pause["call_data"]["process_pid"] != running.pid, "the child paused, not the parent"
        assert not [b for b in server.get("/api/breakpoints")[1]["items"] if b.get("file") == child]
        server.resume(pause["id"])
        out, err = running.communicate(timeout=30)
        assert running.returncode == 0, err
        assert out == "child 42\nparent done\n", (out, err)
    finally:
        running.kill()


def test_an_attached_program_s_later_children_are_filed_under_it(server):
    body = textwrap.dedent(SCENARIOS["sleep"]).replace(
        "time.sleep(3600)", f"import subprocess\nsubprocess.run([sys.executable, {CHILD!r}, '2'])\ntime.sleep(3600)"
    )
    target = Target(sys.executable, body)
    try:
        target.wait_for_line("tick")
        status, attached = server.post("/api/processes/attach", {"pid": target.pid})
        assert status == 202, attached
        deadline = time.time() + 10
        while time.time() < deadline:
            record = server.get(f"/api/processes/{attached['process_id']}")[1]
            if record["children"]:
                break
            time.sleep(0.1)
        child = server.get(f"/api/processes/{record['children'][0]}")[1]
        assert child["command"][-1] == "2" and child["parent_id"] == attached["process_id"]
    finally:
        target.kill()


def test_the_child_hook_chains_to_the_sitecustomize_it_hides(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import builtins\nbuiltins.HIDDEN_RAN = True\n")
    env = {**os.environ, "PYTHONPATH": f"{CLIENT_DIR}{os.pathsep}{tmp_path}"}
    done = subprocess.run([sys.executable, "-c", "import sitecustomize, builtins; print(sitecustomize.BREAKROOM_HOOK, builtins.HIDDEN_RAN)"],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["True", "True"], done.stderr


def test_the_child_hook_shortens_the_switch_interval_to_the_client_s_own_short_one():
    # The hook cannot import the client to read it (that import is what it speeds up): its
    # copy of the constant is checked here, so the two never drift apart.
    sys.path.insert(0, str(CLIENT_DIR))
    try:
        import breakroom_hook
        from breakroom.process import switch_interval
    finally:
        sys.path.remove(str(CLIENT_DIR))
    assert breakroom_hook.CONNECT_SWITCH_INTERVAL == switch_interval.SHORT
