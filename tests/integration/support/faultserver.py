"""An HTTP/1.1 server, run inside the pytest process, that misbehaves on request.

Each path is a `Resource` with deterministic content (see `files`) and knobs
set by the test: cut the connection, stall, throttle, ignore ranges, answer
with an error status a few times, redirect, change the file between
requests, send hostile headers. Every request is recorded (method, Range,
If-Range, all headers (`headers` by name, `header_lines` as received,
repeats kept), status, the first body byte served, body bytes actually
written to the socket, which TCP connection carried it) so tests can assert
what the daemon asked for and how much it fetched; every TCP connection is
recorded too, so tests can count how many were open at once. It also plays
an HTTP proxy: a request in absolute form (`GET http://any.name/x`, what a
client sends a proxy) is served as `/x` and recorded with `proxied` set.

Each response is throttled on its own (`throttle` is per connection, as
nginx's `limit_rate`), so N connections get N times the rate. A response
serves the version of the file that was current when its request came in,
to the end, as a server reading an open file does when the file is replaced.
While a throttled or stalled response waits, the server watches the socket
and stops as soon as the client hangs up, so a request's `finished` is when
the client let go, not when the next write failed.

Ranges follow RFC 9110 the way nginx does: `bytes=N-` and `bytes=N-M` give
206 with Content-Range; If-Range that does not match the current strong
ETag (or the exact Last-Modified) gives 200 with the whole body; a start at
or past the end gives 416 with `Content-Range: bytes */SIZE`.
"""

import dataclasses
import math
import re
import select
import socket
import ssl
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional
from urllib.parse import parse_qs, urlsplit

from .files import content_range

# A fixed Last-Modified so tests can compare file mtimes against it.
DEFAULT_LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
DEFAULT_LAST_MODIFIED_EPOCH = 1445412480

_REASONS = {
    200: "OK", 206: "Partial Content", 301: "Moved Permanently", 302: "Found",
    400: "Bad Request", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
    410: "Gone", 416: "Range Not Satisfiable", 429: "Too Many Requests",
    500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
    504: "Gateway Timeout",
}


# An absolute-form request target (RFC 9112 §3.2.2): `http://host[:port]/path`.
_ABSOLUTE_FORM = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def http_date(epoch):
    """An IMF-fixdate for `epoch` seconds."""
    return formatdate(epoch, usegmt=True)


