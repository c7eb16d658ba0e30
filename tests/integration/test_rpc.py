"""R70–R73: aria2's JSON-RPC door, checked against aria2c 1.36 itself.

`downloadfs rpc MOUNT` is a client of the mount; these tests drive it over
real HTTP and WebSocket on loopback, run the same calls against
`aria2c --enable-rpc` where clients rely on the answer's shape, and drive it
with aria2p from PyPI (in the venv `scripts/install-deps --test` makes).
"""

import base64
import errno
import json
import os
import signal
import socket
import subprocess
import textwrap
import time
import urllib.parse

import pytest

from support.files import KiB, MiB, content
from support.mount import mounted_in_table, parent_of, processes
from support.rpc import (Endpoint, RPCProcess, call, free_port, get, get_call, gid, post, result, venv_python,
                         wait_status)
from support.waiting import start_order, wait_until

TIMEOUT = 30


@pytest.fixture
def rpc(downloadfs_bin, mount, tmp_path):
    """`downloadfs rpc` for the default mount, no secret."""
    server = RPCProcess.downloadfs(downloadfs_bin, mount, tmp_path).wait_ready()
    yield server
    server.stop()


@pytest.fixture
def aria2c(tmp_path):
    server = RPCProcess.aria2c(tmp_path).wait_ready()
    yield server
    server.stop()


