"""A throwaway PostgreSQL cluster for tests: the Python twin of debugger/src/store/test_postgres.rs.

`initdb` into a fresh temporary directory, then `postgres` on a free loopback port, trust auth for
user `postgres`, durability off. PostgreSQL refuses to run as root, so as root the cluster's files
and processes belong to the `postgres` user.
"""

import ctypes
import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

START_TIMEOUT = 30.0
ATTEMPTS = 5  # a port picked free can be taken before postgres binds it
SETTINGS = "listen_addresses=127.0.0.1 max_connections=300"
# Tests trade durability for speed; benchmarks must not (they measure what users run).
FAST_SETTINGS = "fsync=off synchronous_commit=off full_page_writes=off"
# Stops postgres at once (SIGQUIT: immediate shutdown) and deletes the cluster when its parent,
# the test process, dies however it dies (SIGTERM is its parent-death signal); a normal exit of
# postgres (stop()) just ends it.
WRAPPER = """d=$1; shift; pg=
trap 'if [ -n "$pg" ]; then kill -QUIT "$pg" 2>/dev/null; wait "$pg"; fi; rm -rf "$d"; exit 143' TERM INT HUP
"$@" & pg=$!
wait "$pg"
"""
_counter = itertools.count()


def bin_dir():
    """Debian keeps the server binaries off PATH, one directory per major version (the newest
    wins); elsewhere `pg_config --bindir` names them."""
    found = [p for p in glob.glob("/usr/lib/postgresql/*/bin") if os.path.isfile(os.path.join(p, "initdb"))]
    found = [p for p in found if p.split("/")[-2].isdigit()]
    if found:
        return max(found, key=lambda p: int(p.split("/")[-2]))
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
        if os.path.isfile(os.path.join(out, "initdb")):
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    raise RuntimeError(
        "PostgreSQL's server binaries are missing (no initdb in /usr/lib/postgresql/*/bin nor in "
        "`pg_config --bindir`): scripts/setup.sh installs postgresql"
    )


_prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: the forked child only calls it


def _pdeathsig(parent):
    def set_it():
        # Runs in the child after its setuid (which would clear the setting), before exec.
        if _prctl(1, signal.SIGTERM, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
        if os.getppid() != parent:
            raise OSError("the test process exited")

    return set_it


class PostgresCluster:
    def __init__(self, durable=False, extra_settings=()):
        """`durable`: PostgreSQL's own defaults (fsync, synchronous commit), as users run it;
        otherwise the fast settings tests use."""
        self.settings = SETTINGS.split() + ([] if durable else FAST_SETTINGS.split()) + list(extra_settings)
        self.bin = bin_dir()
        self.dir = None
        self.port = None
        self.process = None  # the wrapper shell; postgres is its child
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("PostgreSQL refuses to run as root and there is no `postgres` user: "
                                   "scripts/setup.sh installs postgresql") from None

    def _as_owner(self):
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def _log_tail(self):
        try:
            with open(os.path.join(self.dir, "postgres.log"), errors="replace") as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return ""

    def start(self):
        sharedir = subprocess.run([os.path.join(self.bin, "pg_config"), "--sharedir"], capture_output=True, text=True)
        control = os.path.join(sharedir.stdout.strip(), "extension", "pg_trgm.control")
        if sharedir.returncode == 0 and not os.path.isfile(control):
            raise RuntimeError(f"{control} is missing (postgresql-contrib): scripts/setup.sh installs it")
        # tempfile.gettempdir() is /tmp unless TMPDIR says otherwise; postgres must traverse its parents.
        self.dir = tempfile.mkdtemp(prefix=f"breakroom-pg-{os.getpid()}-")
        try:
            if self.user is not None:
                os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
            subprocess.run(
                [os.path.join(self.bin, "initdb"), "-D", self.dir, "--auth=trust", "-U", "postgres",
                 "--no-sync", "--encoding=UTF8", "--locale=C"],
                cwd=self.dir, capture_output=True, text=True, check=True, **self._as_owner())
            for _ in range(ATTEMPTS):
                if self._launch():
                    return self
            raise RuntimeError(f"postgres exited at startup {ATTEMPTS} times; its log:\n{self._log_tail()}")
        except subprocess.CalledProcessError as err:
            self.stop()
            raise RuntimeError(f"initdb failed: {err.stderr.strip()}") from None
        except BaseException:
            self.stop()
            raise

    def _launch(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        command = ["sh", "-c", WRAPPER, "sh", self.dir, os.path.join(self.bin, "postgres"),
                   "-D", self.dir, "-p", str(self.port), "-k", self.dir]
        for setting in self.settings:
            command += ["-c", setting]
        with open(os.path.join(self.dir, "postgres.log"), "ab") as log:
            self.process = subprocess.Popen(command, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=log, preexec_fn=_pdeathsig(os.getpid()), **self._as_owner())
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False  # most likely the port was taken meanwhile
            if self._accepts():
                return True
            time.sleep(0.02)
        raise RuntimeError(f"postgres did not accept connections within {START_TIMEOUT}s; its log:\n{self._log_tail()}")

    def _accepts(self):
        # A TCP connect first, cheap; then pg_isready, true once startup is done.
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
        except OSError:
            return False
        ready = [os.path.join(self.bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port),
                 "-U", "postgres", "-d", "postgres"]
        return subprocess.run(ready).returncode == 0

    def postmaster_pid(self):
        with open(os.path.join(self.dir, "postmaster.pid")) as f:
            return int(f.readline())

    def url(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def fresh_database(self):
        """Creates a database no other caller in this process gets, and returns its URL."""
        name = f"test_{os.getpid()}_{next(_counter)}"
        out = subprocess.run([os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                              "-U", "postgres", name], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"createdb {name} failed: {out.stderr.strip()}")
        return self.url(name)

    def stop(self):
        """Fast shutdown (disconnects clients a test left open), then deletes the directory."""
        if self.process is not None and self.process.poll() is None:
            try:
                os.kill(self.postmaster_pid(), signal.SIGINT)
                self.process.wait(timeout=10)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.process.terminate()  # the wrapper's trap: immediate shutdown
                self.process.wait()
        self.process = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
