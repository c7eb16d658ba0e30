"""R23, R51: the data file of an unfinished task, as many readers use it at
once, and what its download leaves in the page cache."""

import errno
import os
import subprocess
import time

import pytest

from support.aio import read_all_at_once
from support.files import KiB, MiB, content_range, resident_bytes, sha256_file
from support.mount import expect_errno, opened
from support.waiting import wait_until


def _daemon_descriptors_on(pid, path):
    """How many of the daemon's descriptors are open on `path`."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.removesuffix(" (deleted)") == str(path):
            count += 1
    return count


def test_r23_first_reads_racing_on_one_handle_leak_no_descriptor(make_mount, faultserver):
    """Issue 9, item 8: a handle opened before the partial file exists opens
    it at its first read; reads racing there used to each open one and all
    but the last one stored leaked, for the daemon's lifetime."""
    mount = make_mount("--max-active", "1")
    blocker = mount.add_one(faultserver.add("/blocker.bin", size=64 * MiB, throttle=MiB))
    mount.wait_state(blocker, "downloading")
    task = mount.add_one(faultserver.add("/late.bin", size=16 * MiB, throttle=MiB))
    assert mount.status(task)["state"] == "queued"
    partial = mount.state / "partial" / str(task)
    assert not partial.exists(), "the queued task has data already"
    data = mount.task_dir(task) / "late.bin"
    handles, reads = 32, 12
    fds = [os.open(data, os.O_RDONLY) for _ in range(handles)]
    try:
        mount.ctl(task, "start")
        mount.wait_downloaded(task, 64 * KiB)
        # The kernel answers an asynchronous read past the size it knows
        # itself: let it learn the size (a stat; it opens nothing). The total
        # is known now, so that is the full size (R23).
        assert os.fstat(fds[0]).st_size == 16 * MiB
        # libfuse starts worker threads as requests queue up: have them all
        # started, so the reads below are served in parallel.
        with opened(mount.task_dir(task) / "url", os.O_RDONLY) as url:
            os.fstat(url)
            read_all_at_once([(url, 0)] * 64)
        # Every handle's first reads reach the daemon together; they ask for
        # bytes already written, so each is served at once (R23).
        results = read_all_at_once([(fd, 0) for fd in fds for _ in range(reads)])
        assert all(result == 4096 for result in results), results
    finally:
        for fd in fds:
            os.close(fd)
    # Once its transfer has stopped, nothing in the daemon has the partial file open.
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused")
    wait_until(lambda: _daemon_descriptors_on(mount.pid, partial) == 0, 5,
               f"the daemon to hold no descriptor of {partial} "
               f"(it holds {_daemon_descriptors_on(mount.pid, partial)})")


@pytest.mark.parametrize("size, split", [(96 * MiB, 1), (256 * MiB, 4)])
def test_a_download_lets_the_pages_behind_it_go(mount, nginx, nginx_file, size, split):
    """Issue 27, point 2: once a checkpoint has made bytes durable (R51),
    their pages leave the page cache behind the writer (WrittenCacheRelease),
    all but the last 16 MiB of each connection's range: a download does not
    take its size in memory, and its writes reuse the pages it freed. The
    bytes are whole either way."""
    name, digest = nginx_file(f"let-go-{split}.bin", size, seed=27)
    task = mount.add_one(nginx.url("/" + name), f"split={split}")
    mount.wait_state(task, "completed", timeout=120)
    resident = resident_bytes(mount.state / "files" / name)
    # Per range: 16 MiB kept, up to 8 MiB written after the last
    # checkpoint, a folio at the edge. The old way kept all of it.
    assert resident <= size // 2, f"{resident / MiB:.1f} MiB of {size // MiB} MiB still cached after the download"
    assert sha256_file(mount.mp / "files" / name) == digest


