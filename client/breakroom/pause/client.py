"""The debug client: registers breakpoints, reports calls, waits at pauses and serves REPL
evals while it waits. Speaks the client protocol plus Breakroom's extensions (long-poll with evals,
repr fields, rich frames)."""

import base64
import json
import os
import sys
import threading
import time
import traceback
import uuid

from .. import redaction
from ..process import current, record
from ..protocol import reconnect, serialize
from ..protocol.constants import (
    ACTION_CONTINUE,
    ACTION_POLL,
    ACTION_STEP,
    CALL_EXCEPTION,
    CALL_SUCCESS,
    ERROR_CID_NOT_FOUND,
    ERROR_EVAL_NOT_FOUND,
    ERROR_METHOD_NOT_ALLOWED,
    ERROR_NOT_FOUND,
    POLL_READY,
    POLL_STOPPING,
    POLL_UNKNOWN,
    POLL_WAITING,
    REQUEST_COMPLETE,
    REQUEST_EXPAND,
    REQUEST_TABLE,
    REQUEST_VARIABLES,
    REQUEST_VIEW,
    REQUEST_WATCH,
)
from ..protocol.transport import ServerError, ServerUnavailable, Transport
from ..repl import complete, rich, variables
from ..snapshots import watch
from ..repl.evaluation import EvalJob, Outcome
from ..time_travel import checkpoints
from .paused_call import Pause

DEFAULT_EVAL_TIMEOUT = 30.0
FAST_EVAL_WAIT = 0.05
# Requests the REPL page makes besides evals; answered in the waiting loop, never recorded.
HELPER_KINDS = (REQUEST_COMPLETE, REQUEST_VARIABLES, REQUEST_EXPAND, REQUEST_TABLE, REQUEST_VIEW, REQUEST_WATCH)
# Not a server action: `_wait_at` returns it in a line just woken from a named checkpoint.
WOKEN = "breakroom-woken"


class DebugProtocolError(Exception):
    """The server sent something this client cannot act on."""


