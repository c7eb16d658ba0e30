"""R33: `mount --on-complete CMD` runs CMD for every completed task."""

import os
import re
import signal
import time

from support.files import KiB
from support.waiting import wait_until


def test_r33_on_complete_env(make_mount, faultserver, tmp_path):
    out = tmp_path / "hook"
    out.mkdir()
    mount = make_mount("--on-complete", f'env | grep "^DOWNLOADFS_" > "{out}/$DOWNLOADFS_ID.env"')
    url = faultserver.add("/hooked.bin", size=10 * KiB)
    task = mount.add_one(url)
    mount.wait_state(task, "completed")
    env_file = out / f"{task}.env"
    wait_until(lambda: env_file.exists() and env_file.read_text().count("\n") >= 4, 5,
               "the hook to run")
    env = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
    assert env["DOWNLOADFS_ID"] == str(task)
    assert env["DOWNLOADFS_NAME"] == "hooked.bin"
    assert env["DOWNLOADFS_PATH"] == str(mount.state / "files" / "hooked.bin")
    assert env["DOWNLOADFS_URL"] == url


def test_r33_not_waited_on(make_mount, faultserver):
    mount = make_mount("--max-active", "1", "--on-complete", "sleep 10")
    tasks = [mount.add_one(faultserver.add(f"/n{i}.bin", size=1000)) for i in range(3)]
    started = time.monotonic()
    for task in tasks:
        mount.wait_state(task, "completed", timeout=10)
    assert time.monotonic() - started < 5, "the daemon waited on the hook"


def test_r33_failure_logged(make_mount, faultserver):
    mount = make_mount("--on-complete", "exit 3")
    task = mount.add_one(faultserver.add("/f.bin", size=1000))
    mount.wait_state(task, "completed")
    wait_until(lambda: re.search(r"(exit|status|code)\D{0,20}\b3\b", mount.log(), re.IGNORECASE),
               5, "the hook's failure in MOUNT/log")
    assert mount.status(task)["state"] == "completed"
    assert mount.files() == ["f.bin"]


def test_r33_the_hook_gets_no_descriptor_or_signal_state_of_the_daemon(make_mount, faultserver, tmp_path):
    """What the hook starts holds none of the daemon's descriptors (the socket
    to fusermount3's auto-unmount watcher would keep a killed daemon's mount
    behind, dead) and starts with no blocked signal: `kill PID` stops it."""
    out = tmp_path / "hook"
    out.mkdir()
    mount = make_mount("--on-complete", f'sleep 60 & echo $! > "{out}/$DOWNLOADFS_ID.pid"')
    task = mount.add_one(faultserver.add("/spawned.bin", size=10 * KiB))
    mount.wait_state(task, "completed")
    pid_file = out / f"{task}.pid"
    wait_until(lambda: pid_file.exists() and pid_file.read_text().strip().isdigit(), 5, "the hook to start sleep")
    pid = int(pid_file.read_text())
    try:
        descriptors = sorted(int(fd) for fd in os.listdir(f"/proc/{pid}/fd"))
        assert descriptors == [0, 1, 2], f"the hook's child holds the daemon's descriptors {descriptors}"
        status = dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/status").read().splitlines() if ":\t" in line)
        assert int(status["SigBlk"], 16) == 0, f"signals blocked in the hook's child: {status['SigBlk']}"
        ignored = int(status["SigIgn"], 16)
        for signal_number in (signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
            assert not ignored & (1 << (signal_number - 1)), f"{signal_number.name} ignored in the hook's child"
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split(") ")[1][0] == "Z",
                   5, "SIGTERM to end the hook's child")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