def test_asking_for_the_ranges_is_not_a_read(mount, faultserver):
    """A client that polls the byte ranges (`user.downloadfs.ranges`, as the
    RPC door's `tellStatus` does) reads no byte: the pages behind the writer
    still go (WrittenCacheRelease). Were the attribute taken for a read, the
    reader rule would keep all of them."""
    size = 96 * MiB
    task = mount.add_one(faultserver.add("/polled.bin", size=size, seed=31, throttle=48 * MiB), "split=1")
    directory = mount.mp / "queue" / str(task)
    data = directory / "polled.bin"
    polls = 0
    deadline = time.monotonic() + 60
    while mount.status(task).get("state") != "completed":
        assert time.monotonic() < deadline, "the download did not end within 60 s"
        for path in (directory, data):
            try:
                os.getxattr(path, "user.downloadfs.ranges")
                polls += 1
            except FileNotFoundError:  # the data file moves to files/ at the end
                pass
        time.sleep(0.01)
    assert polls >= 20, f"only {polls} polls during the download: it was too quick to show anything"
    resident = resident_bytes(mount.state / "files" / "polled.bin")
    assert resident <= size // 2, f"{resident / MiB:.1f} MiB of {size // MiB} MiB still cached: the polls kept them"


def test_a_download_being_read_keeps_its_pages(mount, faultserver):
    """While a program reads the data file as it arrives (R23), nothing is
    let go: the other connections' pages, written ahead of the reader, must
    still be there when it gets to them (WrittenCacheRelease.readerQuiet)."""
    size = 64 * MiB
    task = mount.add_one(faultserver.add("/followed.bin", size=size, seed=29, throttle=24 * MiB))
    mount.wait_downloaded(task, MiB, timeout=30)  # its total known: the data file is whole
    data = mount.mp / "queue" / str(task) / "followed.bin"
    with open(data, "rb", buffering=0) as f:  # reads wait for bytes not yet written
        got = 0
        while chunk := f.read(1 << 20):
            got += len(chunk)
    assert got == size
    mount.wait_state(task, "completed", timeout=60)
    resident = resident_bytes(mount.state / "files" / "followed.bin")
    assert resident >= 0.75 * size, f"only {resident / MiB:.1f} MiB of {size // MiB} MiB cached though it was being read"


def _read_from(fd, offset):
    """Every byte of `fd` from `offset` to its end, read as a player does."""
    chunks = []
    while chunk := os.pread(fd, MiB, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("how", ["forget", "forget-completed", "rm -r"])
def test_r23_r34_an_open_data_file_reads_to_its_end_once_its_task_is_gone(mount, faultserver, how):
    """Audit 3, C #7: a reader of `queue/N/<name>` (`mpv queue/3/film.mp4`)
    got ENOENT at its next read once the completed task was forgotten,
    although its file stays in files/. An open file reads the same bytes to
    its end, as on any filesystem, after `rm -r` too (the inode lives while
    open), and as an open `files/<name>` always did."""
    size = 8 * MiB
    task = mount.add_one(faultserver.add("/film.bin", size=size, seed=7))
    mount.wait_state(task, "completed")
    start = 64 * KiB
    with opened(mount.data_path(task), os.O_RDONLY) as data, \
            opened(mount.mp / "files" / "film.bin", os.O_RDONLY) as finished:
        for fd in (data, finished):
            assert os.pread(fd, start, 0) == content_range(7, 0, start)
        if how == "rm -r":
            subprocess.run(["rm", "-r", str(mount.task_dir(task))], check=True, timeout=10)
        elif how == "forget":
            mount.ctl(task, "forget")
        else:
            mount.root_ctl("forget-completed")
        assert task not in mount.task_ids()
        assert _read_from(data, start) == content_range(7, start, size)
        assert _read_from(finished, start) == content_range(7, start, size)


def test_r23_r32_an_open_data_file_of_a_removed_unfinished_task_answers_eio(mount, faultserver):
    """Audit 3, C #7: the bytes of a task removed before it completed will
    not come: a read of its open data file answers EIO, as a read of a file
    whose data is gone does, not ENOENT (which read(2) never answers)."""
    task = mount.add_one(faultserver.add("/slow.bin", size=8 * MiB, seed=3, throttle=256 * KiB))
    mount.wait_downloaded(task, 128 * KiB)
    with opened(mount.data_path(task), os.O_RDONLY) as data:
        assert os.pread(data, 4096, 0) == content_range(3, 0, 4096)
        subprocess.run(["rm", "-r", str(mount.task_dir(task))], check=True, timeout=10)
        assert task not in mount.task_ids()
        expect_errno(errno.EIO, os.pread, data, 4096, 0)
        expect_errno(errno.EIO, os.pread, data, 4096, 4 * MiB)