def _shape(value):
    """The JSON types of a reply, keys kept: what clients rely on."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


# -- starting (R70) ------------------------------------------------------------

def test_r70_refuses_to_start_with_one_line_saying_why(downloadfs_bin, mount, tmp_path):
    not_a_mount = tmp_path / "plain"
    not_a_mount.mkdir()
    run = subprocess.run([str(downloadfs_bin), "rpc", str(not_a_mount), "--rpc-listen-port", str(free_port())],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1 and "is not a downloadfs mount" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([str(downloadfs_bin), "rpc", str(mount.mp), "--rpc-listen-port", str(port)],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1 and str(port) in run.stderr, run.stderr

    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    os.chmod(secret, 0o644)
    run = subprocess.run([str(downloadfs_bin), "rpc", str(mount.mp), "--rpc-secret-file", str(secret)],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1 and "can be read by others" in run.stderr, run.stderr
    run = subprocess.run([str(downloadfs_bin), "rpc", str(mount.mp), "--rpc-secret-file", str(tmp_path / "none")],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1 and "cannot read the secret file" in run.stderr, run.stderr
    run = subprocess.run([str(downloadfs_bin), "rpc", str(mount.mp), "--rpc-listen-all"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode != 0 and "needs a secret" in run.stderr, run.stderr


# -- the same answers as aria2c (R72) ------------------------------------------

def test_r72_lists_every_method_and_notification_aria2c_lists(rpc, aria2c):
    assert set(result(rpc, "system.listMethods")) >= set(result(aria2c, "system.listMethods"))
    assert set(result(rpc, "system.listNotifications")) == set(result(aria2c, "system.listNotifications"))


def test_r71_errors_have_aria2cs_codes(rpc, aria2c):
    for server in (rpc, aria2c):
        status, _, body = post(server.url, b"{not json")
        assert json.loads(body)["error"]["code"] == -32700, (server.argv[0], body)
    # aria2c says code 1; JSON-RPC 2.0's own code is -32601 (docs/design.md).
    ours, theirs = call(rpc, "aria2.noSuchMethod")["error"], call(aria2c, "aria2.noSuchMethod")["error"]
    assert ours == {"code": -32601, "message": "No such method: aria2.noSuchMethod"}
    assert theirs["message"] == ours["message"]
    for server in (rpc, aria2c):
        error = call(server, "aria2.tellStatus")["error"]
        assert error["code"] in (1, -32602), (server.argv[0], error)


def test_r72_a_download_looks_as_it_does_in_aria2c(rpc, aria2c, mount, faultserver):
    url = faultserver.add("/same.bin", size=64 * KiB, seed=4)
    ours = result(rpc, "aria2.addUri", [url])
    theirs = result(aria2c, "aria2.addUri", [url])
    assert len(ours) == 16 and int(ours, 16) in mount.task_ids()
    done = wait_status(rpc, ours, "complete")
    reference = wait_status(aria2c, theirs, "complete")
    for key in ("gid", "status", "totalLength", "completedLength", "downloadSpeed", "uploadSpeed", "connections",
                "dir", "files", "numPieces", "pieceLength", "bitfield"):
        assert key in done, key
        assert _shape(done[key]) == _shape(reference[key]), key
    assert done["totalLength"] == str(64 * KiB) and done["completedLength"] == str(64 * KiB)
    path = done["files"][0]["path"]
    assert path == str(mount.mp / "files" / "same.bin")
    with open(path, "rb") as finished:
        assert finished.read() == content(4, 64 * KiB)
    picked = result(rpc, "aria2.tellStatus", ours, ["gid", "status"])
    assert picked == {"gid": ours, "status": "complete"}


def test_r72_add_with_options_pause_resume_and_options(rpc, mount, faultserver):
    url = faultserver.add("/opt.bin", size=256 * KiB, throttle=32 * KiB)
    g = result(rpc, "aria2.addUri", [url], {"out": "renamed.bin", "dir": "sub", "max-download-limit": "100K",
                                           "split": "2", "continue": "true"})
    task = int(g, 16)
    assert mount.status(task)["name"] == "renamed.bin"
    assert mount.status(task)["dir"] == "sub"
    assert result(rpc, "aria2.pause", g) == g
    mount.wait_state(task, "paused")
    assert wait_status(rpc, g, "paused")["status"] == "paused"
    again = call(rpc, "aria2.pause", g)["error"]
    assert again == {"code": 1, "message": f"GID#{g} cannot be paused now"}, "as aria2c answers"
    option = result(rpc, "aria2.getOption", g)
    assert option["split"] == "2"
    assert result(rpc, "aria2.changeOption", g, {"max-download-limit": "0"}) == "OK"
    assert result(rpc, "aria2.unpause", g) == g
    faultserver.update("/opt.bin", throttle=None)
    wait_status(rpc, g, "complete")
    assert (mount.mp / "files" / "sub" / "renamed.bin").exists()
    refused = call(rpc, "aria2.changeOption", g, {"split": "3"})["error"]
    assert refused == {"code": 1, "message": f"Cannot change option for GID#{g}"}, "as aria2c answers"


def test_r72_an_unknown_option_adds_nothing(rpc, mount, faultserver):
    url = faultserver.add("/no.bin", size=KiB)
    reply = call(rpc, "aria2.addUri", [url], {"bt-max-peers": "3"})
    assert "error" in reply
    reply = call(rpc, "aria2.addUri", [url], {"dir": "/etc"})
    assert "error" in reply
    assert mount.task_ids() == []


def test_r72_change_position_and_tell_waiting_follow_the_real_line(downloadfs_bin, make_mount, faultserver, tmp_path):
    mount = make_mount("--max-active", "1")
    server = RPCProcess.downloadfs(downloadfs_bin, mount, tmp_path).wait_ready()
    try:
        running = mount.add_one(faultserver.add("/busy.bin", size=4 * MiB, throttle=2 * MiB))
        mount.wait_state(running, "downloading")
        waiting = [mount.add_one(faultserver.add(f"/q{i}.bin", size=256 * KiB, seed=i, throttle=2 * MiB))
                   for i in range(4)]
        mount.ctl(waiting[3], "top")                   # q3 q0 q1 q2: first in line, last by id
        # One place back from where it really is: second, not second to last.
        assert result(server, "aria2.changePosition", gid(waiting[3]), 1, "POS_CUR") == 1
        assert os.getxattr(mount.task_dir(waiting[3]), "user.downloadfs.place") == b"1\n"
        assert result(server, "aria2.changePosition", gid(waiting[0]), -5, "POS_CUR") == 0
        line = [waiting[0], waiting[3], waiting[1], waiting[2]]
        # The line in start order, as aria2c lists its waiting queue: what a web front end shows after "move up".
        assert os.getxattr(mount.mp / "queue", "user.downloadfs.line") == "".join(f"{i}\n" for i in line).encode()
        assert "user.downloadfs.line" not in os.listxattr(mount.mp / "queue")
        assert [item["gid"] for item in result(server, "aria2.tellWaiting", 0, 10, ["gid"])] == [gid(i) for i in line]
        assert result(server, "aria2.tellWaiting", 1, 1, ["gid"]) == [{"gid": gid(waiting[3])}]
        assert mount.status(running)["state"] == "downloading", "the line was read while it stood still"
        assert start_order(mount, waiting, 60) == line
    finally:
        server.stop()


def test_r72_removed_results_stay_until_purged_and_purging_forgets(rpc, mount, faultserver):
    slow = result(rpc, "aria2.addUri", [faultserver.add("/slow.bin", size=512 * KiB, throttle=16 * KiB)])
    done = result(rpc, "aria2.addUri", [faultserver.add("/done.bin", size=KiB, seed=6)])
    wait_status(rpc, done, "complete")
    options = result(rpc, "aria2.getOption", slow)
    assert result(rpc, "aria2.remove", slow) == slow
    wait_until(lambda: int(slow, 16) not in mount.task_ids(), timeout=TIMEOUT, what="the removed task gone")
    assert result(rpc, "aria2.getOption", slow) == options, "a removed result's options, as aria2c keeps them"
    stopped = {item["gid"]: item["status"] for item in result(rpc, "aria2.tellStopped", 0, 10, ["gid", "status"])}
    assert stopped == {slow: "removed", done: "complete"}
    assert result(rpc, "aria2.purgeDownloadResult") == "OK"
    assert result(rpc, "aria2.tellStopped", 0, 10) == []
    assert int(done, 16) not in mount.task_ids(), "a completed task is forgotten (R34)"
    assert (mount.mp / "files" / "done.bin").read_bytes() == content(6, KiB), "its file stays"


def test_r19_r72_mirrors_are_uris_and_an_attribute_of_url(rpc, mount, faultserver):
    first = faultserver.add("/m1.bin", size=64 * KiB, seed=3, throttle=16 * KiB)
    other = f"http://user:pw@127.0.0.1:{faultserver.port}/m2.bin"
    faultserver.add("/m2.bin", size=64 * KiB, seed=3)
    g = result(rpc, "aria2.addUri", [first, other], {"split": "1"})
    url_file = mount.task_dir(int(g, 16)) / "url"
    assert os.getxattr(url_file, "user.downloadfs.mirrors") == f"http://user:***@127.0.0.1:{faultserver.port}/m2.bin\n".encode()
    uris = [item["uri"] for item in result(rpc, "aria2.getUris", g)]
    assert uris == [first, f"http://user:***@127.0.0.1:{faultserver.port}/m2.bin"]
    plain = result(rpc, "aria2.addUri", [faultserver.add("/one.bin", size=KiB)])
    assert os.listxattr(mount.task_dir(int(plain, 16)) / "url") == []


def _bitfield(ranges, total, piece=1 << 20):
    """aria2's hex bitfield of `ranges` ("a-b,c-d", half-open): a piece is set when whole."""
    held = [tuple(map(int, item.split("-"))) for item in ranges.split(",") if item]
    pieces = (total + piece - 1) // piece
    bits = [any(a <= p * piece and min(total, (p + 1) * piece) <= b for a, b in held) for p in range(pieces)]
    return bytes(sum(0x80 >> i for i in range(8) if i < len(byte) and byte[i])
                 for byte in (bits[k:k + 8] for k in range(0, pieces, 8))).hex()