class DebugClient:
    def __init__(self, url=None):
        self.transport = Transport(url)
        self.available = None
        # The address the server-side state below was made on (`servers`): another one learns
        # this program's functions again before it is told of a call.
        self._generation = self.transport.servers.generation
        self._retry_at = 0.0  # when an absent server is asked again (issue 32)
        self._signatures = {}  # wrapped function name -> signature text, registered again on return
        self.sent = serialize.SentCids()
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
        if self.available:
            return True
        if self.available is False and time.monotonic() < self._retry_at:
            return False  # an absent server is asked again at most every RECHECK_EVERY
        returning = self.available is False
        try:
            self.transport.get_any("/api/breakpoints")
        except (ServerUnavailable, ServerError) as exc:
            self.go_offline(exc)
            return False
        self.available = True
        if self._generation != self.transport.servers.generation:
            self._on_new_server()
        elif returning:
            self._register_again()
        # The server's line and error breakpoints reach this program from now on; a channel
        # that cannot start must not cost the program its pauses.
        try:
            current.channel().follow(self)
        except Exception as exc:
            print(f"breakroom: server breakpoints will not reach this program: {exc}", file=sys.stderr)
        return True

    def away(self):
        """True while the server is known to be out of reach and not yet due to be asked again:
        the calls a program makes meanwhile cost one clock read."""
        return self.available is False and time.monotonic() < self._retry_at

    def go_offline(self, exc):
        """The fallback while the server is out of reach: said once; calls run without pausing
        until a later call finds it back (asked at most every RECHECK_EVERY). Not when the
        client moved to another address that has not failed yet: the next call asks it."""
        if getattr(exc, "moved", False):
            return
        self.available = False
        self._retry_at = time.monotonic() + reconnect.RECHECK_EVERY
        reconnect.warn_unavailable(self.transport.servers.describe(), exc)

    def _on_new_server(self):
        """The client moved to another of its addresses: that server has none of what the last
        one was told (functions, values), so it learns the functions now."""
        self._generation = self.transport.servers.generation
        self.sent = serialize.SentCids()
        self._register_again()

    def _register_again(self):
        """The server is back (perhaps a new one): it learns this program's functions again."""
        for name, signature in list(self._signatures.items()):
            func = self.functions.get(name)
            try:
                self.register(name, func, signature)
            except (ServerUnavailable, ServerError) as exc:
                self.go_offline(exc)
                return

    def identity(self):
        return record.identity()

    # ---- registration ------------------------------------------------------------------

    def remember(self, name, func, signature):
        """A wrapped function, registered now if the server is there, else when it comes."""
        self.functions[name] = func
        self._signatures[name] = signature

    def register(self, name, func, signature):
        self.remember(name, func, signature)
        self.transport.post(
            "/api/breakpoints", {"function_name": name, "timestamp": time.time(), "signature": signature}
        )
        self.transport.post(
            "/api/functions",
            {"function_name": name, "signature": signature, "function_client_ref": self._next_ref()},
        )

    def _next_ref(self):
        with self._lock:
            self._ref += 1
            return self._ref

    # ---- values ------------------------------------------------------------------------

    @staticmethod
    def sendable(value, name=None):
        """What may leave the program for `value` (issue 50): a secret's value is never pickled,
        the placeholder text is sent instead; secrets inside a value are replaced in a copy."""
        if name is not None and redaction.is_secret_name(name):
            return redaction.REDACTED
        return redaction.scrub(value)[0]

    def item(self, value, force_data=False):
        """A value already made `sendable`, as call/start carries it."""
        cid, data = serialize.serialize(value)
        item = {"cid": cid, "client_ref": self._next_ref(), "repr": redaction.text(serialize.safe_repr(value, 500))}
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
            reply = self.transport.post("/api/call/start", payload)
        except ServerError as exc:
            if exc.body.get("error") != ERROR_CID_NOT_FOUND:
                raise
            missing = set(exc.body.get("missing_cids") or [])
            for cid in missing:
                self.sent.discard(cid)
            for key, value in values.items():
                item = _lookup(payload, key)
                if item.get("cid") in missing:
                    item["data"] = base64.b64encode(serialize.serialize(value)[1]).decode("ascii")
            reply = self.transport.post("/api/call/start", payload)
        self._remember_sent(payload)
        if "action" not in reply or not reply.get("call_id"):
            raise DebugProtocolError(f"call/start answered without action or call_id: {reply}")
        return reply

    # ---- a call --------------------------------------------------------------------------

    def start_call(self, name, args, kwargs, signature, frames, pause=None, wake=None, stop=None, arg_names=None):
        """Reports a call (or a set_trace/post-mortem pause) with the stack it was made from,
        and (`stop`) where and why it stops. A server that stopped answering with another
        address to try: the call is reported there."""
        servers = self.transport.servers
        for attempt in range(len(servers)):
            if self._generation != servers.generation:
                self._on_new_server()
            try:
                return self._start_call(name, args, kwargs, signature, frames, pause, wake, stop, arg_names)
            except ServerUnavailable as exc:
                if not exc.moved or attempt == len(servers) - 1:
                    raise

    def _start_call(self, name, args, kwargs, signature, frames, pause, wake, stop, arg_names=None):
        values = {}
        arg_names = arg_names or ()
        payload = {
            "method_name": name,
            # This client steps (issue 30): a pause of it can be answered with a `step` action.
            "can_step": True,
            # This client redacts what it sends (issue 50): the server need not do it again.
            "redacts": True,
            # The thread that calls (issue 31: a debugger's thread; a fork keeps the ident).
            "thread": {"id": threading.get_ident(), "name": threading.current_thread().name},
            "args": [],
            "kwargs": {},
            "call_type": "proxy",
            "signature": signature,
            "call_site": {"timestamp": time.time(), "stack_trace": []},
            # Sent again by the transport after a dropped connection: the server answers the
            # same call instead of starting a second one (issue 32).
            "request_id": uuid.uuid4().hex,
            **self.identity(),
            **record.process_record(),
        }
        for i, a in enumerate(args):
            arg_name = arg_names[i] if i < len(arg_names) else None
            sent = self.sendable(a, arg_name)
            payload["args"].append(self.item(sent))
            values[("args", i)] = sent  # what a CID retry pickles again
        for k, v in kwargs.items():
            sent = self.sendable(v, k)
            payload["kwargs"][k] = self.item(sent)
            values[("kwargs", k)] = sent
        payload["frames"] = frames
        payload["call_site"]["stack_trace"] = [
            {k: f[k] for k in ("filename", "lineno", "function", "code_context")} for f in frames
        ]
        if pause:
            payload["pause"] = pause
        if stop:
            payload["stop"] = stop
        mode = checkpoints.mode()
        if mode is not None:
            payload["checkpoints"] = mode
        if wake:
            payload["checkpoint_wake"] = wake["token"]
        return self._start(payload, values)

    def complete_call(self, call_id, result=None, exc=None):
        body = {"call_id": call_id, "timestamp": time.time(), "redacts": True, **self.identity()}
        if exc is None:
            result = self.sendable(result)
            cid, data = serialize.serialize(result)
            body.update(status=CALL_SUCCESS, result_cid=cid, result_repr=redaction.text(serialize.safe_repr(result, 500)))
            if cid not in self.sent:
                body["result_data"] = base64.b64encode(data).decode("ascii")
                self.sent.add(cid)
        else:
            body.update(
                status=CALL_EXCEPTION,
                exception_type=_qualified_type(exc),
                exception_message=redaction.text(str(exc)),
                exception_traceback=redaction.text(
                    "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
                ),
            )
        return self.transport.post("/api/call/complete", body)

    # ---- waiting at a pause ----------------------------------------------------------------

    def wait(self, action, target, restart=None, frames=None, namespaces=None):
        """Follows poll actions until a terminal one, serving REPL evals meanwhile. With
        checkpoints on and a `restart` (how to report the same call again), the Continue forks
        a checkpoint; a line later woken from it reports the call again through `restart` and
        waits here once more, its REPL names kept."""
        inherited = {}
        while True:
            pause = None
            while action.get("action") == ACTION_POLL:
                poll_url = action.get("poll_url") or ""
                pause = Pause(poll_url.rstrip("/").rsplit("/", 1)[-1], target, inherited, frames, namespaces)
                action = self._wait_at(poll_url, pause, action.get("poll_interval_ms", 100) / 1000.0, restart)
                if pause is not None and action.get("action") == ACTION_STEP:
                    action = {**action, "from_pause_id": pause.pause_id, "namespaces": pause.namespaces}
            if action.get("action") == reconnect.LOST:
                if pause is None or restart is None:  # a pause that cannot be told again runs on
                    return {"action": ACTION_CONTINUE}
                inherited = pause.merged_namespaces()
                action = self._report_again(pause, restart)
                continue
            wake = action.get("wake") if action.get("action") == WOKEN else None
            if wake is None and pause is not None and restart is not None and checkpoints.enabled():
                wake = checkpoints.take(self, pause.pause_id)
            if wake is None:
                return action
            inherited = pause.merged_namespaces()
            action = restart(wake)

    def _report_again(self, pause, restart):
        """The server does not hold this pause (it restarted): the call reports it again, as
        a pause linked to the old one, waiting for the server meanwhile."""
        absence = reconnect.Absence(self.transport.servers.describe())
        while True:
            try:
                return restart(None, reconnected_from=pause.pause_id)
            except ServerUnavailable as exc:
                if not absence.wait(exc.moved):
                    return {"action": ACTION_CONTINUE}

    def _wait_at(self, poll_url, pause, interval, restart=None):
        job = None
        answer = None  # a fast eval's result, sent with the next poll
        absence = reconnect.Absence(self.transport.servers.describe())
        while True:
            busy = job is not None and not job.reported
            if answer is None and pause.unsent:
                answer = pause.unsent.pop(0)
            started = time.monotonic()
            url = poll_url + ("" if busy else "?evals=1")
            try:
                if answer is not None:
                    reply = self._answer_and_poll(url, pause, answer)
                else:
                    reply = self.transport.get(url)
            except ServerUnavailable as exc:
                # The server went away: the pause waits for it, or asks the next address at
                # once (the answer is kept to send).
                if not absence.wait(exc.moved):
                    return {"action": ACTION_CONTINUE}
                continue
            answer = None
            status = reply.get("status")
            if status == POLL_STOPPING:  # a server shutting down: the next one gets the pause back
                if not absence.wait():
                    return {"action": ACTION_CONTINUE}
                continue
            absence.over()
            if status == POLL_UNKNOWN:
                return {"action": reconnect.LOST}
            if status == POLL_READY:
                # Any eval still running is abandoned: the server has closed its session.
                current.channel().catch_up(reply.get("breakpoints_version"))
                return reply.get("action") or {}
            if status != POLL_WAITING:
                raise DebugProtocolError(f"malformed poll response: {reply}")
            token = reply.get("checkpoint")
            if token and restart is not None:
                # A named checkpoint asked for while paused: fork a checkpoint here, and keep waiting.
                wake = checkpoints.take(self, pause.pause_id, token=token)
                if wake is not None:
                    return {"action": WOKEN, "wake": wake}
                continue
            open_sessions = reply.get("sessions")
            if isinstance(open_sessions, list):
                # A closed session's namespace goes with it.
                for session_id in set(pause.namespaces) - set(open_sessions):
                    pause.namespaces.pop(session_id, None)
            request = reply.get("eval")
            if request and request.get("eval_id") in pause.answers:
                # Handed out again (the reply that carried it was lost): the same answer.
                answer = pause.answers[request["eval_id"]]
            elif request and not busy and request.get("kind") in HELPER_KINDS:
                answer = self._answer_helper(pause, request)
            elif request and not busy:
                job, answer = self._start_eval(pause, request)
            if answer is not None:
                pause.answered(answer)
            elif time.monotonic() - started < 0.01 and not busy:
                time.sleep(interval)  # the server did not hold the poll (an old server or a restart)

    def _start_eval(self, pause, request):
        """Starts an eval; returns (job, the answer to send with the next poll or None)."""
        session_id = request.get("session_id")
        source = request.get("expr")
        if not isinstance(session_id, str) or not isinstance(source, str):
            # Answered all the same: an eval left unanswered would be handed out again.
            return None, self._result_body(pause, request, Outcome(error="ValueError: the eval request has no expr"))
        namespace = pause.namespace(session_id)

        def report(outcome):
            body = self._result_body(pause, request, outcome)
            pause.answered(body)
            self._post_result(pause, body)

        try:
            target = pause.target_at(request.get("frame"))
        except ValueError as exc:
            outcome = Outcome(error=f"ValueError: {exc}")
            body = self._result_body(pause, request, outcome)
            if self.answers_with_poll:
                return None, body
            self._post_result(pause, body)
            return None, None
        hidden = redaction.target_hidden(target)
        if hidden is not None:  # `--no-debug`: evals in this frame are refused
            body = self._result_body(pause, request, Outcome(error=f"PermissionError: {hidden}: evals are refused here"))
            if self.answers_with_poll:
                return None, body
            self._post_result(pause, body)
            return None, None
        job = EvalJob(source, target, namespace, self.timeout_for(request), report, tables=pause.tables)
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

    def _answer_helper(self, pause, request):
        """Completion and the variables panel: answered here, within their own time bounds
        (they run no user code but bounded reprs), as JSON text in `result`; the answer to
        send with the next poll, or None once posted."""
        namespace = pause.namespace(request.get("session_id"))
        try:
            target = pause.target_at(request.get("frame"))
            kind, args = request.get("kind"), request.get("args") or {}
            hidden = redaction.target_hidden(target)
            if hidden is not None:  # `--no-debug`: nothing of this frame is listed
                reply = _hidden_reply(kind, args, hidden)
            elif kind == REQUEST_COMPLETE:
                code, cursor = args.get("code"), args.get("cursor_pos")
                if not isinstance(code, str) or type(cursor) is not int:
                    raise ValueError("complete needs code and cursor_pos")
                reply = redaction.completions(complete.complete(code, cursor, [namespace, target.locals(), target.globals]))
            elif kind == REQUEST_TABLE:
                reply = rich.table_page(pause.tables, args)
                if "error" not in reply:
                    rich.redacted_table(reply, redaction.known_secrets(target.locals(), namespace))
            elif kind == REQUEST_VIEW:
                reply = rich.view(args.get("path"), target.locals(), namespace, pause.tables)
            elif kind == REQUEST_WATCH:
                reply = watch.reply(args, target.globals, watch.scope(target.locals(), namespace))
            else:
                scope = (target.globals, None) if args.get("scope") == "globals" else (target.locals(), namespace)
                reply = variables.panel_reply(kind, args, *scope)
                # Secrets replaced, and counted (issue 50). An expansion under a secret's name
                # (a path made by hand) shows nothing of it.
                path = args.get("path") if kind != REQUEST_VARIABLES else None
                known = redaction.known_secrets(*scope)
                secret = bool(path) and redaction.path_is_secret(None, path)
                reply = redaction.panel(reply, expression_secret=secret, known=known)
            outcome = {"result": json.dumps(reply, default=str), "stdout": "", "error": None}
        except Exception as exc:  # a helper must never break the waiting loop
            outcome = {"result": "", "stdout": "", "error": f"{type(exc).__name__}: {exc}"}
        body = {"eval_id": request.get("eval_id"), "pause_id": pause.pause_id, "session_id": request.get("session_id")}
        body.update(outcome)
        if self.answers_with_poll:
            return body
        self._post_result(pause, body)
        return None

    @staticmethod
    def _result_body(pause, request, outcome):
        body = {"eval_id": request.get("eval_id"), "pause_id": pause.pause_id, "session_id": request.get("session_id")}
        body.update(outcome.wire())
        return body

    def _answer_and_poll(self, url, pause, body):
        try:
            return self.transport.post(url, body)
        except ServerError as exc:
            if exc.status == 404 and exc.body.get("error") == ERROR_EVAL_NOT_FOUND:
                pass  # answered before (a retried request): nothing to record twice
            elif exc.body.get("error") in (ERROR_NOT_FOUND, ERROR_METHOD_NOT_ALLOWED):
                # A server without answering polls: post answers on their own from now on.
                self.answers_with_poll = False
                self._post_result(pause, body)
            elif exc.status == 409:  # the session closed meanwhile: the result has nowhere to go
                pause.namespaces.pop(body["session_id"], None)
        return self.transport.get(url)

    def _post_result(self, pause, body):
        try:
            self.transport.post("/api/call/repl-result", body)
        except ServerError as exc:
            if exc.status == 409:  # the session closed meanwhile: the result has nowhere to go
                pause.namespaces.pop(body["session_id"], None)
        except ServerUnavailable:
            pause.unsent.append(body)  # the next poll carries it, once the server is back

    def timeout_for(self, request):
        if self.eval_timeout is not None:
            return self.eval_timeout
        server = request.get("timeout_s")
        if isinstance(server, (int, float)) and server > 0:
            return max(0.1, server - min(1.0, server * 0.1))
        return DEFAULT_EVAL_TIMEOUT

    # ---- values from the server ---------------------------------------------------------------

    def decode(self, item):
        if isinstance(item, dict) and item.get("data"):
            return serialize.loads(base64.b64decode(item["data"]))
        raise DebugProtocolError("Missing data for CID in response")


