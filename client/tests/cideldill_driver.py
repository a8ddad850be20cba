"""An unchanged cideldill client's pause loop, step by step (docs/src/protocol.md §5.6 and §6).

What the client does while paused, as its `DebugClient.poll` does it:

    GET poll_url  → "ready": return the action
                  → "waiting": if no eval is in flight, GET /api/poll-repl/{pause_id} and, if it
                     hands out an eval, run it in a thread that posts /api/call/repl-result and
                     then clears the in-flight flag; sleep(poll_interval_ms); repeat

Every request opens a new connection, as `requests.get`/`requests.post` without a session do.
The eval itself is plain `eval`/`exec` in a dict; the protocol is what matters here.

Used by the tests (in a thread, with counters) and by `client/bench/cideldill_loop.py`; run as a
script it pauses one call and serves evals until resumed:

    python3 client/tests/cideldill_driver.py URL FUNCTION_NAME
"""

import base64
import contextlib
import http.client
import io
import json
import os
import sys
import threading
import time
import urllib.parse

# The pickle of int 6 and its SHA-512, a valid serialized argument for call/start.
INT_6_DATA = "gARLBi4="
INT_6_CID = (
    "12d43901ed6aa2f0823ab23b98eaa65a21536ea1c6cb33d4f410a4f9c6d715173bdb44b77600995e5625248b12"
    "2d580ccc263c62e95a0aea9113b5813a7eb94e"
)
EVAL_TIMEOUT_S = 30.0  # cideldill's repl_eval_timeout_s


class ProtocolDriver:
    """One paused call of a cideldill-like client.

    `honour_interval=False` plays an older client that sleeps a fixed 100 ms whatever the server
    says. `after_post` is called by the eval thread after its result was posted and before the
    in-flight flag clears (tests use it to widen that window)."""

    def __init__(self, url, function_name, honour_interval=True, after_post=None):
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port
        # `http://user:token@host` sends Basic credentials, as `requests` does for such a URL.
        self.authorization = None
        if parsed.password is not None:
            pair = f"{urllib.parse.unquote(parsed.username or '')}:{urllib.parse.unquote(parsed.password)}"
            self.authorization = "Basic " + base64.b64encode(pair.encode()).decode()
        self.function_name = function_name
        self.honour_interval = honour_interval
        self.after_post = after_post
        self.namespace = {"order_id": 7, "items": [1, 2, 3], "total": 6}
        self.lock = threading.Lock()
        self.inflight = False
        self.counts = {"poll": 0, "poll_repl": 0, "evals": 0}
        self.pause_id = None
        self.poll_interval_ms = None
        self.action = None
        self.paused = threading.Event()

    # ---- HTTP, a new connection per request ----------------------------------------------------

    def _request(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            payload = None if body is None else json.dumps(body)
            headers = {"Content-Type": "application/json"} if payload is not None else {}
            if self.authorization:
                headers["Authorization"] = self.authorization
            conn.request(method, path, payload, headers)
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            conn.close()

    def get(self, path):
        return self._request("GET", path)

    def post(self, path, body):
        return self._request("POST", path, body)

    # ---- the call ------------------------------------------------------------------------------

    def pause(self):
        """Registers the breakpoint and starts a call; returns the poll action."""
        status, _ = self.post("/api/breakpoints", {"function_name": self.function_name, "timestamp": time.time()})
        assert status == 200, status
        status, action = self.post(
            "/api/call/start",
            {
                "method_name": self.function_name,
                "args": [{"cid": INT_6_CID, "client_ref": 1, "data": INT_6_DATA}],
                "kwargs": {},
                "call_site": {"timestamp": time.time(), "stack_trace": []},
                "process_pid": os.getpid(),
                "process_start_time": 1795331833.75,
                "signature": "(order_id)",
            },
        )
        assert status == 200 and action.get("action") == "poll", (status, action)
        return action

    def run(self):
        """Pauses, serves evals until resumed; returns the resume action."""
        action = self.pause()
        while action.get("action") == "poll":
            action = self.poll(action)
        self.action = action
        return action

    def poll(self, action):
        poll_url = action["poll_url"]
        interval_ms = action.get("poll_interval_ms", 100) if self.honour_interval else 100
        self.poll_interval_ms = action.get("poll_interval_ms")
        self.pause_id = poll_url.rsplit("/", 1)[-1]
        self.paused.set()
        deadline = time.time() + action.get("timeout_ms", 60_000) / 1000.0
        while time.time() < deadline:
            status, response = self.get(poll_url)
            self.counts["poll"] += 1
            assert status == 200, (status, response)
            if response.get("status") == "waiting":
                self._poll_repl_requests()
                time.sleep(interval_ms / 1000.0)
                continue
            if response.get("status") == "ready":
                return response.get("action", {})
            raise AssertionError(f"malformed poll response {response}")
        return action

    # ---- REPL (§6) -----------------------------------------------------------------------------

    def _poll_repl_requests(self):
        with self.lock:
            if self.inflight:
                return
        _, response = self.get(f"/api/poll-repl/{self.pause_id}")
        self.counts["poll_repl"] += 1
        eval_id = response.get("eval_id")
        if not eval_id:
            return
        session_id, expr = response.get("session_id"), response.get("expr")
        if not isinstance(session_id, str) or not isinstance(expr, str):
            return
        with self.lock:
            if self.inflight:
                return
            self.inflight = True
        threading.Thread(target=self._run_eval, args=(eval_id, session_id, expr), daemon=True).start()

    def _run_eval(self, eval_id, session_id, expr):
        outcome = {}

        def worker():
            outcome.update(self._evaluate(expr))

        thread = threading.Thread(target=worker, daemon=True)
        thread.start()
        thread.join(EVAL_TIMEOUT_S)
        if thread.is_alive():
            outcome = {"result": "", "stdout": "", "error": "TimeoutError: evaluation timed out"}
        self.counts["evals"] += 1
        self.post(
            "/api/call/repl-result",
            {
                "eval_id": eval_id,
                "pause_id": self.pause_id,
                "session_id": session_id,
                "result": outcome.get("result", ""),
                "stdout": outcome.get("stdout", ""),
                "error": outcome.get("error"),
                "result_cid": None,
                "result_data": None,
            },
        )
        if self.after_post:
            self.after_post()
        with self.lock:
            self.inflight = False

    def _evaluate(self, expr):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                try:
                    code = compile(expr, "<repl>", "eval")
                except SyntaxError:
                    exec(compile(expr, "<repl>", "exec"), self.namespace)
                    return {"result": "", "stdout": out.getvalue()}
                return {"result": repr(eval(code, self.namespace)), "stdout": out.getvalue()}
        except Exception as exc:  # the user's error is the eval's answer
            return {"result": "", "stdout": out.getvalue(), "error": f"{type(exc).__name__}: {exc}"}

    def start(self):
        """Runs the pause loop in a thread; returns once the call is paused."""
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        if not self.paused.wait(10):
            raise AssertionError("the driver never paused")
        return thread


if __name__ == "__main__":
    driver = ProtocolDriver(sys.argv[1], sys.argv[2])
    thread = driver.start()
    print(json.dumps({"pause_id": driver.pause_id}), flush=True)
    thread.join()
    print(json.dumps({"action": driver.action, "counts": driver.counts}), flush=True)