def test_r18_r72_bitfield_comes_from_the_byte_ranges_the_mount_shows(rpc, mount, faultserver):
    """A split download holds ranges that are no prefix; the data file's
    attribute user.downloadfs.ranges names them (answered by name, never
    listed), and the door's bitfield is built from them."""
    size = 16 * MiB + 3
    url = faultserver.add("/holes.bin", size=size, seed=72, etag='"h"', throttle=2 * MiB)
    g = result(rpc, "aria2.addUri", [url], {"split": "4"})
    task = int(g, 16)
    data = mount.task_dir(task) / "holes.bin"
    # Wait until the later segments hold a whole piece each, then pause so the ranges stay.
    wait_until(lambda: len(os.getxattr(data, "user.downloadfs.ranges").split(b",")) >= 2
               and int(mount.status(task)["downloaded"]) >= 6 * MiB, timeout=30, what="several ranges held")
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused", timeout=10)
    ranges = os.getxattr(data, "user.downloadfs.ranges").decode()
    assert not ranges.startswith("0-") or "," in ranges, ranges
    assert "user.downloadfs.ranges" not in os.listxattr(data)
    status = result(rpc, "aria2.tellStatus", g)
    assert status["bitfield"] == _bitfield(ranges, size), (ranges, status["bitfield"])
    assert status["bitfield"] != _bitfield(f"0-{int(status['completedLength'])}", size), \
        "the ranges held are no prefix: a prefix would give another bitfield"
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=60)
    assert os.getxattr(data, "user.downloadfs.ranges").decode() == f"0-{size}"
    assert result(rpc, "aria2.tellStatus", g, ["bitfield"])["bitfield"] == _bitfield(f"0-{size}", size)


