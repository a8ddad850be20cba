"""JSON over HTTP to the Breakroom server, with one keep-alive connection per thread.

The exchange is written here instead of using http.client: every eval costs the paused program
a request, and http.client spends ~110 µs of each parsing headers through the email package
(170 µs per request against 60 µs over the same kept-alive socket, measured on loopback). The
server is ours and answers plain HTTP/1.1 (Content-Length or chunked bodies), so the subset
needed is small.

An https:// address wraps the same socket in TLS (`ssl`), verified against the system's roots or
against `BREAKROOM_CA_FILE`; the connection is kept alive as in plain HTTP, so an eval is still
one round trip.
"""

import json
import os
import socket
import ssl
import threading
import urllib.parse

from . import servers
from .servers import DEFAULT_URL

MAX_LINE = 65536


class ServerUnavailable(Exception):
    """The server could not be reached at all. `moved`: the client moved on to another of its
    addresses, one that has not failed since an address last answered (ask it at once)."""

    def __init__(self, message, moved=False):
        super().__init__(message)
        self.moved = moved


class ServerError(Exception):
    """The server answered with an error status."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body if isinstance(body, dict) else {}


_tls_contexts = {}
_tls_lock = threading.Lock()


def tls_context():
    """The process's TLS settings for the CA file in `BREAKROOM_CA_FILE` (none: the system's
    roots). Made once per file: loading roots costs milliseconds."""
    ca_file = os.environ.get("BREAKROOM_CA_FILE") or None
    with _tls_lock:
        context = _tls_contexts.get(ca_file)
        if context is None:
            try:
                context = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise TlsSetupError(f"cannot use BREAKROOM_CA_FILE={ca_file}: {exc}") from None
            _tls_contexts[ca_file] = context
        return context


class TlsSetupError(ValueError):
    """The TLS settings themselves are wrong (an unreadable CA file): no address will do."""


def _untrusted(server, exc):
    """What to say when the server's certificate does not verify: the URL, why, and the fix."""
    reason = getattr(exc, "verify_message", None) or str(exc)
    return (
        f"the certificate of {server.url} is not trusted ({reason}); set BREAKROOM_CA_FILE to the CA "
        "that signed it"
    )


class _Connection:
    """One kept-alive HTTP/1.1 connection, in TLS for an https:// address."""

    def __init__(self, server, timeout, connect_timeout=None):
        self.server = server
        sock = socket.create_connection((server.host, server.port), connect_timeout or timeout)
        # Requests go out in one write; without this a small one can wait for a delayed ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if server.tls:
            try:
                sock = tls_context().wrap_socket(sock, server_hostname=server.host)
            except BaseException:
                sock.close()
                raise
        self.sock = sock
        self.sock.settimeout(timeout)
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
    """Requests to the server in use among the addresses given (`servers`): a request that
    cannot reach it raises ServerUnavailable after moving the process's transports on to the
    next address, whose `moved` says whether that one is worth asking at once. The caller's
    usual way of riding out an absent server then goes on against the next address."""

    def __init__(self, url=None, timeout=35.0):
        self.servers = servers.shared(url or os.environ.get("BREAKROOM_URL") or DEFAULT_URL)
        self.url = self.servers.url  # the whole list: other transports and children get it
        self.token = os.environ.get("BREAKROOM_TOKEN")
        # With somewhere else to go, a silent server is not waited on for long.
        self.timeout = min(timeout, self.servers.silence_timeout or timeout)
        self._local = threading.local()

    def _connection(self, server):
        conn = getattr(self._local, "conn", None)
        if conn is not None and conn.open and conn.server is not server:
            conn.close()  # kept alive to the address the client moved away from
        if conn is None or not conn.open:
            conn = _Connection(server, self.timeout, self.servers.connect_timeout)
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

    def _request_bytes(self, server, method, path, payload):
        target = urllib.parse.quote(server.base_path + path, safe="/?&=%:@!$'()*+,;-._~")
        head = [f"{method} {target} HTTP/1.1", f"Host: {server.host_header}"]
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        if payload is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        return "\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + (payload or b"")

    def request(self, method, path, body=None, generation=None):
        """One request to the address in use. With `generation`, only if the client has not
        moved to another address since that generation (else ServerUnavailable, `moved`)."""
        payload = None if body is None else json.dumps(body).encode("utf-8")
        index, server, now = self.servers.current()
        if generation is not None and generation != now:
            raise ServerUnavailable(f"the client moved on to {server.url}", moved=True)
        request = self._request_bytes(server, method, path, payload)
        # A kept-alive connection the server closed fails once; the retry opens a new one.
        for attempt in (1, 2):
            try:
                status, raw = self._connection(server).exchange(request)
                break
            except (OSError, ValueError) as exc:
                self._drop_connection()
                # A certificate that does not verify will not verify on a second try either; a
                # kept-alive TLS connection the server closed (SSLEOFError) is retried like any.
                hopeless = isinstance(
                    exc, (ConnectionRefusedError, socket.timeout, ssl.SSLCertVerificationError, TlsSetupError)
                )
                if attempt == 2 or hopeless:
                    if isinstance(exc, ssl.SSLCertVerificationError):
                        detail = _untrusted(server, exc)
                    else:
                        detail = f"{exc.__class__.__name__}: {exc}"
                    raise ServerUnavailable(detail, moved=self.servers.failed(index, detail)) from None
        self.servers.answered()
        try:
            data = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            data = {"error": "malformed_response", "message": raw[:200].decode("utf-8", "replace")}
        if status >= 400:
            raise ServerError(status, data)
        return data

    def get(self, path, generation=None):
        return self.request("GET", path, generation=generation)

    def post(self, path, body):
        return self.request("POST", path, body)

    def get_any(self, path):
        """GET from the first address that answers, starting with the one in use: each is asked
        once (a program's first contact, or a check whether an absent server is back)."""
        for _ in range(len(self.servers) - 1):
            try:
                return self.get(path)
            except ServerUnavailable:
                continue
        return self.get(path)
