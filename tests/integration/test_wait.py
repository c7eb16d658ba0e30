"""R22: reading queue/<id>/wait blocks until the task ends."""

import os
import signal
import subprocess
import sys
import threading
import time

from support.files import MiB
from support.waiting import wait_until


class Waiter(threading.Thread):
    """Reads a task's `wait` file in the background."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.result = None
        self.returned_at = None

    def run(self):
        try:
            with open(self.path, encoding="utf-8") as handle:
                self.result = handle.read()
        except OSError as exc:
            self.result = exc
        self.returned_at = time.monotonic()


def _slow(mount, faultserver, path="/slow.bin", size=3 * MiB):
    return mount.add_one(faultserver.add(path, size=size, throttle=2 * MiB))


def test_r22_wait_blocks_until_completed(mount, faultserver):
    task = _slow(mount, faultserver)
    waiter = Waiter(mount.task_dir(task) / "wait")
    waiter.start()
    waiter.join(0.8)
    assert waiter.is_alive(), f"wait returned early: {waiter.result!r}"
    mount.wait_state(task, "completed")
    seen_completed = time.monotonic()
    waiter.join(5)
    assert not waiter.is_alive(), "wait did not return after completion"
    assert waiter.result == "completed\n"
    assert waiter.returned_at - seen_completed < 1.5


def test_r22_wait_failed(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    task = mount.add_one(faultserver.add("/missing.bin", status=404, status_times=None))
    waiter = Waiter(mount.task_dir(task) / "wait")
    waiter.start()
    waiter.join(10)
    assert not waiter.is_alive()
    assert waiter.result.startswith("failed: ") and waiter.result.endswith("\n"), waiter.result
    assert "404" in waiter.result
    # Already ended: returns at once.
    assert (mount.task_dir(task) / "wait").read_text().startswith("failed: ")


def test_r22_wait_returns_when_removed(mount, faultserver):
    task = _slow(mount, faultserver, size=32 * MiB)
    waiter = Waiter(mount.task_dir(task) / "wait")
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()
    os.rmdir(mount.task_dir(task))
    waiter.join(3)
    assert not waiter.is_alive(), "wait still blocked after the task was removed"


def test_r22_many_concurrent_waiters(mount, faultserver):
    task = _slow(mount, faultserver, size=4 * MiB)
    waiters = [Waiter(mount.task_dir(task) / "wait") for _ in range(50)]
    for waiter in waiters:
        waiter.start()
    wait_until(lambda: len(faultserver.gets("/slow.bin")) == 1, 5, "the download to start")
    # Blocked readers must not starve everyone else.
    for _ in range(5):
        began = time.monotonic()
        mount.status(task)
        mount.root_status()
        assert time.monotonic() - began < 1.0, "status reads stalled behind blocked waiters"
        time.sleep(0.1)
    assert all(w.is_alive() for w in waiters)
    mount.wait_state(task, "completed")
    for waiter in waiters:
        waiter.join(5)
    assert [w.result for w in waiters] == ["completed\n"] * 50


_READER = """
import sys
try:
    with open(sys.argv[1]) as handle:
        handle.read()
    print("returned")
except KeyboardInterrupt:
    print("interrupted")
    sys.exit(130)
"""


def test_r22_sigint_reader_returns_promptly(mount, faultserver):
    task = _slow(mount, faultserver, size=32 * MiB)
    # A reader with a SIGINT handler (Python's), so the signal is not fatal
    # and only the daemon answering the interrupt can end the read.
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(mount.task_dir(task) / "wait")],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        time.sleep(1.0)  # let the read block
        assert reader.poll() is None, "the read returned before the task ended"
        reader.send_signal(signal.SIGINT)
        try:
            out, _ = reader.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            raise AssertionError("a reader interrupted by SIGINT is still blocked") from None
        assert out.strip() == "interrupted"
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait(10)
    assert mount.status(task)["state"] == "downloading", "the interrupt disturbed the task"


def test_r22_wait_is_found_by_name_but_not_listed(mount, faultserver):
    task = _slow(mount, faultserver)
    assert "wait" not in os.listdir(mount.task_dir(task))
    assert os.path.isfile(mount.task_dir(task) / "wait")
    # So recursive tools never block on it.
    result = subprocess.run(["grep", "-rs", "no-such-text", str(mount.mp / "queue")],
                            capture_output=True, timeout=20)
    assert result.returncode in (1, 2), result  # nothing found (or a file refused), nothing blocked


def _blocked_reading(pid, path):
    """True once process `pid` holds `path` open and sleeps in the kernel
    waiting for the daemon's answer (a FUSE request), not running."""
    try:
        fds = f"/proc/{pid}/fd"
        holds = any(os.readlink(f"{fds}/{fd}") == str(path) for fd in os.listdir(fds))
        with open(f"/proc/{pid}/wchan", encoding="utf-8") as handle:
            wchan = handle.read().strip()
    except OSError:
        return False
    return holds and "wait" in wchan


def test_r22_r3_unmount_does_not_tell_a_blocked_reader_the_task_failed(mount, faultserver):
    """At SIGTERM the task is checkpointed and resumes at the next mount
    (R3): it has neither completed nor failed, so the blocked reader of
    `wait` gets an error (ENOTCONN), never a `failed:` line (R22)."""
    task = _slow(mount, faultserver, size=32 * MiB)
    wait_file = mount.task_dir(task) / "wait"
    reader = subprocess.Popen(["cat", str(wait_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        wait_until(lambda: _blocked_reading(reader.pid, wait_file), 10, "cat to block on wait")
        os.kill(mount.pid, signal.SIGTERM)
        out, err = reader.communicate(timeout=15)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait(10)
    assert mount.wait_exit() == 0, mount.output()
    assert out == "", f"the reader was told {out!r} for a task that did not end"
    assert reader.returncode != 0 and "Transport endpoint is not connected" in err, (reader.returncode, err)
    mount.remount()
    assert mount.status(task)["state"] in ("queued", "downloading", "retrying", "completed")
