"""R3: the daemon survives its FUSE connection being aborted under load.

`umount -f` aborts the connection while replies are on their way; every
reply then fails. libfuse frees a request whatever its reply returns, so a
daemon that answers a failed reply again touches freed memory and dies by a
signal instead of exiting cleanly (issue 8, item 1).
"""

import os
import signal
import subprocess

import pytest

from support.files import MiB
from support.mount import mounted_in_table, pid_alive
from support.waiting import wait_until

READERS = 8
SIZE = 512 * MiB


def _position(pid):
    """How far the dd that reader `pid` (a shell looping over dd) runs now
    has read its input (fd 0); 0 between two dd's or before one opened it."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="utf-8") as handle:
            child = handle.read().split()[0]
        with open(f"/proc/{child}/fdinfo/0", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("pos:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _start_readers(path, count):
    """`dd iflag=direct` readers, each reading the file again and again
    until a read fails (the abort): every read is a request the daemon
    answers, and no reader can finish before the abort however fast the
    disk (a single pass of a fast disk ended a reader before the last one
    had started, and the wait for all of them never held)."""
    loop = 'while dd if="$0" of=/dev/null bs=1M iflag=direct 2>/dev/null; do :; done'
    return [subprocess.Popen(["sh", "-c", loop, str(path)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(count)]


def _end(processes):
    """Each reader's whole group: the shell and its dd."""
    for proc in processes:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for proc in processes:
        proc.wait(timeout=10)


def _abort_during_reads(mount, path):
    """Eight direct readers, then `umount -f`: the daemon must exit 0."""
    readers = _start_readers(path, READERS)
    try:
        # Every reader is past its first megabytes: requests are flowing.
        wait_until(lambda: all(_position(r.pid) >= 4 * MiB for r in readers),
                   30, "every dd to be reading")
        assert all(r.poll() is None for r in readers), "a reader stopped before the abort"
        subprocess.run(["umount", "-f", str(mount.mp)], capture_output=True, timeout=10)
        try:
            code = mount.wait_exit(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the daemon did not exit after its connection was aborted")
        assert code == 0, (f"the daemon died by signal {signal.Signals(-code).name}"
                           if code < 0 else f"the daemon exited with {code}")
        for reader in readers:
            reader.wait(timeout=20)
    finally:
        _end(readers)
    # Once its readers are gone the dead mount comes down by itself (the
    # auto_unmount helper), and nothing is left behind.
    wait_until(lambda: not mounted_in_table(mount.mp), 15, "the aborted mount to be gone")
    assert not pid_alive(mount.pid)
    # Failed replies are logged, but not one line per reply in flight.
    assert mount.runs and mount.runs[-1].read_text(errors="replace").count("a read reply failed") <= 1


@pytest.mark.timeout(240)
def test_r3_daemon_survives_forced_unmount_during_reads(mount, nginx, nginx_file):
    name, _ = nginx_file("abort.bin", SIZE, seed=81)
    task = mount.add_one(nginx.url(f"/{name}"))
    mount.wait_state(task, "completed", timeout=120)
    # Warm the page cache so the readers are as fast as they get: the more
    # replies in flight when the connection goes, the surer the test. A
    # crash needs a reply in flight at that moment, so it takes two rounds
    # (one alone caught the old daemon in 9 runs of 10).
    with open(mount.state / "files" / name, "rb") as handle:
        while handle.read(16 * MiB):
            pass
    for _ in range(2):
        if not mount.alive():
            mount.remount()
        _abort_during_reads(mount, mount.mp / "files" / name)
    assert os.path.isdir(mount.mp)