def test_r20_r72_the_status_attribute_is_the_status_in_one_request(rpc, mount, faultserver):
    """queue/<id>/status answers user.downloadfs.status with the text a read
    of it gives: by name only, never listed, the password masked, and ENOENT
    once the task is gone. The task's directory answers its files' three
    attributes (status, mirrors, ranges) the same, unlisted, and all three
    in one, user.downloadfs.report, NUL between them: the door reads them
    there, where the kernel asks no getattr first."""
    faultserver.add("/a.bin", size=KiB)
    faultserver.add("/m.bin", size=KiB)
    g = result(rpc, "aria2.addUri", [f"http://user:hunter2@127.0.0.1:{faultserver.port}/a.bin",
                                     f"http://127.0.0.1:{faultserver.port}/m.bin"])
    task = int(g, 16)
    mount.wait_state(task, "completed", timeout=30)
    directory = mount.task_dir(task)
    status = directory / "status"
    text = os.getxattr(status, "user.downloadfs.status").decode()
    assert text == status.read_text(), text
    assert text.startswith(f"id: {task}\n") and "state: completed\n" in text
    assert "hunter2" not in text and "user:***@" in text
    assert "user.downloadfs.status" not in os.listxattr(status)
    with pytest.raises(OSError) as other:
        os.getxattr(status, "user.downloadfs.other")
    assert other.value.errno == errno.ENODATA
    assert os.getxattr(directory, "user.downloadfs.status").decode() == status.read_text()
    mirrors = os.getxattr(directory / "url", "user.downloadfs.mirrors")
    assert mirrors == f"http://127.0.0.1:{faultserver.port}/m.bin\n".encode()
    assert os.getxattr(directory, "user.downloadfs.mirrors") == mirrors
    ranges = os.getxattr(directory / "a.bin", "user.downloadfs.ranges")
    assert ranges == f"0-{KiB}".encode(), ranges  # half-open
    assert os.getxattr(directory, "user.downloadfs.ranges") == ranges
    report = os.getxattr(directory, "user.downloadfs.report")
    assert report == status.read_bytes() + b"\0" + mirrors + b"\0" + ranges, report
    assert os.listxattr(directory) == []
    with pytest.raises(OSError) as foreign:
        os.getxattr(directory, "user.xdg.origin.url")
    assert foreign.value.errno == errno.ENODATA
    assert result(rpc, "aria2.tellStatus", g, ["status", "completedLength"]) == \
        {"status": "complete", "completedLength": str(KiB)}
    mount.ctl(task, "forget")
    wait_until(lambda: not directory.exists(), timeout=10, what="the task forgotten")
    for node, name in ((status, "user.downloadfs.status"), (directory, "user.downloadfs.status"),
                       (directory, "user.downloadfs.report")):
        with pytest.raises(OSError) as gone:
            os.getxattr(node, name)
        assert gone.value.errno == errno.ENOENT


def test_r71_a_password_is_never_shown(rpc, faultserver):
    faultserver.add("/p.bin", size=KiB)
    g = result(rpc, "aria2.addUri", [f"http://user:hunter2@127.0.0.1:{faultserver.port}/p.bin"])
    wait_status(rpc, g, ("complete", "error"))
    assert "hunter2" not in json.dumps(result(rpc, "aria2.tellStatus", g))
    assert "hunter2" not in json.dumps(result(rpc, "aria2.getUris", g))


# -- safety (R71) ----------------------------------------------------------------

def test_r71_a_secret_is_required_in_every_call(downloadfs_bin, mount, tmp_path, aria2c):
    server = RPCProcess.downloadfs(downloadfs_bin, mount, tmp_path, "--rpc-secret", "s3cret").wait_ready()
    try:
        wrong = call(server, "aria2.getVersion", "token:nope")["error"]
        reference = RPCProcess.aria2c(tmp_path, "--rpc-secret=s3cret").wait_ready()
        try:
            assert wrong == call(reference, "aria2.getVersion", "token:nope")["error"]
        finally:
            reference.stop()
        assert wrong["code"] == 1 and wrong["message"] == "Unauthorized"
        assert "version" in result(server, "aria2.getVersion", "token:s3cret")
    finally:
        server.stop()


