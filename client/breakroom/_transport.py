"""JSON over HTTP to the Breakroom server, with one keep-alive connection per thread.

The exchange is written here instead of using http.client: every eval costs the paused program
a request, and http.client spends ~110 µs of each parsing headers through the email package
(170 µs per request against 60 µs over the same kept-alive socket, measured on loopback). The
server is ours and answers plain HTTP/1.1 (Content-Length or chunked bodies), so the subset
needed is small.
"""

import json
import os
import socket
import threading
import urllib.parse

DEFAULT_URL = "http://127.0.0.1:5174"
MAX_LINE = 65536


class ServerUnavailable(Exception):
    """The server could not be reached at all."""


class ServerError(Exception):
    """The server answered with an error status."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body if isinstance(body, dict) else {}


class _Connection:
    """One kept-alive HTTP/1.1 connection."""

    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout)
        # Requests go out in one write; without this a small one can wait for a delayed ACK.
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")
        self.open = True

    def close(self):
        self.open = False
        self.reader.close()
        self.sock.close()

    def _line(self):
        line = self.reader.readline(MAX_LINE + 1)
        if not line:
            raise ConnectionResetError("the server closed the connection")
        if len(line) > MAX_LINE:
            raise ValueError("response line too long")
        return line

    def _exactly(self, n):
        data = self.reader.read(n)
        if len(data) < n:
            raise ConnectionResetError("the server closed the connection mid-response")
        return data

    def exchange(self, request):
        """Sends one request; returns (status, body bytes)."""
        self.sock.sendall(request)
        version, status, _ = (self._line().split(None, 2) + [b""])[:3]
        if not version.startswith(b"HTTP/"):
            raise ValueError(f"not an HTTP response: {version[:40]!r}")
        length, chunked, keep_alive = None, False, version == b"HTTP/1.1"
        while True:
            line = self._line()
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value
            elif name == b"connection":
                keep_alive = value == b"keep-alive" or (keep_alive and value != b"close")
        if chunked:
            body = bytearray()
            while size := int(self._line().split(b";")[0], 16):
                body += self._exactly(size)
                self._line()
            while self._line() not in (b"\r\n", b"\n"):  # trailers
                pass
            body = bytes(body)
        elif length is not None:
            body = self._exactly(length)
        else:
            body, keep_alive = self.reader.read(), False
        if not keep_alive:
            self.close()
        return int(status), body


class Transport:
    def __init__(self, url=None, timeout=35.0):
        self.url = (url or os.environ.get("BREAKROOM_URL") or DEFAULT_URL).rstrip("/")
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme not in ("http", "") or not parsed.hostname:
            raise ValueError(f"BREAKROOM_URL must be an http:// URL, not {self.url!r}")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.base_path = parsed.path.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        # The Host the server checks: the name this client connects to.
        self.host_header = host if parsed.port is None else f"{host}:{self.port}"
        self.token = os.environ.get("BREAKROOM_TOKEN")
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None or not conn.open:
            conn = _Connection(self.host, self.port, self.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def forget_connections(self):
        """In a forked child: the parent's kept-alive connection is the parent's (closing this
        process's copy of the socket leaves the parent's open)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            try:
                conn.sock.close()
            except OSError:
                pass
        self._local = threading.local()

    def _request_bytes(self, method, path, payload):
        target = urllib.parse.quote(self.base_path + path, safe="/?&=%:@!$'()*+,;-._~")
        head = [f"{method} {target} HTTP/1.1", f"Host: {self.host_header}"]
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        if payload is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        return "\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + (payload or b"")

    def request(self, method, path, body=None):
        payload = None if body is None else json.dumps(body).encode("utf-8")
        request = self._request_bytes(method, path, payload)
        # A kept-alive connection the server closed fails once; the retry opens a new one.
        for attempt in (1, 2):
            try:
                status, raw = self._connection().exchange(request)
                break
            except (OSError, ValueError) as exc:
                self._drop_connection()
                if attempt == 2 or isinstance(exc, (ConnectionRefusedError, socket.timeout)):
                    raise ServerUnavailable(f"{exc.__class__.__name__}: {exc}") from None
        try:
            data = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            data = {"error": "malformed_response", "message": raw[:200].decode("utf-8", "replace")}
        if status >= 400:
            raise ServerError(status, data)
        return data

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

