"""R55: nothing a server sends can lead outside STATE/ or to local files."""

import os
import re

import pytest

from support.files import KiB, sha256_file, sha256_of
from support.waiting import wait_until


def _tree(root, skip):
    """Every path under `root`, not descending into `skip` dirs."""
    found = set()
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        found.update(os.path.join(dirpath, n) for n in names + dirnames)
    return found


def test_r55_ten_redirects_followed(mount, faultserver):
    task = mount.add_one(faultserver.add("/ten.bin", size=1000, seed=3, redirect_chain=10))
    mount.wait_state(task, "completed")
    assert sha256_file(mount.mp / "files" / "ten.bin") == sha256_of(3, 1000)


def test_r55_eleventh_redirect_fails(make_mount, faultserver):
    mount = make_mount("--max-tries", "2")
    task = mount.add_one(faultserver.add("/eleven.bin", size=1000, redirect_chain=11))
    status = mount.wait_state(task, "failed", timeout=20)
    assert re.search(r"redirect", status["error"], re.IGNORECASE), status["error"]
    assert mount.files() == []
    assert not any(r.query == "hop=11" for r in faultserver.requests("/eleven.bin"))


def test_r55_redirect_loop_fails(make_mount, faultserver):
    mount = make_mount("--max-tries", "2")
    faultserver.add("/ping", redirect_to=faultserver.url("/pong"))
    faultserver.add("/pong", redirect_to=faultserver.url("/ping"))
    task = mount.add_one(faultserver.url("/ping"))
    status = mount.wait_state(task, "failed", timeout=20)
    assert re.search(r"redirect", status["error"], re.IGNORECASE), status["error"]
    hops = len(faultserver.requests("/ping")) + len(faultserver.requests("/pong"))
    assert hops <= 2 * 11, f"{hops} requests: the loop was not cut at 10 redirects per try"
    assert mount.files() == []


@pytest.mark.parametrize("target", ["file:///etc/passwd", "gopher://127.0.0.1:1/x",
                                    "dict://127.0.0.1:1/x", "scp://127.0.0.1/etc/passwd"])
def test_r55_redirect_to_other_scheme_fails(make_mount, faultserver, target):
    mount = make_mount("--max-tries", "2")
    task = mount.add_one(faultserver.add("/evil.bin", redirect_to=target))
    status = mount.wait_state(task, "failed", timeout=20)
    assert re.search(r"redirect", status["error"], re.IGNORECASE), status["error"]
    assert mount.files() == []
    # The refused redirect leaves nothing behind for the downloads after it
    # (curl handles are kept for the next transfers: one a failed transfer
    # left refused an option, and every later task failed "bad URL").
    for number in range(3):
        after = mount.add_one(faultserver.add(f"/after{number}.bin", size=100 * KiB, seed=number))
        done = mount.wait_state(after, "completed", timeout=20)
        assert sha256_file(mount.mp / "files" / done["name"]) == sha256_of(number, 100 * KiB), mount.task_log(after)
    with open("/etc/passwd", "rb") as handle:
        secret = handle.read()[:32]
    for dirpath, _, names in os.walk(mount.state):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as handle:
                assert secret not in handle.read(), f"{name} holds /etc/passwd"


def _hostile_dispositions(tmp_path):
    return {
        "dotdot": 'attachment; filename="../../escape.bin"',
        "absolute": f'attachment; filename="{tmp_path}/escape.bin"',
        "star-dotdot": "attachment; filename*=UTF-8''..%2F..%2F..%2Fescape.bin",
        "nul": "attachment; filename*=UTF-8''evil%00.bin%00",
        "newline": "attachment; filename*=UTF-8''a%0Ab%0D%1Bc.bin",
        "long": 'attachment; filename="' + "L" * 1024 + '.bin"',
        "invalid-utf8": b'attachment; filename="\xff\xfe\xc0.bin"',
        "only-dots": 'attachment; filename=".."',
        "empty": 'attachment; filename=""',
        "backslash-dotdot": 'attachment; filename="..\\\\..\\\\escape.bin"',
    }


@pytest.mark.parametrize("case", list(_hostile_dispositions("/x")))
def test_r55_hostile_content_disposition(mount, faultserver, tmp_path, case):
    header = _hostile_dispositions(tmp_path)[case]
    before = _tree(tmp_path, {str(mount.mp), str(mount.state)})
    task = mount.add_one(faultserver.add("/h.bin", size=1000, seed=7, content_disposition=header))
    status = mount.wait_state(task, "completed")
    name = status["name"]
    assert name and "/" not in name and not name.startswith("."), repr(name)
    assert len(name.encode("utf-8", "surrogateescape")) <= 255, len(name)
    assert not re.search(r"[\x00-\x1f\x7f]", name), repr(name)
    [listed] = os.listdir(mount.state / "files")
    stored = mount.state / "files" / listed
    assert os.path.realpath(stored).startswith(str(mount.state / "files") + "/")
    assert sha256_file(stored) == sha256_of(7, 1000)
    assert os.listdir(mount.mp / "files") == [listed]
    after = _tree(tmp_path, {str(mount.mp), str(mount.state)})
    assert after - before <= {str(p) for p in mount.runs}, f"written outside STATE: {after - before}"
    assert not os.path.exists(tmp_path.parent / "escape.bin")


def test_r55_megabyte_header_fails_once_and_says_why(mount, faultserver):
    url = faultserver.add("/bighead.bin", size=10 * KiB, headers={"X-Padding": "a" * (1 << 20)})
    task = mount.add_one(url)
    status = mount.wait_state(task, "failed", timeout=30)
    assert "response header over 100 KiB" in status["error"], status["error"]
    assert "memory" not in status["error"].lower()
    assert status["attempts"] == "1", "a header the server will send again was retried"
    assert len(faultserver.gets("/bighead.bin")) == 1
    assert mount.alive()


def test_r53_junk_left_on_a_reused_connection_is_retried_not_a_bad_url(mount, faultserver):
    """A server that sends bytes after a whole body, on a connection it keeps
    open, makes the next answer read there look like no HTTP at all (curl:
    "Received HTTP/0.9 when not allowed", CURLE_UNSUPPORTED_PROTOCOL). That
    is the connection's fault, not the URL's: the next task on that host
    must not fail at once with "bad URL: unsupported protocol"; it is
    retried on a fresh connection and completes."""
    first = mount.add_one(faultserver.add("/junk/one.bin", size=4 * KiB, seed=281,
                                          trailing_junk=b"NOT-HTTP-AT-ALL\r\n"))
    mount.wait_state(first, "completed")
    # Let the junk land on the idle connection curl keeps for reuse.
    wait_until(lambda: faultserver.gets("/junk/one.bin")[0].junk_sent, 5, "the junk to be sent")
    second = mount.add_one(faultserver.add("/junk/two.bin", size=4 * KiB, seed=282))
    status = mount.wait_state(second, ("completed", "failed"), timeout=30)
    assert status["state"] == "completed", f"{status['error']}\n{mount.task_log(second)}"
    assert "bad URL" not in mount.task_log(second), mount.task_log(second)
    assert sha256_file(mount.mp / "files" / "two.bin") == sha256_of(282, 4 * KiB)
