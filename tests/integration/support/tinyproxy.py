"""A private tinyproxy on 127.0.0.1, for tasks given `all-proxy=URL` (R10).

tinyproxy runs in the foreground (`-d`) as a child with its own config, log
and pid file in a temp dir, on a free loopback port, allowing only
127.0.0.1. It forwards plain HTTP requests and adds `Via: 1.1 tinyproxy
(tinyproxy/VERSION)` to what it forwards, and logs each request it takes
(`Request (file descriptor N): GET http://HOST:PORT/PATH HTTP/1.1`).
Stopped by its pid.
"""

import shutil
import socket
import subprocess
from pathlib import Path

from .faultserver import unused_port
from .waiting import wait_until

TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"

_CONFIG = """\
Port {port}
Listen 127.0.0.1
Timeout 30
Allow 127.0.0.1
MaxClients 64
LogLevel Info
LogFile "{log}"
PidFile "{pid}"
"""


class TinyProxy:
    def __init__(self, workdir):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = unused_port()
        self.log_path = self.dir / "tinyproxy.log"
        self.config = self.dir / "tinyproxy.conf"
        self.config.write_text(_CONFIG.format(port=self.port, log=self.log_path, pid=self.dir / "tinyproxy.pid"))
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=10):
        if not Path(TINYPROXY).exists():
            raise AssertionError("tinyproxy is not installed: run scripts/install-deps --test")
        self.process = subprocess.Popen([TINYPROXY, "-d", "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def listening():
            assert self.process.poll() is None, f"tinyproxy exited with {self.process.returncode}: {self.log()}"
            with socket.socket() as sock:
                sock.settimeout(0.5)
                return sock.connect_ex(("127.0.0.1", self.port)) == 0
        wait_until(listening, timeout, f"tinyproxy to listen on 127.0.0.1:{self.port}")
        return self

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def requests(self):
        """The request lines tinyproxy logged (`GET http://… HTTP/1.1`)."""
        return [line.split("): ", 1)[1] for line in self.log().splitlines()
                if "Request (file descriptor" in line and "): " in line]

    def stop(self, timeout=5):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)