def unused_port():
    """A loopback TCP port nothing listens on (connections to it are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclasses.dataclass
class Resource:
    """One served path and how it behaves. `*_times` = None means "always"."""

    size: int = 0
    seed: int = 1
    body: Optional[bytes] = None            # explicit content instead of seed/size
    etag: Optional[str] = None              # default: a strong ETag derived from the version
    last_modified: Optional[str] = DEFAULT_LAST_MODIFIED
    no_validators: bool = False             # send neither ETag nor Last-Modified
    no_etag: bool = False                   # send Last-Modified only
    content_type: Optional[str] = "application/octet-stream"
    content_disposition: Optional[object] = None   # str, or bytes sent raw
    headers: dict = dataclasses.field(default_factory=dict)
    ignore_range: bool = False              # always 200 with the whole body
    ranges_after_first: bool = True         # False: every GET after the first answers 200
                                            # with the whole body, Range or not (still
                                            # saying Accept-Ranges: bytes)
    ignore_if_range: bool = False           # serve the range even when If-Range does not
                                            # match (a 206 of the current version)
    no_accept_ranges: bool = False
    length_unknown: bool = False            # chunked, no Content-Length, no ranges
    cut_after: Optional[int] = None         # close after this many body bytes
    cut_times: Optional[int] = 1
    extra_length: int = 0                   # declare this many bytes more than sent, then close
    extra_length_times: Optional[int] = 1
    status: Optional[int] = None            # answer with this status instead
    status_times: Optional[int] = 1
    retry_after: Optional[int] = None       # Retry-After on `status` answers
    stall_after: Optional[int] = None       # stop sending after this many body bytes ...
    stall_seconds: float = 0.0              # ... for this long
    stall_times: Optional[int] = 1
    throttle: Optional[int] = None          # bytes per second
    redirect_to: Optional[str] = None       # 302 to this URL
    redirect_chain: int = 0                 # this many 302 hops before the content
    change_after_requests: Optional[int] = None  # after K GETs the file changes ...
    change_etag_after: Optional[int] = None  # the same (another name for it)
    changed_size: Optional[int] = None      # ... to this size (default: same)
    changed_keep_validators: bool = False   # ... keeping ETag/Last-Modified
    content_range_shift: int = 0            # 206 whose Content-Range starts elsewhere
    content_range_shift_times: Optional[int] = 1
    content_range_end_shift: int = 0        # 206 whose Content-Range (and body) ends this
                                            # many bytes off the asked end (capped at EOF)
    content_range_end_shift_times: Optional[int] = 1
    range_body_delta: int = 0               # 206 whose Content-Range is the asked one but whose
                                            # body (and Content-Length) is this many bytes
                                            # shorter (< 0) or longer (> 0, junk bytes 0xEE)
    range_body_delta_times: Optional[int] = 1
    script: list = dataclasses.field(default_factory=list)  # per-GET overrides, in order
    trailing_junk: Optional[bytes] = None   # sent a moment after a whole body, on a connection
                                            # kept open: what the client reads next there
                                            # is not an HTTP answer
    delays: list = dataclasses.field(default_factory=list)  # seconds before answering each
                                            # request, in order (then none): a slow answer

    # Runtime counters (under the server lock).
    gets: int = 0
    version: int = 0

    def current(self, version=None):
        """(seed, size, etag, last_modified) of the version now served (or of `version`)."""
        if version is None:
            version = self.version
        if version == 0:
            seed, size = self.seed, self.size
        else:
            seed = self.seed + 7919 * version
            size = self.changed_size if self.changed_size is not None else self.size
        if self.body is not None and version == 0:
            size = len(self.body)
        if self.no_validators:
            return seed, size, None, None
        etag = self.etag if self.etag is not None else f'"{self.seed}-{self.size}-v0"'
        if self.no_etag:
            etag = None
        last_modified = self.last_modified
        if version and not self.changed_keep_validators:
            etag = f'"{seed}-{size}-v{version}"'
            if last_modified is not None:
                last_modified = http_date(DEFAULT_LAST_MODIFIED_EPOCH + 86400 * version)
        return seed, size, etag, last_modified

    def data(self, start, end, version=None):
        """Body bytes [start, end) of the version now served (or of `version`)."""
        if version is None:
            version = self.version
        seed, _, _, _ = self.current(version)
        if self.body is not None and version == 0:
            return self.body[start:end]
        return content_range(seed, start, end)


@dataclasses.dataclass
class RequestRecord:
    """What one request asked for and what it got."""

    method: str
    path: str
    query: str
    headers: dict
    started: float
    connection: int = 0         # which TCP connection (see `FaultServer.connections`)
    status: int = 0
    sent: int = 0               # body bytes written to the socket
    body_start: int = 0         # file offset of the first body byte (206: the range served)
    body_end: int = 0           # file offset just past the last body byte promised
    version: int = 0            # version of the file the body came from
    finished: Optional[float] = None
    complete: bool = False      # the whole promised body was written
    junk_sent: bool = False     # `trailing_junk` followed the body
    proxied: bool = False       # asked in absolute form (`GET http://host/x`), as a
                                # client asks an HTTP proxy; `path` is then the URL's path
    absolute_url: Optional[str] = None  # the absolute-form target as sent, else None
    header_lines: list = dataclasses.field(default_factory=list)  # every (lower-cased name,
                                # value) as received, in order, repeats kept (`headers`
                                # keeps the last of a repeated name)

    def header_values(self, name):
        """Every value of header `name` (any case) the request carried, in order."""
        name = name.lower()
        return [value for key, value in self.header_lines if key == name]

    @property
    def range(self):
        return self.headers.get("range")

    @property
    def if_range(self):
        return self.headers.get("if-range")

    @property
    def range_start(self):
        """N of a `bytes=N-…` Range, else None."""
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.range or "")
        return int(match.group(1)) if match else None

    @property
    def range_end(self):
        """M of a closed `bytes=N-M` Range (inclusive), else None."""
        match = re.fullmatch(r"bytes=(\d+)-(\d+)", self.range or "")
        return int(match.group(2)) if match else None

    @property
    def delivered(self):
        """(first, end) file offsets of the content bytes written, or None.

        Only 200 and 206 bodies carry the file; error pages do not.
        """
        if self.status not in (200, 206) or self.method != "GET":
            return None
        return self.body_start, self.body_start + self.sent


@dataclasses.dataclass
class ConnectionRecord:
    """One TCP connection a client opened."""

    number: int
    peer: tuple
    opened: float
    closed: Optional[float] = None


class _Stop(Exception):
    """Raised inside a handler when the server shuts down."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultserver/1"
    timeout = 60

    def log_message(self, *args):  # quiet
        pass

    def setup(self):
        super().setup()
        self.conn_number = self.server.owner._track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, False)

    def do_GET(self):
        self.server.owner._serve(self, head=False)

    def do_HEAD(self):
        self.server.owner._serve(self, head=True)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True


class FaultServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 with per-path fault knobs."""

    def __init__(self, tls=None):
        """`tls`: optional (certfile, keyfile) to serve HTTPS instead of HTTP."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._resources = {}
        self._log = []
        self._connections = {}   # open socket -> its ConnectionRecord
        self._conn_log = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            self.scheme = "https"
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="faultserver", daemon=True)
        self._thread.start()

    # -- test-facing API ---------------------------------------------------

    def add(self, path, **knobs):
        """Serve `path` with these `Resource` knobs; return its URL."""
        with self._lock:
            self._resources[path] = Resource(**knobs)
        return self.url(path)

    def resource(self, path):
        return self._resources[path]

    def update(self, path, **knobs):
        """Change knobs of a served path (e.g. lift a throttle)."""
        with self._lock:
            for key, value in knobs.items():
                setattr(self._resources[path], key, value)

    def url(self, path):
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def requests(self, path=None, method=None):
        """Recorded requests, oldest first, optionally for one path/method."""
        with self._lock:
            records = list(self._log)
        return [r for r in records
                if (path is None or r.path == path) and (method is None or r.method == method)]

    def gets(self, path):
        return self.requests(path, "GET")

    def bytes_sent(self, path=None):
        """Body bytes written for `path` (all paths when None)."""
        return sum(r.sent for r in self.requests(path))

    def connections(self):
        """Every TCP connection accepted so far, oldest first."""
        with self._lock:
            return list(self._conn_log)

    def max_concurrent(self, path=None, since=None, grace=0.1):
        """The most GETs (for `path`) in flight at once, as the server saw them.

        A GET counts from when its request head was read until its last body
        byte was written or the client was seen gone. The server sees a
        hang-up a moment after the client may already have opened its next
        connection, so each GET's end is taken `grace` seconds early; a real
        excess lasts far longer. With `since` (a `time.monotonic()` value)
        only what was in flight from then on counts.
        """
        return _peak([(r.started, r.finished) for r in self.requests(path, "GET")],
                     since, grace)

    def max_connections(self, since=None, grace=0.1):
        """The most TCP connections open at once (any path), counted as `max_concurrent`."""
        return _peak([(c.opened, c.closed) for c in self.connections()], since, grace)

    def stop(self):
        """Shut down within a bounded time: stalls end, open sockets close."""
        self._stop.set()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- internals ---------------------------------------------------------

    def _track(self, conn, add):
        """Note a connection opening (returns its number) or closing."""
        with self._lock:
            if add:
                try:
                    peer = conn.getpeername()
                except OSError:
                    peer = ()
                record = ConnectionRecord(len(self._conn_log) + 1, peer, time.monotonic())
                self._conn_log.append(record)
                self._connections[conn] = record
                return record.number
            record = self._connections.pop(conn, None)
            if record is not None and record.closed is None:
                record.closed = time.monotonic()
            return None

    def _wait(self, handler, seconds):
        """Let `seconds` pass before the next write, or less: raise _Stop when
        the server stops, ConnectionResetError as soon as the client hangs up."""
        deadline = time.monotonic() + seconds
        sock = handler.connection
        if isinstance(sock, ssl.SSLSocket):  # no MSG_PEEK through TLS
            if self._stop.wait(seconds):
                raise _Stop()
            return
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                readable, _, _ = select.select([sock], [], [], min(left, 0.25))
            except (OSError, ValueError) as exc:
                raise ConnectionResetError("client gone") from exc
            if self._stop.is_set():
                raise _Stop()
            if not readable:
                continue
            try:
                peeked = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise ConnectionResetError("client gone") from exc
            if not peeked:
                raise ConnectionResetError("client closed the connection")
            # The client sent more (a pipelined request): just wait it out.
            if self._stop.wait(max(0.0, deadline - time.monotonic())):
                raise _Stop()
            return

    def _serve(self, handler, head):
        target = handler.path
        absolute = _ABSOLUTE_FORM.match(target) is not None
        if absolute:
            # What a client sends to an HTTP proxy: serve the URL's path and
            # query as if asked directly (this server plays the proxy and
            # the origin both).
            parts = urlsplit(target)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        split = urlsplit(target)
        record = RequestRecord(method=handler.command, path=split.path, query=split.query,
                               headers={k.lower(): v for k, v in handler.headers.items()},
                               header_lines=[(k.lower(), v) for k, v in handler.headers.items()],
                               started=time.monotonic(),
                               connection=getattr(handler, "conn_number", 0),
                               proxied=absolute, absolute_url=handler.path if absolute else None)
        with self._lock:
            self._log.append(record)
        try:
            self._respond(handler, record, split, head)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, _Stop, OSError):
            handler.close_connection = True
        finally:
            record.finished = time.monotonic()

    def _take(self, res, name):
        """Consume one use of a `*_times` knob; True if it applies to this response."""
        times = getattr(res, name + "_times")
        if times is None:
            return True
        if times > 0:
            setattr(res, name + "_times", times - 1)
            return True
        return False

    def _respond(self, handler, record, split, head):
        with self._lock:
            res = self._resources.get(split.path)
            if res is None:
                plan, delay = None, 0
            else:
                plan = self._plan(res, handler, split, head)
                delay = res.delays.pop(0) if res.delays else 0
        if delay:
            self._wait(handler, delay)
        if plan is None:
            self._send_error(handler, record, 404, head)
            return
        kind = plan.pop("kind")
        if kind == "error":
            self._send_error(handler, record, plan["status"], head, plan.get("headers"))
        elif kind == "redirect":
            self._send_error(handler, record, 302, head, {"Location": plan["location"]})
        else:
            self._send_body(handler, record, res, head, **plan)

    def _plan(self, res, handler, split, head):
        """Decide (under the lock) what this request gets."""
        if res.redirect_to is not None:
            return {"kind": "redirect", "location": res.redirect_to}
        if res.redirect_chain:
            hop = int(parse_qs(split.query).get("hop", ["0"])[0])
            if hop < res.redirect_chain:
                return {"kind": "redirect",
                        "location": self.url(f"{split.path}?hop={hop + 1}")}
        override, scripted = {}, False
        if not head:
            res.gets += 1
            if res.script:
                # A script entry says everything about its GET: no other
                # fault knob is consulted (or used up) for it.
                override, scripted = dict(res.script.pop(0)), True
        take = (lambda name: False) if scripted else (lambda name: self._take(res, name))
        if "status" in override or (res.status is not None and take("status")):
            status = override.get("status", res.status)
            headers = {}
            retry_after = override.get("retry_after", res.retry_after)
            if retry_after is not None:
                headers["Retry-After"] = str(retry_after)
            return {"kind": "error", "status": status, "headers": headers}
        change_after = (res.change_after_requests if res.change_after_requests is not None
                        else res.change_etag_after)
        if (not head and change_after is not None
                and res.gets > change_after and res.version == 0):
            res.version = 1
        seed, size, etag, last_modified = res.current()
        start, end, status = 0, size, 200
        range_header = handler.headers.get("Range")
        ranges_refused = not res.ranges_after_first and not head and res.gets > 1
        if (range_header and not res.ignore_range and not res.length_unknown
                and not ranges_refused and not override.get("ignore_range", False)):
            if (res.ignore_if_range or override.get("ignore_if_range", False)
                    or self._if_range_matches(handler.headers.get("If-Range"), etag,
                                              last_modified)):
                match = re.fullmatch(r"bytes=(\d*)-(\d*)", range_header.strip())
                if match and (match.group(1) or match.group(2)):
                    if match.group(1):
                        first = int(match.group(1))
                        last = int(match.group(2)) if match.group(2) else size - 1
                    else:  # suffix range
                        first = max(0, size - int(match.group(2)))
                        last = size - 1
                    if first >= size:
                        return {"kind": "error", "status": 416,
                                "headers": {"Content-Range": f"bytes */{size}"}}
                    if first <= last:
                        start, end, status = first, min(last, size - 1) + 1, 206
        shift = end_shift = body_delta = 0
        if status == 206:
            if res.range_body_delta and not head and take("range_body_delta"):
                body_delta = max(res.range_body_delta, start - end)
            if "content_range_shift" in override:
                shift = override["content_range_shift"]
            elif res.content_range_shift and take("content_range_shift"):
                shift = res.content_range_shift
            if "content_range_end_shift" in override:
                end_shift = override["content_range_end_shift"]
            elif res.content_range_end_shift and take("content_range_end_shift"):
                end_shift = res.content_range_end_shift
        cut = override.get("cut_after")
        if cut is None and res.cut_after is not None and not head and take("cut"):
            cut = res.cut_after
        extra = override.get("extra_length", 0)
        if not extra and res.extra_length and not head and take("extra_length"):
            extra = res.extra_length
        stall = override.get("stall_after")
        stall_seconds = override.get("stall_seconds", res.stall_seconds)
        if stall is None and res.stall_after is not None and not head and take("stall"):
            stall = res.stall_after
        return {"kind": "body", "status": status, "start": start, "end": end, "size": size,
                "version": res.version, "end_shift": end_shift, "body_delta": body_delta,
                "etag": etag, "last_modified": last_modified, "shift": shift, "cut": cut,
                "extra": extra, "stall": stall, "stall_seconds": stall_seconds,
                "throttle": override.get("throttle", res.throttle)}

    @staticmethod
    def _if_range_matches(if_range, etag, last_modified):
        if if_range is None:
            return True
        if_range = if_range.strip()
        if if_range.startswith('"'):  # strong comparison only
            return etag is not None and not etag.startswith("W/") and if_range == etag
        if if_range.startswith("W/"):
            return False
        return last_modified is not None and if_range == last_modified

    def _send_error(self, handler, record, status, head, headers=None):
        body = f"<html><body><h1>{status} {_REASONS.get(status, '')}</h1></body></html>\n".encode()
        if status == 416 or (300 <= status < 400):
            body = b""
        record.status = status
        handler.send_response(status, _REASONS.get(status))
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        if not head and body:
            handler.wfile.write(body)
            record.sent = len(body)
        handler.wfile.flush()
        record.complete = True

    def _send_body(self, handler, record, res, head, status, start, end, size, version,
                   end_shift, etag, last_modified, shift, cut, extra, stall, stall_seconds,
                   throttle, body_delta=0):
        record.status = status
        record.version = version
        handler.send_response(status, _REASONS.get(status))
        if res.content_type is not None:
            handler.send_header("Content-Type", res.content_type)
        if etag is not None:
            handler.send_header("ETag", etag)
        if last_modified is not None:
            handler.send_header("Last-Modified", last_modified)
        if not (res.length_unknown or res.no_accept_ranges or res.ignore_range):
            handler.send_header("Accept-Ranges", "bytes")
        if status == 206:
            if shift:  # a plausible range, but not the one asked for
                start, end = min(start + shift, size - 1), size
            if end_shift:  # the asked start, but another end
                end = max(start + 1, min(size, end + end_shift))
            handler.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        if res.length_unknown:
            handler.send_header("Transfer-Encoding", "chunked")
        else:
            handler.send_header("Content-Length", str(end - start + extra + body_delta))
        for key, value in res.headers.items():
            handler.send_header(key, value)
        if res.content_disposition is not None:
            cd = res.content_disposition
            if isinstance(cd, bytes):  # raw bytes, possibly not UTF-8
                handler._headers_buffer.append(b"Content-Disposition: " + cd + b"\r\n")
            else:
                handler.send_header("Content-Disposition", cd)
        handler.end_headers()
        handler.wfile.flush()
        record.body_start, record.body_end = start, end
        if head:
            record.complete = True
            return
        total = end - start + min(0, body_delta)
        limit = total if cut is None else min(cut, total)
        block = 64 * 1024
        if throttle:
            block = max(1024, min(block, throttle // 20))
        began = time.monotonic()
        sent = 0
        while sent < limit:
            if self._stop.is_set():
                raise _Stop()
            if stall is not None and sent >= stall:
                stall = None
                self._wait(handler, stall_seconds)
            if throttle:
                delay = began + sent / throttle - time.monotonic()
                if delay > 0:
                    self._wait(handler, delay)
            n = min(block, limit - sent)
            if stall is not None and sent < stall:
                n = min(n, stall - sent)
            data = res.data(start + sent, start + sent + n, version)
            if res.length_unknown:
                handler.wfile.write(b"%x\r\n" % n + data + b"\r\n")
            else:
                handler.wfile.write(data)
            sent += n
            record.sent = sent
        if body_delta > 0 and sent == total:
            # More than the Content-Range said, as the Content-Length promised.
            handler.wfile.write(b"\xee" * body_delta)
            record.sent = sent + body_delta
        if sent < total or extra:
            # Cut short (or promised more than sent): drop the connection so
            # the client sees the body end early.
            handler.wfile.flush()
            handler.close_connection = True
            try:
                handler.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if res.length_unknown:
            handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        record.complete = True
        if res.trailing_junk:
            # In a packet of its own, after the client took the body as whole.
            self._wait(handler, 0.05)
            handler.wfile.write(res.trailing_junk)
            handler.wfile.flush()
            record.junk_sent = True


def _peak(intervals, since, grace):
    """The most (start, end) intervals overlapping at one moment; an end of
    None is still open. Ends are moved `grace` earlier; with `since`, only
    the part from `since` on counts."""
    events = []
    for start, end in intervals:
        end = math.inf if end is None else end - grace
        if since is not None:
            start = max(start, since)
        if end <= start:
            continue
        events += [(start, 1), (end, -1)]
    events.sort(key=lambda event: (event[0], event[1]))  # an end before a start at a tie
    peak = now = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak
