"""The throwaway PostgreSQL cluster (postgres_cluster.py) that the PostgreSQL store's tests use."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from postgres_cluster import PostgresCluster


def select_one(cluster, url):
    out = subprocess.run([os.path.join(cluster.bin, "psql"), url, "-XAtc", "select 1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def wait_until(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def test_fresh_databases_are_distinct_and_usable(postgres_cluster):
    a, b = postgres_cluster.fresh_database(), postgres_cluster.fresh_database()
    assert a != b
    assert a.startswith(f"postgres://postgres@127.0.0.1:{postgres_cluster.port}/test_")
    assert select_one(postgres_cluster, a) == select_one(postgres_cluster, b) == "1"


def test_stop_ends_postgres_and_removes_the_directory():
    cluster = PostgresCluster().start()
    directory, pid = cluster.dir, cluster.postmaster_pid()
    assert select_one(cluster, cluster.fresh_database()) == "1"
    cluster.stop()
    assert not os.path.exists(directory)
    assert not alive(pid)


def test_a_killed_test_process_takes_its_cluster_along():
    # SIGKILL: no fixture teardown, no atexit; only the parent-death signal to the wrapper.
    script = "import sys, time; from postgres_cluster import PostgresCluster; c = PostgresCluster().start(); " \
             "print(c.postmaster_pid(), c.dir, flush=True); time.sleep(3600)"
    child = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parent, stdout=subprocess.PIPE, text=True)
    try:
        pid, directory = child.stdout.readline().split(" ", 1)
        pid, directory = int(pid), directory.strip()
        assert alive(pid) and os.path.isdir(directory)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert wait_until(lambda: not alive(pid) and not os.path.exists(directory))
