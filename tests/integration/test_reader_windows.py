"""R20, R23: what a reader sees and what it costs, from outside.

- A known size is shown as soon as the response head arrives (R20, R23):
  a body that stalls at once still gives `total` in `status` and the full
  size to `stat`, so `cp` does not copy an empty file.
- Reading windows end with their readers (R23): readers of a paused task
  that are killed leave nothing behind that goes on fetching for nobody.
"""

import os
import signal
import subprocess
import sys
import time

from support.files import MiB, content_range, read_range
from support.waiting import stays_true, wait_until, within


def _paused_slow_task(mount, faultserver, name, size, seed, throttle):
    """A task of `size` bytes from a server sending `throttle` bytes/s per
    connection, paused once it holds a little; returns its data file's path."""
    task = mount.add_one(faultserver.add("/" + name, size=size, seed=seed, throttle=throttle))
    mount.wait_downloaded(task, 64 * 1024)
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused", timeout=5)
    wait_until(lambda: all(g.finished for g in faultserver.gets("/" + name)), 5, "the transfer to stop")
    return task, mount.task_dir(task) / name


def test_r20_r23_a_known_total_is_shown_when_the_head_arrives(mount, faultserver):
    size = 50 * MiB
    url = faultserver.add("/c.bin", size=size, seed=271, stall_after=0, stall_seconds=60)
    task = mount.add_one(url)
    # The head with Content-Length came; the body has not, and will not for a minute.
    wait_until(lambda: faultserver.gets("/c.bin"), 5, "the request")
    wait_until(lambda: mount.status(task)["total"] == str(size), 5,
               f"status to show the total while the body stalls: {mount.status(task)}")
    assert mount.status(task)["downloaded"] == "0"
    assert os.stat(mount.task_dir(task) / "c.bin").st_size == size, "stat does not give the full size"


_RANDOM_READER = r"""
import os, random, sys
path, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
fd = os.open(path, os.O_RDONLY)
while True:
    os.pread(fd, 65536, rng.randrange(0, size - 65536))
"""


def test_r23_windows_of_killed_readers_stop_fetching(mount, faultserver):
    """Readers at random offsets of a paused task open windows (4 MiB read
    ahead each); once they are killed, the task stops fetching within a
    couple of seconds instead of finishing every window for nobody."""
    size = 256 * MiB
    # Slow per connection, so that each window would take seconds to finish.
    task, path = _paused_slow_task(mount, faultserver, "w.bin", size, 272, 512 * 1024)
    readers = [subprocess.Popen([sys.executable, "-c", _RANDOM_READER, str(path), str(size), str(n)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
               for n in range(8)]
    try:
        wait_until(lambda: sum(1 for g in faultserver.gets("/w.bin") if g.finished is None) >= 4, 10,
                   "readers' windows to open")
        wait_until(lambda: faultserver.bytes_sent("/w.bin") >= 2 * MiB, 10, "the windows to fetch")
    finally:
        for reader in readers:
            os.killpg(reader.pid, signal.SIGKILL)
        for reader in readers:
            reader.wait(10)
    killed = time.monotonic()
    # Within a few seconds no request of the task is still open...
    wait_until(lambda: all(g.finished for g in faultserver.gets("/w.bin")), 5,
               "every window to end after its readers were killed")
    ended = time.monotonic() - killed
    # ... and nothing more is asked for.
    sent = faultserver.bytes_sent("/w.bin")
    asked = len(faultserver.gets("/w.bin"))
    stays_true(lambda: len(faultserver.gets("/w.bin")) == asked and faultserver.bytes_sent("/w.bin") == sent,
               1.5, "no fetching after the readers were gone")
    assert mount.status(task)["state"] == "paused", "the reads changed the task"
    assert ended < 5, f"windows went on {ended:.1f} s after their readers were killed"


def test_r23_a_reader_does_not_wait_behind_anothers_read_ahead(make_mount, faultserver):
    """With one reader's slot per host and a slow server, a read whose
    reader has moved on leaves its window reading ahead for 16 s; a second
    reader elsewhere must not wait for that: the idle window gives way."""
    mount = make_mount("--max-connections-per-host", "1")
    task, path = _paused_slow_task(mount, faultserver, "ra.bin", 64 * MiB, 273, 256 * 1024)
    with open(path, "rb") as f:
        # The first reader is served; its window (4 MiB at 256 KiB/s) goes on ahead of it.
        f.seek(8 * MiB)
        assert f.read(4096) == content_range(273, 8 * MiB, 8 * MiB + 4096)
        began = time.monotonic()
        data = within(lambda: read_range(path, 40 * MiB, 4096), 8, "a read elsewhere")
        waited = time.monotonic() - began
    assert data == content_range(273, 40 * MiB, 40 * MiB + 4096)
    # 16 s if it waited for the first window to end; a request's time if not.
    assert waited < 4, f"the second reader waited {waited:.1f} s behind the first one's read-ahead"
    assert mount.status(task)["state"] == "paused"