def _hidden_reply(kind, args, hidden):
    """A helper's answer in a frame that is not debugged: empty, saying why."""
    if kind == REQUEST_COMPLETE:
        return {
            "status": "ok",
            "matches": [],
            "cursor_start": args.get("cursor_pos") or 0,
            "cursor_end": args.get("cursor_pos") or 0,
            "metadata": {"types": [], "_jupyter_types_experimental": [], "timed_out": False},
        }
    if kind == REQUEST_VARIABLES:
        return {"variables": [], "timed_out": False, "redacted": 0, "hidden": hidden}
    if kind == REQUEST_WATCH:
        texts = args.get("expressions") if isinstance(args.get("expressions"), list) else []
        return {"expressions": [{"expression": str(t), "error": hidden} for t in texts], "truncated": False,
                "redacted": 0, "hidden": hidden}
    return {"path": args.get("path"), "children": [], "count": 0, "offset": 0, "truncated": False, "redacted": 0,
            "hidden": hidden}


def _positive_float(text, name):
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value > 0:
        return value
    print(f"breakroom: ignoring {name}={text!r}: not a positive number of seconds", file=sys.stderr)
    return None


def _lookup(payload, key):
    kind, k = key
    return payload[kind][k]


def _qualified_type(exc):
    t = type(exc)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"

