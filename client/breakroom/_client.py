"""The debug client: registers breakpoints, reports calls, waits at pauses and serves REPL
evals while it waits. Speaks PROTOCOL.md plus Breakroom's extensions (long-poll with evals,
repr fields, rich frames)."""

import base64
import builtins
import linecache
import os
import threading
import time

from . import _serialize
from ._repl import EvalJob, EvalTarget
from ._transport import ServerError, ServerUnavailable, Transport, warn_unavailable

_THIS_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE_CONTEXT = 5
DEFAULT_EVAL_TIMEOUT = 30.0
FAST_EVAL_WAIT = 0.05


class DebugProtocolError(Exception):
    """The server sent something this client cannot act on."""


def _process_start_time(_cache={}):
    pid = os.getpid()
    if pid not in _cache:
        _cache[pid] = time.time()
    return _cache[pid]


def stack_frames(frame, limit=64):
    """The stack from `frame` outwards (innermost first), without this package's frames,
    each with the source lines around it."""
    frames = []
    while frame is not None and len(frames) < limit:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_THIS_DIR):
            lineno = frame.f_lineno
            start = max(1, lineno - SOURCE_CONTEXT)
            lines = [linecache.getline(filename, n).rstrip("\n") for n in range(start, lineno + SOURCE_CONTEXT + 1)]
            while lines and lines[-1] == "" and len(lines) > lineno - start + 1:
                lines.pop()
            frames.append(
                {
                    "filename": filename,
                    "lineno": lineno,
                    "function": getattr(frame.f_code, "co_qualname", frame.f_code.co_name),
                    "code_context": linecache.getline(filename, lineno).strip() or None,
                    "source_start": start,
                    "source_lines": lines,
                    "locals": sorted(frame.f_locals)[:200],
                }
            )
        frame = frame.f_back
    return frames


class Pause:
    """A call paused at the server, with what its REPL sessions evaluate against."""

    def __init__(self, pause_id, target):
        self.pause_id = pause_id
        self.target = target
        self.namespaces = {}


