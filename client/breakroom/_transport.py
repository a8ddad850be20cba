"""JSON over HTTP to the Breakroom server, with one keep-alive connection per thread."""

import http.client
import json
import os
import sys
import threading
import urllib.parse

DEFAULT_URL = "http://127.0.0.1:5174"


class ServerUnavailable(Exception):
    """The server could not be reached at all."""


class ServerError(Exception):
    """The server answered with an error status."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body if isinstance(body, dict) else {}


class Transport:
    def __init__(self, url=None, timeout=35.0):
        self.url = (url or os.environ.get("BREAKROOM_URL") or DEFAULT_URL).rstrip("/")
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme not in ("http", "") or not parsed.hostname:
            raise ValueError(f"BREAKROOM_URL must be an http:// URL, not {self.url!r}")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.base_path = parsed.path.rstrip("/")
        self.token = os.environ.get("BREAKROOM_TOKEN")
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def request(self, method, path, body=None):
        payload = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        # A kept-alive connection the server closed fails once; the retry opens a new one.
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, self.base_path + path, body=payload, headers=headers)
                response = conn.getresponse()
                raw = response.read()
                break
            except (ConnectionError, http.client.HTTPException, OSError) as exc:
                self._drop_connection()
                if attempt == 2 or isinstance(exc, ConnectionRefusedError):
                    raise ServerUnavailable(f"{exc.__class__.__name__}: {exc}") from None
        try:
            data = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            data = {"error": "malformed_response", "message": raw[:200].decode("utf-8", "replace")}
        if response.status >= 400:
            raise ServerError(response.status, data)
        return data

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)


_warned = False


def warn_unavailable(url, detail):
    """One clear line, once per process, instead of a traceback per call."""
    global _warned
    if _warned:
        return
    _warned = True
    print(
        f"breakroom: cannot reach the Breakroom server at {url} ({detail}); "
        "calls run without pausing. Start it with `breakroom` or set BREAKROOM_URL.",
        file=sys.stderr,
    )
