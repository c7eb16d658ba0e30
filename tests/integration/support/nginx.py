"""A private nginx on 127.0.0.1 serving a temp docroot, for well-behaved downloads.

nginx runs as a `daemon off; master_process off;` child with its own prefix,
config, pid file, error log and temp paths, so it shares nothing with any
system nginx. It serves the docroot at `/`, and the same files throttled at
`/rate/<RATE>/<path>` (RATE as nginx's `limit_rate` takes it, e.g. `4m`).
ETag, Last-Modified, Range and If-Range are nginx's own. The access log
records Range, If-Range, status and body bytes sent per request.
"""

import os
import re
import signal
import socket
import subprocess
from pathlib import Path

from .waiting import wait_until

NGINX = "/usr/sbin/nginx"

_CONFIG = """\
daemon off;
master_process off;
worker_processes 1;
user root;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    types {{ application/octet-stream bin; text/plain txt; }}
    default_type application/octet-stream;
    sendfile on;
    log_format probe '$request_method $uri $status "$http_range" "$http_if_range" $body_bytes_sent';
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        root {docroot};
        access_log {prefix}/access.log probe;
        location / {{ }}
        location ~ ^/rate/(?<rate>[0-9]+[km]?)/(?<rest>.*)$ {{
            alias {docroot}/$rest;
            limit_rate $rate;
        }}
    }}
}}
"""


class AccessRecord:
    """One access-log line."""

    def __init__(self, line):
        method, uri, status, rest = line.split(" ", 3)
        range_, _, rest = rest[1:].partition('" "')
        if_range, _, sent = rest.partition('" ')
        self.method, self.uri, self.status = method, uri, int(status)
        self.range = None if range_ in ("", "-") else _unescape(range_)
        self.if_range = None if if_range in ("", "-") else _unescape(if_range)
        self.sent = int(sent)

    @property
    def range_start(self):
        if self.range and self.range.startswith("bytes="):
            first = self.range[len("bytes="):].split("-", 1)[0]
            return int(first) if first else None
        return None

    def __repr__(self):
        return (f"AccessRecord({self.method} {self.uri} {self.status} "
                f"range={self.range!r} if_range={self.if_range!r} sent={self.sent})")


class Nginx:
    """A private nginx; `stop()` ends it by its pid."""

    def __init__(self, prefix, docroot):
        self.prefix = Path(prefix)
        self.docroot = Path(docroot)
        self.proc = None
        self.port = None

    def start(self, attempts=5):
        (self.prefix / "tmp").mkdir(parents=True, exist_ok=True)
        self.docroot.mkdir(parents=True, exist_ok=True)
        last_error = ""
        for _ in range(attempts):
            self.port = _free_port()
            conf = self.prefix / "nginx.conf"
            conf.write_text(_CONFIG.format(prefix=self.prefix, docroot=self.docroot, port=self.port))
            errlog = open(self.prefix / "stderr.log", "ab")
            self.proc = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(conf)],
                                         stdout=errlog, stderr=errlog, start_new_session=True)
            errlog.close()
            try:
                wait_until(lambda: self.proc.poll() is not None or _listening(self.port),
                           10, "nginx to listen")
            except AssertionError:
                self.stop()
                raise
            if self.proc.poll() is None:
                return self
            last_error = (self.prefix / "stderr.log").read_text(errors="replace")
            last_error += _read(self.prefix / "error.log")
        raise RuntimeError(f"nginx did not start: {last_error}")

    def url(self, path, rate=None):
        """URL of docroot `path` (with leading /), throttled to `rate` if given."""
        if rate is not None:
            path = f"/rate/{rate}{path}"
        return f"http://127.0.0.1:{self.port}{path}"

    def access_log(self, uri=None):
        """Parsed access-log records, optionally for one URI."""
        lines = _read(self.prefix / "access.log").splitlines()
        records = [AccessRecord(line) for line in lines if line.strip()]
        return [r for r in records if uri is None or r.uri == uri]

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def _unescape(text):
    """Undo nginx's \\xHH escaping of quotes and control bytes in log fields."""
    return re.sub(r"\\x([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _listening(port):
    with socket.socket() as sock:
        sock.settimeout(0.5)
        try:
            sock.connect(("127.0.0.1", port))
            return True
        except OSError:
            return False


def _read(path):
    try:
        return Path(path).read_text(errors="replace")
    except FileNotFoundError:
        return ""


def set_mtime(path, epoch):
    """Give a docroot file a known mtime (nginx's Last-Modified)."""
    os.utime(path, (epoch, epoch))
    return path


def wait_for_access(nginx, uri, count, timeout=10):
    """Wait until `count` requests for `uri` are in the access log (logged at request end)."""
    return wait_until(lambda: len(nginx.access_log(uri)) >= count and nginx.access_log(uri),
                      timeout, f"{count} access-log lines for {uri}")
