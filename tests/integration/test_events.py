"""R24: MOUNT/events streams what happens to tasks, one line per change.

Each reader gets every line from the moment it opened the file, in commit
order, as whole lines; reads block until a line is there, a signal ends a
blocked read with EINTR, and poll, select and epoll say when a line waits.
A reader more than 10,000 lines behind is told `TIME - lost N`.
"""

import ctypes
import errno
import os
import re
import select
import signal
import stat
import subprocess
import threading
import time

from support.files import KiB, MiB
from support.waiting import wait_until, within

EVENTS = ("added", "queued", "downloading", "paused", "retrying", "verifying", "completed",
          "failed", "removed", "renamed", "forgotten")
LINE_RE = re.compile(r"^(\d+\.\d{3}) (\d+) (" + "|".join(EVENTS) + r") (.+)$")
LOST_RE = re.compile(r"^(\d+\.\d{3}) - lost (\d+)$")

# What a small download goes through, one line per state it enters.
SMALL_DOWNLOAD = ["added", "queued", "downloading", "verifying", "completed"]

_libc = ctypes.CDLL(None, use_errno=True)


def raw_read(fd, size=65536):
    """read(2) itself, not Python's os.read (which retries on EINTR):
    the bytes read, or -errno."""
    buffer = ctypes.create_string_buffer(size)
    n = _libc.read(fd, buffer, ctypes.c_size_t(size))
    return -ctypes.get_errno() if n < 0 else buffer.raw[:n]


class Events:
    """One open MOUNT/events and the lines read from it so far."""

    def __init__(self, mount, flags=0):
        self.fd = os.open(mount.mp / "events", os.O_RDONLY | flags)
        self.lines = []

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def ready(self, timeout):
        """True when poll(2) says a line waits within `timeout` seconds."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        return bool(poller.poll(int(timeout * 1000)))

    def read(self, size=65536, timeout=10):
        """One read(2); it returns whole lines, which are kept and returned."""
        data = within(lambda: os.read(self.fd, size), timeout, "a read of events")
        assert data, "end of file on events while mounted"
        assert data.endswith(b"\n"), f"a read returned part of a line: {data[-80:]!r}"
        new = data.decode("utf-8").split("\n")[:-1]
        self.lines += new
        return new

    def read_until(self, done, timeout, what):
        """Reads (waiting with poll) until `done(self.lines)`; returns the lines."""
        deadline = time.monotonic() + timeout
        while not done(self.lines):
            left = deadline - time.monotonic()
            assert left > 0, f"timed out after {timeout}s waiting for {what}; read:\n" + "\n".join(self.lines[-40:])
            if self.ready(min(left, 1.0)):
                self.read()
        return self.lines

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def parse(line):
    """(time, id, event, name) of a change line; fails on anything else."""
    match = LINE_RE.match(line)
    assert match, f"not a `TIME ID EVENT NAME` line: {line!r}"
    return float(match[1]), int(match[2]), match[3], match[4]


def events_of(lines, task):
    return [parse(line)[2] for line in lines if not LOST_RE.match(line) and parse(line)[1] == task]


def saw(task, event):
    return lambda lines: event in events_of(lines, task)


def _slow(mount, faultserver, path="/events-slow.bin", size=32 * MiB):
    return mount.add_one(faultserver.add(path, size=size, throttle=512 * KiB))


def test_r24_events_is_found_by_name_but_not_listed(mount):
    assert "events" not in os.listdir(mount.mp)
    listed = subprocess.run(["ls", "-a", str(mount.mp)], capture_output=True, text=True, timeout=10)
    assert "events" not in listed.stdout.split()
    info = os.stat(mount.mp / "events")
    assert stat.S_ISREG(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o444
    assert (info.st_uid, info.st_gid) == (os.stat(mount.mp).st_uid, os.stat(mount.mp).st_gid)
    # So recursive tools never block on it.
    result = subprocess.run(["grep", "-rs", "no-such-text", str(mount.mp)], capture_output=True, timeout=20)
    assert result.returncode in (1, 2), result
    # Read-only (R6), even for root.
    for flags in (os.O_WRONLY, os.O_RDWR):
        try:
            os.close(os.open(mount.mp / "events", flags))
        except PermissionError:
            continue
        raise AssertionError(f"events opened with flags {flags}")


def test_r24_two_readers_get_every_line_in_commit_order(mount, nginx, nginx_file):
    name, _ = nginx_file("events-small.bin", 256 * KiB, seed=24)
    with Events(mount) as first, Events(mount) as second:
        task = mount.add_one(nginx.url("/" + name))
        for reader in (first, second):
            reader.read_until(saw(task, "completed"), 30, "the download to complete")
        assert first.lines == second.lines
        for line in first.lines:
            parse(line)
        assert events_of(first.lines, task) == SMALL_DOWNLOAD
        assert {parse(line)[3] for line in first.lines} == {name}
        times = [parse(line)[0] for line in first.lines]
        assert times == sorted(times), "lines are not in the order they were committed"
        assert abs(times[0] - time.time()) < 60
        # Nothing is shown before it is committed (R15): the task's own
        # status already says completed when its line is read.
        assert mount.status(task)["state"] == "completed"


def test_r24_a_read_blocks_until_a_line_is_there(mount, nginx, nginx_file):
    name, _ = nginx_file("events-block.bin", 16 * KiB, seed=25)
    with Events(mount) as reader:
        got = {}

        def read():
            got["data"] = os.read(reader.fd, 65536)
            got["at"] = time.monotonic()

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        thread.join(0.5)
        assert thread.is_alive(), f"a read returned with nothing published: {got!r}"
        added_at = time.monotonic()
        task = mount.add_one(nginx.url("/" + name))
        thread.join(5)
        assert not thread.is_alive(), "a blocked read did not return when a task was added"
        assert got["at"] - added_at < 2
        data = got["data"]
        assert data.endswith(b"\n")
        first = data.decode().splitlines()
        assert parse(first[0])[1:3] == (task, "added")


def test_r24_a_reader_opened_later_gets_none_of_the_earlier_lines(mount, nginx, nginx_file):
    name, _ = nginx_file("events-early.bin", 16 * KiB, seed=26)
    first = mount.add_one(nginx.url("/" + name))
    mount.wait_state(first, "completed")
    with Events(mount) as late:
        assert not late.ready(0.5), "a reader opened after the changes was given them"
        other, _ = nginx_file("events-late.bin", 16 * KiB, seed=27)
        second = mount.add_one(nginx.url("/" + other))
        late.read_until(saw(second, "completed"), 30, "the second download to complete")
        assert parse(late.lines[0])[1:3] == (second, "added")
        assert all(parse(line)[1] == second for line in late.lines), late.lines


def test_r24_poll_select_and_epoll_say_when_a_line_waits(mount, nginx, nginx_file):
    name, _ = nginx_file("events-poll.bin", 16 * KiB, seed=28)
    # Every other file stays always ready, and asking about one does not
    # turn poll off for the mount (the kernel does that for good on ENOSYS).
    with open(mount.mp / "status", "rb") as status:
        poller = select.poll()
        poller.register(status.fileno(), select.POLLIN)
        assert poller.poll(0) == [(status.fileno(), select.POLLIN)]
    with Events(mount) as by_poll, Events(mount) as by_select, Events(mount) as by_epoll:
        poller = select.poll()
        poller.register(by_poll.fd, select.POLLIN)
        epoll = select.epoll()
        epoll.register(by_epoll.fd, select.EPOLLIN)
        try:
            assert poller.poll(0) == []
            assert select.select([by_select.fd], [], [], 0)[0] == []
            assert epoll.poll(0) == []
            # Each waits (a sleeping poller, woken by the daemon's notification)
            # while another thread adds a task.
            timer = threading.Timer(0.5, lambda: mount.add_one(nginx.url("/" + name)))
            timer.start()
            began = time.monotonic()
            assert poller.poll(10_000) == [(by_poll.fd, select.POLLIN)]
            assert time.monotonic() - began < 5
            timer.join()
            assert select.select([by_select.fd], [], [], 10)[0] == [by_select.fd]
            assert epoll.poll(10) == [(by_epoll.fd, select.EPOLLIN)]
            # Read: not readable again until the next line.
            for reader in (by_poll, by_select, by_epoll):
                reader.read_until(lambda lines: len(lines) >= 2, 10, "added and queued")
        finally:
            epoll.close()


def test_r24_edge_triggered_epoll_is_told_of_every_new_line(mount, nginx, nginx_file):
    name, _ = nginx_file("events-edge.bin", 256 * KiB, seed=29)
    with Events(mount) as reader:
        epoll = select.epoll()
        epoll.register(reader.fd, select.EPOLLIN | select.EPOLLET)
        try:
            task = mount.add_one(nginx.url("/" + name))
            deadline = time.monotonic() + 30
            while "completed" not in events_of(reader.lines, task):
                left = deadline - time.monotonic()
                assert left > 0, f"edge-triggered epoll missed a line; read: {reader.lines}"
                # Only an event for the next publish wakes it: everything
                # before was read.
                if epoll.poll(left):
                    reader.read()
            assert events_of(reader.lines, task) == SMALL_DOWNLOAD
        finally:
            epoll.close()


def _interrupt_main_thread_after(seconds):
    main = threading.main_thread().ident
    timer = threading.Timer(seconds, lambda: signal.pthread_kill(main, signal.SIGUSR1))
    timer.start()
    return timer


def _interrupted_read(mount, reader, url):
    """A read of `reader` with SIGUSR1 sent to this thread 0.5 s in: what it
    returned (bytes, or -errno) and how long it took. Should the interrupt be
    lost, adding `url` after 10 s ends the read (and the caller's check fails)."""
    timer = _interrupt_main_thread_after(0.5)
    rescue = threading.Timer(10, lambda: mount.add_one(url))
    rescue.start()
    began = time.monotonic()
    result = raw_read(reader.fd)
    took = time.monotonic() - began
    timer.join()
    rescue.cancel()
    return result, took


def test_r24_a_signal_interrupts_a_blocked_read_with_eintr(mount, nginx, nginx_file):
    name, _ = nginx_file("events-eintr.bin", 16 * KiB, seed=30)
    previous = signal.signal(signal.SIGUSR1, lambda *_: None)  # a handler that does not raise
    try:
        with Events(mount) as reader:
            result, took = _interrupted_read(mount, reader, nginx.url("/" + name))
            assert result == -errno.EINTR, f"the read returned {result!r} after {took:.1f}s"
            assert 0.4 < took < 3
            # The reader goes on: the next change comes.
            task = mount.add_one(nginx.url("/" + name))
            reader.read_until(saw(task, "added"), 10, "the added line after an interrupted read")
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_r24_reads_of_one_open_file_from_two_threads_are_each_interruptible(mount, nginx, nginx_file):
    """A stream (FOPEN_STREAM): a read waiting in one thread does not hold
    the file's position lock, where a second read would wait uninterruptibly."""
    name, _ = nginx_file("events-threads.bin", 16 * KiB, seed=31)
    previous = signal.signal(signal.SIGUSR1, lambda *_: None)
    try:
        with Events(mount) as reader:
            other = {}
            first = threading.Thread(target=lambda: other.setdefault("data", os.read(reader.fd, 65536)),
                                     daemon=True)
            first.start()
            first.join(0.3)
            assert first.is_alive()
            result, took = _interrupted_read(mount, reader, nginx.url("/" + name))
            assert result == -errno.EINTR, f"the second read returned {result!r} after {took:.1f}s"
            assert took < 3
            task = mount.add_one(nginx.url("/" + name))
            first.join(10)
            assert not first.is_alive(), "the first read did not get the change"
            assert parse(other["data"].decode().splitlines()[0])[1:3] == (task, "added")
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_r24_a_nonblocking_read_is_eagain_when_no_line_waits(mount, nginx, nginx_file):
    name, _ = nginx_file("events-nonblock.bin", 16 * KiB, seed=32)
    with Events(mount, os.O_NONBLOCK) as reader:
        try:
            data = within(lambda: os.read(reader.fd, 4096), 5, "a non-blocking read")
        except BlockingIOError:
            pass
        else:
            raise AssertionError(f"a non-blocking read with nothing published returned {data!r}")
        task = mount.add_one(nginx.url("/" + name))
        reader.read_until(saw(task, "added"), 10, "the added line")


def test_r24_events_is_a_stream_not_a_file(mount):
    with Events(mount) as reader:
        for call in (lambda: os.lseek(reader.fd, 0, os.SEEK_SET), lambda: os.pread(reader.fd, 10, 0)):
            try:
                call()
            except OSError as exc:
                assert exc.errno == errno.ESPIPE
            else:
                raise AssertionError("events is seekable")


_BASH_FOLLOWER = r"""
exec 3< "$1"
printf 'open\n'
for n in 1 2; do
    IFS=' ' read -r time id event name <&3 || exit 1
    printf '%s|%s|%s|%s\n' "$time" "$id" "$event" "$name"
done
"""


def test_r24_bash_read_follows_the_stream(mount, nginx, nginx_file):
    """`while read -r time id event name` (docs/usage.md): bash reads a
    stream a byte at a time; on a seekable file it would read ahead and seek
    back, and lose what it gave back."""
    # A name with spaces, from out=: a URL with spaces would put them in the
    # shared nginx's access log, whose lines other tests split on spaces.
    served, _ = nginx_file("events-bash.bin", 16 * KiB, seed=33)
    name = "events bash name.bin"
    follower = subprocess.Popen(["bash", "-c", _BASH_FOLLOWER, "bash", str(mount.mp / "events")],
                                stdout=subprocess.PIPE, text=True)
    try:
        assert follower.stdout.readline() == "open\n"
        task = mount.add_one(nginx.url("/" + served), "out=" + name)
        out, _ = follower.communicate(timeout=20)
        rows = [line.split("|") for line in out.splitlines()]
        assert [row[1:] for row in rows] == [[str(task), "added", name], [str(task), "queued", name]], out
        assert all(re.fullmatch(r"\d+\.\d{3}", row[0]) for row in rows)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait(10)


def test_r24_a_name_with_spaces_ends_the_line(mount, nginx, nginx_file):
    name, _ = nginx_file("events-spaces.bin", 16 * KiB, seed=34)
    with Events(mount) as reader:
        task = mount.add_one(nginx.url("/" + name), "out=  my  spaced file .bin")
        reader.read_until(saw(task, "completed"), 30, "the download to complete")
        shown = mount.status(task)["name"]
        assert " " in shown
        for line in reader.lines:
            _, _, _, got = parse(line)
            assert got == shown
            assert line.split(" ", 3)[3] == shown


def test_r24_r32_a_removed_task_gives_removed(mount, faultserver):
    with Events(mount) as reader:
        task = _slow(mount, faultserver)
        reader.read_until(saw(task, "downloading"), 10, "the download to start")
        os.rmdir(mount.task_dir(task))
        reader.read_until(saw(task, "removed"), 10, "the removed line")
        assert events_of(reader.lines, task)[-1] == "removed"


def test_r24_r40_a_renamed_file_gives_renamed_with_the_new_name(mount, nginx, nginx_file):
    name, _ = nginx_file("events-rename.bin", 16 * KiB, seed=35)
    task = mount.add_one(nginx.url("/" + name))
    mount.wait_state(task, "completed")
    with Events(mount) as reader:
        os.rename(mount.mp / "files" / name, mount.mp / "files" / "new name.bin")
        reader.read_until(saw(task, "renamed"), 10, "the renamed line")
        assert [parse(line)[2:] for line in reader.lines] == [("renamed", "new name.bin")]


def test_r24_unmounting_ends_a_blocked_read(mount):
    reader = os.open(mount.mp / "events", os.O_RDONLY)
    try:
        got = {}
        thread = threading.Thread(target=lambda: got.setdefault("data", raw_read(reader)), daemon=True)
        thread.start()
        thread.join(0.3)
        assert thread.is_alive()
        mount.proc.send_signal(signal.SIGTERM)
        thread.join(10)
        assert not thread.is_alive(), "a blocked read of events outlived the daemon"
        assert got["data"] in (b"", -errno.ENOTCONN, -errno.ENODEV), got
        assert mount.wait_exit() == 0
    finally:
        os.close(reader)


def test_r24_a_reader_more_than_10000_lines_behind_is_told_what_it_lost(make_mount, nginx):
    """3,500 URLs that fail at once make ~14,000 lines (added, queued,
    downloading, failed each)."""
    mount = make_mount("--max-tries", "1", "--max-active", "16")
    count = 3500
    urls = "".join(nginx.url(f"/events-missing/{n}.bin") + "\n" for n in range(count))
    with Events(mount) as fast, Events(mount) as slow:
        began = time.monotonic()
        ids = mount.add(urls)
        assert len(ids) == count
        failed = lambda lines: sum(1 for line in lines if parse(line)[2] == "failed") >= count  # noqa: E731
        fast.read_until(failed, 60, f"{count} tasks to fail")
        took = time.monotonic() - began
        total = len(fast.lines)
        assert total > 10_000, f"only {total} lines for {count} failed tasks"
        assert all(not LOST_RE.match(line) for line in fast.lines), "a reader that kept up lost lines"
        assert sorted(set(events_of(fast.lines, ids[0]))) == sorted({"added", "queued", "downloading", "failed"})
        # The slow reader has read nothing: it is `total` lines behind.
        first = slow.read()
        lost = LOST_RE.match(first[0])
        assert lost, f"first line for a reader {total} behind: {first[0]!r}"
        assert int(lost[2]) == total
        assert abs(float(lost[1]) - time.time()) < 60
        assert first[1:] == [], "a reader that lost lines went on with old ones"
        assert not slow.ready(0.3)
        # It goes on with the next change.
        task = mount.add_one(nginx.url("/events-missing/after.bin"))
        slow.read_until(saw(task, "added"), 10, "the next change")
        assert parse(slow.lines[1])[1:3] == (task, "added")
        assert took < 60


def test_r24_r34_a_task_forgotten_as_it_completes_shows_completed_first(make_mount, nginx, nginx_file):
    """`forget-completed` written over and over while small downloads end: a
    task can be forgotten only once it is completed, so every reader sees its
    `completed` line before its `forgotten` one (commit order), however the
    two land in one turn of the daemon."""
    mount = make_mount("--max-active", "16")
    sources = [nginx_file(f"forget-race-{n}.bin", 100 + n, seed=n)[0] for n in range(20)]
    stop = threading.Event()

    def forget_all():
        while not stop.is_set():
            try:
                (mount.mp / "ctl").write_text("forget-completed\n")
            except OSError:
                pass

    with Events(mount) as events:
        forgetter = threading.Thread(target=forget_all)
        forgetter.start()
        try:
            ids = []
            for round_ in range(4):
                ids += mount.add("".join(f"{nginx.url('/' + sources[n % 20])}?r={round_}&n={n}\n" for n in range(200)))
            events.read_until(lambda lines: all(saw(task, "forgotten")(lines) for task in ids), 60,
                              "every task to be forgotten")
        finally:
            stop.set()
            forgetter.join(10)
        for task in ids:
            seen = events_of(events.lines, task)
            assert seen.index("completed") < seen.index("forgotten"), f"task {task}: {seen}"