def test_r71_a_foreign_origin_is_refused_without_a_secret(rpc, downloadfs_bin, mount, tmp_path):
    status, _, _ = post(rpc.url, {"jsonrpc": "2.0", "id": 1, "method": "aria2.addUri",
                                  "params": [["http://127.0.0.1:1/x"]]}, headers={"Origin": "http://evil.example"})
    assert status >= 400
    # A <script> or <img> sends the GET form without Origin: what the browser adds instead tells the page.
    params = base64.b64encode(json.dumps([["http://127.0.0.1:1/x"]]).encode()).decode()
    page = rpc.url + "?" + urllib.parse.urlencode({"method": "aria2.addUri", "id": "x", "params": params,
                                                   "jsoncallback": "cb"})
    host = urllib.parse.urlsplit(rpc.url).netloc
    for headers in ({"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"},
                    {"Referer": "http://evil.example/page.html"},
                    {"Host": "rebound.example:" + host.rsplit(":", 1)[1], "Sec-Fetch-Site": "same-origin"}):
        status, _, _ = get(page, headers=headers)
        assert status == 403, headers
    forced, _, _ = get(rpc.url + "?method=aria2.forceShutdown&id=1&params=W10%3D", headers={"Sec-Fetch-Site": "cross-site"})
    assert forced == 403
    assert mount.task_ids() == []
    assert "version" in result(rpc, "aria2.getVersion"), "the door still serves"
    allowed = RPCProcess.downloadfs(downloadfs_bin, mount, tmp_path, "--rpc-allow-origin-all").wait_ready()
    try:
        status, headers, _ = get(allowed.url, method="OPTIONS",
                                 headers={"Origin": "http://page.example", "Access-Control-Request-Method": "POST"})
        assert status == 200 and headers.get("Access-Control-Allow-Origin") == "*"
    finally:
        allowed.stop()


def test_r71_hostile_input_is_refused_and_the_server_goes_on(rpc, mount):
    status, _, _ = post(rpc.url, b"[" + b" " * (3 << 20) + b"]")
    assert status >= 400
    assert json.loads(post(rpc.url, b"{\"jsonrpc\":")[2])["error"]["code"] == -32700
    assert "error" in call(rpc, "aria2.addUri", "not a list")
    assert "version" in result(rpc, "aria2.getVersion")
    assert mount.task_ids() == []


def test_r70_get_with_jsoncallback(rpc):
    status, headers, body = get_call(rpc, "aria2.getVersion", [], callback="cb")
    assert status == 200
    text = body.decode()
    assert text.startswith("cb(") and text.rstrip(";").endswith(")")
    assert "version" in json.loads(text[3:text.rindex(")")])["result"]


# -- clients (R72, R73) ----------------------------------------------------------

def _venv():
    python = venv_python()
    if python is None:
        pytest.fail("the test venv with aria2p is missing: run scripts/install-deps --test")
    return python


