"""aria2's JSON-RPC door (R70–R73): servers the tests start, and a caller.

`RPCProcess` runs `downloadfs rpc MOUNT` or `aria2c --enable-rpc` as a child
on a free loopback port and always ends it by pid. `call` and `batch` speak
JSON-RPC over HTTP POST with a deadline. The aria2p client runs in the
virtual environment `scripts/install-deps --test` makes (`venv_python`).
"""

import base64
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from support.waiting import wait_until

START_TIMEOUT = 15
CALL_TIMEOUT = 10


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venv_python():
    """The test venv's python (aria2p and websocket-client), or None."""
    venv = os.environ.get("DOWNLOADFS_TEST_VENV") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "downloadfs", "test-venv")
    python = Path(venv) / "bin" / "python"
    return python if python.exists() else None


class Endpoint:
    """Where a JSON-RPC server listens on loopback: what `call` needs."""

    def __init__(self, port):
        self.port = port

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/jsonrpc"


class RPCProcess(Endpoint):
    """A JSON-RPC server child (downloadfs rpc, or aria2c), on `port`."""

    def __init__(self, argv, port, log_path, env=None):
        super().__init__(port)
        self.argv = argv
        self.log_path = Path(log_path)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env)

    @classmethod
    def downloadfs(cls, binary, mount, tmp_path, *options, port=None):
        port = port or free_port()
        argv = [str(binary), "rpc", str(mount.mp), "--rpc-listen-port", str(port), *options]
        return cls(argv, port, tmp_path / f"rpc-{port}.log")

    @classmethod
    def aria2c(cls, tmp_path, *options, port=None):
        """aria2c 1.36 itself, downloading into its own dir, with no session."""
        port = port or free_port()
        directory = tmp_path / f"aria2c-{port}"
        directory.mkdir()
        argv = ["aria2c", "--enable-rpc", f"--rpc-listen-port={port}", f"--dir={directory}", "--quiet=true",
                "--no-conf=true", "--max-tries=1", *options]
        return cls(argv, port, tmp_path / f"aria2c-{port}.log")

    def wait_ready(self, timeout=START_TIMEOUT):
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.argv[0]} exited {self.proc.returncode}: {self.output()}")
            with socket.socket() as s:
                s.settimeout(0.5)
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        wait_until(ready, timeout=timeout, what=f"{' '.join(self.argv[:2])} listening on {self.port}")
        return self

    def output(self):
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=timeout)
        self._log.close()
        return self.proc.returncode


def post(url, body, headers=None, timeout=CALL_TIMEOUT):
    """One HTTP POST; returns (status, headers, body bytes)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def get(url, timeout=CALL_TIMEOUT, headers=None, method="GET"):
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def call(server, method, *params, request_id="t", headers=None):
    """One call; returns the decoded reply object (with `result` or `error`)."""
    status, _, body = post(server.url, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": list(params)},
                           headers=headers)
    assert body, f"{method}: empty reply (HTTP {status})"
    return json.loads(body)


def result(server, method, *params):
    reply = call(server, method, *params)
    assert "error" not in reply, f"{method}{list(params)}: {reply['error']}"
    return reply["result"]


def get_call(server, method, params, request_id="g", callback=None):
    """The GET form: method, id, base64 params, optional jsoncallback."""
    query = {"method": method, "id": request_id,
             "params": base64.b64encode(json.dumps(params).encode()).decode()}
    if callback:
        query["jsoncallback"] = callback
    url = server.url + "?" + urllib.parse.urlencode(query)
    return get(url)


def gid(task_id):
    return f"{task_id:016x}"


def wait_status(server, g, statuses, timeout=30):
    statuses = {statuses} if isinstance(statuses, str) else set(statuses)

    def reached():
        status = result(server, "aria2.tellStatus", g)
        return status if status["status"] in statuses else None
    return wait_until(reached, timeout=timeout, what=f"{g} in {sorted(statuses)}")


def settle(seconds):
    """Only where a negative is checked (nothing must arrive): a bounded wait."""
    time.sleep(seconds)