class DebugClient:
    def __init__(self, url=None):
        self.transport = Transport(url)
        self.available = None
        self.sent = _serialize.SentCids()
        # None: follow the server's timeout (sent with each eval), ending a little before it.
        env_timeout = os.environ.get("BREAKROOM_EVAL_TIMEOUT")
        self.eval_timeout = _positive_float(env_timeout, "BREAKROOM_EVAL_TIMEOUT")
        self._lock = threading.Lock()
        self._ref = 0
        self.functions = {}
        # Whether the server takes an eval's answer with the next poll (POST /api/poll/{id}).
        self.answers_with_poll = True

    # ---- connection --------------------------------------------------------------------

    def ensure_connected(self):
        if self.available is None:
            try:
                self.transport.get("/api/breakpoints")
                self.available = True
            except ServerUnavailable as exc:
                self.available = False
                warn_unavailable(self.transport.url, exc)
            except ServerError as exc:
                self.available = False
                warn_unavailable(self.transport.url, exc)
        return self.available

    def _post(self, path, body):
        return self.transport.post(path, body)

    def identity(self):
        return {"process_pid": os.getpid(), "process_start_time": _process_start_time()}

    # ---- registration ------------------------------------------------------------------

    def register(self, name, func, signature):
        self.functions[name] = func
        self._post("/api/breakpoints", {"function_name": name, "timestamp": time.time(), "signature": signature})
        self._post(
            "/api/functions",
            {"function_name": name, "signature": signature, "function_client_ref": self._next_ref()},
        )

    def _next_ref(self):
        with self._lock:
            self._ref += 1
            return self._ref

    # ---- values ------------------------------------------------------------------------

    def item(self, value, force_data=False):
        cid, data = _serialize.serialize(value)
        item = {"cid": cid, "client_ref": self._next_ref(), "repr": _serialize.safe_repr(value, 500)}
        if force_data or cid not in self.sent:
            item["data"] = base64.b64encode(data).decode("ascii")
        return item

    def _remember_sent(self, payload):
        for item in [payload.get("target")] + payload.get("args", []) + list(payload.get("kwargs", {}).values()):
            if item and "data" in item:
                self.sent.add(item["cid"])

    def _start(self, payload, values):
        """call/start with the CID retry: resend data the server says it lacks."""
        try:
            reply = self._post("/api/call/start", payload)
        except ServerError as exc:
            if exc.body.get("error") != "cid_not_found":
                raise
            missing = set(exc.body.get("missing_cids") or [])
            for cid in missing:
                self.sent.discard(cid)
            for key, value in values.items():
                item = _lookup(payload, key)
                if item.get("cid") in missing:
                    item["data"] = base64.b64encode(_serialize.serialize(value)[1]).decode("ascii")
            reply = self._post("/api/call/start", payload)
        self._remember_sent(payload)
        if "action" not in reply or not reply.get("call_id"):
            raise DebugProtocolError(f"call/start answered without action or call_id: {reply}")
        return reply

    # ---- a call --------------------------------------------------------------------------

    def start_call(self, name, args, kwargs, signature, frame, pause=None):
        values = {}
        payload = {
            "method_name": name,
            "args": [],
            "kwargs": {},
            "call_type": "proxy",
            "signature": signature,
            "call_site": {"timestamp": time.time(), "stack_trace": []},
            **self.identity(),
        }
        for i, a in enumerate(args):
            payload["args"].append(self.item(a))
            values[("args", i)] = a
        for k, v in kwargs.items():
            payload["kwargs"][k] = self.item(v)
            values[("kwargs", k)] = v
        frames = stack_frames(frame) if frame is not None else []
        payload["frames"] = frames
        payload["call_site"]["stack_trace"] = [
            {k: f[k] for k in ("filename", "lineno", "function", "code_context")} for f in frames
        ]
        if pause:
            payload["pause"] = pause
        return self._start(payload, values)

    def complete_call(self, call_id, result=None, exc=None):
        body = {"call_id": call_id, "timestamp": time.time(), **self.identity()}
        if exc is None:
            cid, data = _serialize.serialize(result)
            body.update(status="success", result_cid=cid, result_repr=_serialize.safe_repr(result, 500))
            if cid not in self.sent:
                body["result_data"] = base64.b64encode(data).decode("ascii")
                self.sent.add(cid)
        else:
            import traceback

            body.update(
                status="exception",
                exception_type=_qualified_type(exc),
                exception_message=str(exc),
                exception_traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:],
            )
        return self._post("/api/call/complete", body)

    # ---- waiting at a pause ----------------------------------------------------------------

    def wait(self, action, target):
        """Follows poll actions until a terminal one, serving REPL evals meanwhile."""
        while action.get("action") == "poll":
            poll_url = action.get("poll_url") or ""
            pause = Pause(poll_url.rstrip("/").rsplit("/", 1)[-1], target)
            action = self._wait_at(poll_url, pause, action.get("poll_interval_ms", 100) / 1000.0)
        return action

    def _wait_at(self, poll_url, pause, interval):
        job = None
        answer = None  # a fast eval's result, sent with the next poll
        while True:
            busy = job is not None and not job.reported
            started = time.monotonic()
            url = poll_url + ("" if busy else "?evals=1")
            if answer is not None:
                reply = self._answer_and_poll(url, pause, answer)
                answer = None
            else:
                reply = self.transport.get(url)
            status = reply.get("status")
            if status == "ready":
                # Any eval still running is abandoned: the server has closed its session.
                return reply.get("action") or {}
            if status != "waiting":
                raise DebugProtocolError(f"malformed poll response: {reply}")
            open_sessions = reply.get("sessions")
            if isinstance(open_sessions, list):
                # A closed session's namespace goes with it.
                for session_id in set(pause.namespaces) - set(open_sessions):
                    pause.namespaces.pop(session_id, None)
            request = reply.get("eval")
            if request and not busy:
                job, answer = self._start_eval(pause, request)
            elif time.monotonic() - started < 0.01 and not busy:
                time.sleep(interval)  # the server did not hold the poll (an old server or a restart)

    def _start_eval(self, pause, request):
        """Starts an eval; returns (job, the answer to send with the next poll or None)."""
        session_id = request.get("session_id")
        source = request.get("expr")
        if not isinstance(session_id, str) or not isinstance(source, str):
            return None, None
        namespace = pause.namespaces.setdefault(session_id, {})

        def report(outcome):
            self._post_result(pause, self._result_body(pause, request, outcome))

        job = EvalJob(source, pause.target, namespace, self.timeout_for(request), report)
        job.start()
        # Most evals take milliseconds: answering them from here, with the next poll, makes an
        # eval one round trip; a slow one is reported by its thread or its timeout while this
        # loop goes on waiting for resumes.
        outcome = job.wait_briefly(FAST_EVAL_WAIT)
        if outcome is None:
            return job, None
        body = self._result_body(pause, request, outcome)
        if self.answers_with_poll:
            return job, body
        self._post_result(pause, body)
        return job, None

    @staticmethod
    def _result_body(pause, request, outcome):
        body = {"eval_id": request.get("eval_id"), "pause_id": pause.pause_id, "session_id": request.get("session_id")}
        body.update(outcome.wire())
        return body

    def _answer_and_poll(self, url, pause, body):
        try:
            return self.transport.post(url, body)
        except ServerError as exc:
            if exc.body.get("error") in ("not_found", "method_not_allowed"):
                # A server without answering polls: post answers on their own from now on.
                self.answers_with_poll = False
                self._post_result(pause, body)
            elif exc.status == 409:  # the session closed meanwhile: the result has nowhere to go
                pause.namespaces.pop(body["session_id"], None)
        return self.transport.get(url)

    def _post_result(self, pause, body):
        try:
            self._post("/api/call/repl-result", body)
        except ServerError as exc:
            if exc.status == 409:  # the session closed meanwhile: the result has nowhere to go
                pause.namespaces.pop(body["session_id"], None)
        except ServerUnavailable:
            pass

    def timeout_for(self, request):
        if self.eval_timeout is not None:
            return self.eval_timeout
        server = request.get("timeout_s")
        if isinstance(server, (int, float)) and server > 0:
            return max(0.1, server - min(1.0, server * 0.1))
        return DEFAULT_EVAL_TIMEOUT

    # ---- acting on a resume action -------------------------------------------------------------

    def decode(self, item):
        if isinstance(item, dict) and item.get("data"):
            return _serialize.loads(base64.b64decode(item["data"]))
        raise DebugProtocolError("Missing data for CID in response")


def _positive_float(text, name):
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value > 0:
        return value
    import sys

    print(f"breakroom: ignoring {name}={text!r}: not a positive number of seconds", file=sys.stderr)
    return None


def _lookup(payload, key):
    kind, k = key
    return payload[kind][k]


def _qualified_type(exc):
    t = type(exc)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def raise_action(action):
    name = action.get("exception_type") or "Exception"
    exc_type = getattr(builtins, name, None)
    if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
        exc_type = Exception
    raise exc_type(action.get("exception_message") or "")


def make_target_for_call(func, args, kwargs, bound):
    """What a wrapped call's REPL sees: the arguments by name, plus args and kwargs."""
    local_vars = dict(bound.arguments) if bound is not None else {}
    local_vars.setdefault("args", args)
    local_vars.setdefault("kwargs", kwargs)
    return EvalTarget(getattr(func, "__globals__", {}), local_vars)