def test_r72_aria2p_drives_the_mount(rpc, mount, faultserver):
    urls = [faultserver.add(f"/p{i}.bin", size=32 * KiB, seed=20 + i) for i in range(2)]
    slow = faultserver.add("/pslow.bin", size=512 * KiB, throttle=16 * KiB)
    script = textwrap.dedent(f"""
        import json, time, aria2p
        api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port={rpc.port}, secret=""))
        added = [api.add_uris([u]) for u in {json.dumps(urls)}]
        slow = api.add_uris([{json.dumps(slow)}])
        deadline = time.monotonic() + 30
        while any(not d.is_complete for d in (api.get_download(a.gid) for a in added)):
            assert time.monotonic() < deadline, "downloads did not complete"
            time.sleep(0.1)
        api.pause([slow])
        assert api.get_download(slow.gid).status in ("paused", "active")
        api.resume([slow])
        api.remove([slow])
        files = [str(api.get_download(a.gid).files[0].path) for a in added]
        print(json.dumps({{"gids": [d.gid for d in api.get_downloads()], "files": files}}))
    """)
    run = subprocess.run([str(_venv()), "-c", script], capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert [os.path.basename(f) for f in out["files"]] == ["p0.bin", "p1.bin"]
    for i, path in enumerate(out["files"]):
        with open(path, "rb") as finished:
            assert finished.read() == content(20 + i, 32 * KiB)


def test_r73_websocket_clients_get_start_and_complete(rpc, faultserver):
    url = faultserver.add("/ws.bin", size=64 * KiB, throttle=64 * KiB)
    script = textwrap.dedent(f"""
        import json, sys, websocket
        ws = websocket.create_connection("ws://127.0.0.1:{rpc.port}/jsonrpc", timeout=20)
        ws.send(json.dumps({{"jsonrpc": "2.0", "id": "a", "method": "aria2.addUri", "params": [[{json.dumps(url)}]]}}))
        seen, gid = [], None
        while "aria2.onDownloadComplete" not in seen:
            message = json.loads(ws.recv())
            if message.get("id") == "a":
                gid = message["result"]
            elif "method" in message:
                assert message["params"][0]["gid"] == gid or gid is None, message
                seen.append(message["method"])
        print(json.dumps(seen))
    """)
    run = subprocess.run([str(_venv()), "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert "aria2.onDownloadStart" in seen and seen[-1] == "aria2.onDownloadComplete", seen


def test_r73_a_task_that_retries_starts_once_as_with_aria2c(rpc, faultserver):
    # The first answer is a 503: retrying, queued, downloading again, while aria2 shows it active throughout.
    url = faultserver.add("/flaky.bin", size=64 * KiB, status=503, status_times=1)
    script = textwrap.dedent(f"""
        import json, websocket
        ws = websocket.create_connection("ws://127.0.0.1:{rpc.port}/jsonrpc", timeout=20)
        ws.send(json.dumps({{"jsonrpc": "2.0", "id": "a", "method": "aria2.addUri", "params": [[{json.dumps(url)}]]}}))
        seen = []
        while "aria2.onDownloadComplete" not in seen:
            message = json.loads(ws.recv())
            if "method" in message:
                seen.append(message["method"])
        print(json.dumps(seen))
    """)
    run = subprocess.run([str(_venv()), "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert [r.status for r in faultserver.gets("/flaky.bin")] == [503, 200], "it did retry"
    assert json.loads(run.stdout) == ["aria2.onDownloadStart", "aria2.onDownloadComplete"]


def test_r71_a_thousand_idle_websockets_do_not_stop_the_server(rpc):
    sockets = []
    try:
        for _ in range(1000):
            s = socket.create_connection(("127.0.0.1", rpc.port), timeout=10)
            s.sendall(b"GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            sockets.append(s)
        assert "version" in result(rpc, "aria2.getVersion")
    finally:
        for s in sockets:
            s.close()


# -- with the mount (R70) ------------------------------------------------------

def test_r70_mount_rpc_serves_while_mounted_and_shutdown_unmounts(make_mount, faultserver):
    port = free_port()
    mount = make_mount("--rpc", "--rpc-listen-port", str(port))
    server = Endpoint(port)
    url = faultserver.add("/m.bin", size=KiB, seed=9)
    wait_until(lambda: _answers(port), timeout=TIMEOUT, what="the door of mount --rpc")
    g = result(server, "aria2.addUri", [url])
    wait_status(server, g, "complete")
    assert result(server, "aria2.shutdown") == "OK"
    mount.wait_exit(timeout=TIMEOUT)
    wait_until(lambda: not _answers(port), timeout=TIMEOUT, what="the door gone with the mount")


@pytest.mark.parametrize("foreground", [False, True], ids=["background", "foreground"])
def test_r70_r2_mount_rpc_whose_door_cannot_start_fails_and_mounts_nothing(make_mount, downloadfs_bin, tmp_path,
                                                                            foreground):
    """A port in use or a missing secret file: `mount --rpc` exits 1 with the
    door's one line, and leaves nothing mounted or running."""
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    extra = ["--foreground"] if foreground else []
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([str(downloadfs_bin), "mount", str(mount.mp), "--state-dir", str(mount.state),
                              "--rpc", "--rpc-listen-port", str(port), *extra],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1, run
    assert [line for line in run.stderr.splitlines() if str(port) in line and "in use" in line], run.stderr
    assert "in use" not in run.stdout
    assert not mounted_in_table(mount.mp)
    run = subprocess.run([str(downloadfs_bin), "mount", str(mount.mp), "--state-dir", str(mount.state),
                          "--rpc", "--rpc-secret-file", str(tmp_path / "none"), *extra],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 1 and "cannot read the secret file" in run.stderr, run
    assert not mounted_in_table(mount.mp)
    if not foreground:
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    # The state dir's lock is free again: a mount without the door goes ahead.
    mount.start()
    assert mounted_in_table(mount.mp)


def _doors(daemon):
    """The pids of `downloadfs rpc` children of `daemon`."""
    return [pid for pid in processes(lambda args: len(args) > 1 and args[1] == b"rpc") if parent_of(pid) == daemon]


def test_r70_the_door_of_mount_rpc_comes_back_after_a_crash_and_not_after_sigterm(make_mount):
    port = free_port()
    mount = make_mount("--rpc", "--rpc-listen-port", str(port))
    # A foreground mount is ready before its door listens; one killed while
    # starting fails the mount, as one that cannot start does.
    wait_until(lambda: _answers(port), timeout=TIMEOUT, what="the door of mount --rpc")
    [door] = _doors(mount.pid)
    os.kill(door, signal.SIGKILL)
    wait_until(lambda: len(_doors(mount.pid)) == 1 and _doors(mount.pid) != [door] and _answers(port),
               timeout=TIMEOUT, what="the door started again after kill -9")
    assert "version" in result(Endpoint(port), "aria2.getVersion")
    assert "starting it again" in mount.output(), mount.output()
    # Asked to stop (SIGTERM): it stays stopped, and the mount goes on.
    [again] = _doors(mount.pid)
    os.kill(again, signal.SIGTERM)
    wait_until(lambda: not _doors(mount.pid), timeout=TIMEOUT, what="the door gone after SIGTERM")
    wait_until(lambda: not _answers(port), timeout=TIMEOUT, what="the port closed")
    # A restart would come 1 s after the end: none may come within 2 s.
    quiet_until = time.monotonic() + 2
    while time.monotonic() < quiet_until:
        assert not _doors(mount.pid), "the door was started again after SIGTERM"
        time.sleep(0.1)
    assert mount.ready()


def test_r3_r70_downloadfs_unmount_stops_the_door_of_mount_rpc(make_mount):
    """The door holds MOUNT/events open; `downloadfs unmount` ends it first,
    so the unmount is not refused as busy."""
    port = free_port()
    mount = make_mount("--rpc", "--rpc-listen-port", str(port))
    wait_until(lambda: _answers(port), timeout=TIMEOUT, what="the door of mount --rpc")
    run = mount.unmount_command()
    assert run.returncode == 0, run.stderr
    mount.wait_exit(timeout=TIMEOUT)
    assert not _answers(port)


def test_r70_a_lazy_unmount_ends_the_door_and_then_the_daemon(make_mount):
    """`fusermount3 -uz` leaves a daemon alive while a file of its mount is
    open; the door, which keeps `events` open, stops once the mount is gone
    from the table, and the daemon can then end."""
    port = free_port()
    mount = make_mount("--rpc", "--rpc-listen-port", str(port))
    wait_until(lambda: _answers(port), timeout=TIMEOUT, what="the door of mount --rpc")
    subprocess.run(["fusermount3", "-uz", str(mount.mp)], check=True, timeout=TIMEOUT)
    wait_until(lambda: not _answers(port), timeout=TIMEOUT, what="the door stopped after the lazy unmount")
    mount.wait_exit(timeout=TIMEOUT)


def test_r70_r8_o_rpc_in_an_fstab_line_starts_the_door(make_mount, downloadfs_bin):
    """mount(8)'s form: `-o rpc,rpc-listen-port=N` as an fstab line writes it."""
    port = free_port()
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    run = subprocess.run(["mount", "-t", "fuse", f"{downloadfs_bin}#{mount.state}", str(mount.mp),
                          "-o", f"rpc,rpc-listen-port={port}"], capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr
    wait_until(lambda: _answers(port), timeout=TIMEOUT, what="the door of -o rpc")
    assert "version" in result(Endpoint(port), "aria2.getVersion")
    run = mount.unmount_command()
    assert run.returncode == 0, run.stderr
    wait_until(lambda: not _answers(port), timeout=TIMEOUT, what="the door gone with the mount")


def _answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
