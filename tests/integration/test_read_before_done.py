"""R23: read before it is done — any byte of an unfinished download, at any time.

What these tests hold the daemon to:

- The data file `queue/<id>/<name>` of an unfinished task whose total is
  known has its full size from the start: downloading, paused, queued,
  failed.
- A read of bytes already written is served at once; a read of bytes not
  yet written blocks until they are, and makes the task fetch that range
  next: a connection opened at (or just below, within about 1 MiB) the read
  offset, and a few MiB after it read ahead.
- A paused or queued task fetches only what is read and stays as it is; a
  failed task's missing bytes read as EIO; a blocked read interrupted by a
  signal returns EINTR at once.
- With no Content-Length the file grows as bytes land and a read past them
  is end-of-file.
- A read never returns bytes other than the server's: no zeros of a
  preallocated file, nothing stale after a start-over.

Every download here is throttled per connection (as nginx's `limit_rate`), so
that it lasts far longer than the reads under test, and each read runs in a
helper thread or process with a deadline, so a daemon that never answers
fails the test instead of hanging it.
"""

import errno
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

from support.files import KiB, MiB, content, content_range, read_range, sha256_file, sha256_of
from support.waiting import stays_true, wait_until, within

# A read of missing bytes must come back well under a second against a local
# server; the bound is generous so a loaded machine does not make it flaky.
READ_BOUND = 5.0
# R23: "a connection is opened at the read offset ... unless one already under
# way will reach it within about 1 MiB".
NEAR = MiB
# R23: "the following few MiB are read ahead" — about 4 MiB; twice that is
# the most a read may make a paused or queued task fetch.
READ_AHEAD_MOST = 8 * MiB
# Bytes a throttled server may write past where the client let go.
SLACK = 512 * KiB
# How a task log says it started over (as test_segments.py reads it).
START_OVER_RE = re.compile(r"start\w* over|from (zero|0|scratch|the (start|beginning))",
                           re.IGNORECASE)


# -- helpers --------------------------------------------------------------------

def _timed_read(path, offset, length, timeout=READ_BOUND):
    """Read `length` bytes at `offset` of `path` in a helper thread.

    Returns (data, seconds). Raises what the read raised, or TimeoutError
    when it is still blocked after `timeout` seconds.
    """
    began = time.monotonic()
    data = within(lambda: read_range(path, offset, length), timeout,
                  f"a read of {length} bytes at {offset} of {path.name}")
    return data, time.monotonic() - began


def _same(data, expected, what):
    """Assert `data` is `expected`, naming where the first difference is."""
    if data == expected:
        return
    first = next((i for i, (a, b) in enumerate(zip(data, expected)) if a != b),
                 min(len(data), len(expected)))
    zeros = data[first:first + 4096].count(0)
    raise AssertionError(f"{what}: {len(data)} bytes read, {len(expected)} expected, first "
                         f"difference at +{first} ({zeros} zero bytes in the 4 KiB from there)")


def _all_finished(faultserver, path):
    """True once every GET for `path` has ended (the client let go)."""
    gets = faultserver.gets(path)
    return bool(gets) and all(g.finished for g in gets)


def _sent_by(gets):
    return sum(g.sent for g in gets if g.delivered is not None)


def _paused_midway(mount, faultserver, task, path, at_least):
    """Pause `task` (downloading `path`) once it holds `at_least` bytes and
    its transfer has stopped; return its status."""
    mount.wait_downloaded(task, at_least)
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused", timeout=5)
    wait_until(lambda: _all_finished(faultserver, path), 5, f"the transfer of {path} to stop")
    return mount.status(task)


def _reads_right(path, seed, offset, length, what):
    """A read of `length` bytes at `offset` comes back, within the bound, as
    the server's bytes of content `seed`."""
    data, _ = _timed_read(path, offset, length)
    _same(data, content_range(seed, offset, offset + length), what)


def _completes_whole(mount, faultserver, task, name, command, seed, size):
    """Unthrottled and sent `command` (resume, start), the task completes
    with the server's file, read bytes and downloaded ones put together."""
    faultserver.update("/" + name, throttle=None)
    mount.ctl(task, command)
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / name) == sha256_of(seed, size)


def _reads_missing_bytes(mount, faultserver, task, name, status, size, seed, offset, length):
    """A task at rest (`status`: paused or queued, its total known) has a
    full-size data file, and a read of bytes it does not hold comes back
    right and leaves its state. Returns (the file's path, the bytes it held,
    the GETs its server had seen before the read)."""
    state = status["state"]
    kept = int(status["downloaded"])
    path = mount.task_dir(task) / name
    assert os.stat(path).st_size == size, f"a {state} task's data file is not full size"
    before = len(faultserver.gets("/" + name))
    _reads_right(path, seed, offset, length, f"a {state} task's missing bytes")
    assert mount.status(task)["state"] == state, "the read changed the task's state"
    return path, kept, before


def _fetched_only_the_read(mount, faultserver, task, path, state, before, kept, length):
    """After a read of `length` bytes of a task in `state` (paused or queued)
    whose server had seen `before` GETs and which held `kept` bytes: it
    fetched the read and its read-ahead, no more, kept its state and fetches
    nothing further. Returns the GETs seen."""
    wait_until(lambda: _all_finished(faultserver, path), 15, "the read's transfer (read-ahead included) to stop")
    gets = faultserver.gets(path)
    fetched = _sent_by(gets[before:])
    assert len(gets) > before, "the read fetched nothing from the server"
    assert fetched <= length + READ_AHEAD_MOST + SLACK, \
        f"a read of {length} bytes made the {state} task fetch {fetched} bytes"
    status = mount.status(task)
    assert status["state"] == state, status
    assert int(status["downloaded"]) - kept <= length + READ_AHEAD_MOST, status
    count = len(gets)
    stays_true(lambda: mount.status(task)["state"] == state and len(faultserver.gets(path)) == count,
               1.0, f"a {state} task stays {state} and fetches nothing more")
    return count


# -- full size ------------------------------------------------------------------

def test_r23_full_size_while_downloading(mount, faultserver):
    size = 8 * MiB
    task = mount.add_one(faultserver.add("/full.bin", size=size, seed=231, throttle=2 * MiB))
    mount.wait_downloaded(task, 64 * KiB)
    path = mount.task_dir(task) / "full.bin"
    fd = os.open(path, os.O_RDONLY)
    try:
        samples = set()
        deadline = time.monotonic() + 10
        while len(samples) < 4:  # four different points of the download
            assert time.monotonic() < deadline, f"too few samples: {sorted(samples)}"
            st_size = os.stat(path).st_size
            status = mount.status(task)
            downloaded = int(status["downloaded"])
            assert status["state"] == "downloading", status
            assert downloaded < size, "the download ended before the samples were taken"
            assert status["total"] == str(size), status
            assert st_size == size, f"st_size {st_size} while {downloaded} of {size} are held"
            assert os.fstat(fd).st_size == size
            assert os.lseek(fd, 0, os.SEEK_END) == size, "SEEK_END is not the total"
            samples.add(downloaded)
            time.sleep(0.1)  # pace the sampling; the download moves 200 KiB meanwhile
    finally:
        os.close(fd)


# -- range-first reads ------------------------------------------------------------

def test_r23_read_far_ahead_is_served_at_once_by_a_range_request(mount, faultserver):
    size = 32 * MiB  # under 40 MiB: one connection of its own (docs/usage.md)
    seed = 232
    task = mount.add_one(faultserver.add("/far.bin", size=size, seed=seed, throttle=MiB))
    mount.wait_downloaded(task, 64 * KiB)
    offset = size * 9 // 10 + 12345  # not page-aligned
    length = 64 * KiB
    status = mount.status(task)
    assert int(status["downloaded"]) < offset - NEAR, status  # 30 s away at 1 MiB/s
    began = time.monotonic()
    data, seconds = _timed_read(mount.task_dir(task) / "far.bin", offset, length)
    _same(data, content_range(seed, offset, offset + length), f"{length} bytes at {offset}")
    assert seconds < READ_BOUND
    after = mount.status(task)
    assert after["state"] == "downloading", after
    asked = [(g.range, g.started) for g in faultserver.gets("/far.bin")
             if g.range_start is not None and offset - NEAR <= g.range_start <= offset]
    assert asked, ("no Range request starting within 1 MiB below the read offset "
                   f"{offset}: {[g.range for g in faultserver.gets('/far.bin')]}")
    assert any(started >= began for _, started in asked), \
        f"the range request {asked} was not made for the read"


def test_r23_r53_a_reads_fetch_the_server_refuses_backs_off(mount, faultserver):
    # The task's own connection streams on; every request for the read's range gets a 503.
    size, seed = 32 * MiB, 233
    task = mount.add_one(faultserver.add("/refused.bin", size=size, seed=seed, throttle=MiB,
                                         script=[{}] + [{"status": 503}] * 10_000))
    mount.wait_downloaded(task, 64 * KiB)
    offset = size * 9 // 10
    began = time.monotonic()
    with pytest.raises(TimeoutError):
        _timed_read(mount.task_dir(task) / "refused.bin", offset, 64 * KiB, timeout=3)
    asked = [g for g in faultserver.gets("/refused.bin") if g.started >= began]
    # 1 s doubling (R53): three or four tries in those seconds, not thousands.
    assert 1 <= len(asked) <= 6, f"{len(asked)} requests for the read's range in 3 s: {[(round(g.started - began, 2), g.range) for g in asked]}"
    assert mount.status(task)["state"] == "downloading"
    faultserver.update("/refused.bin", script=[], throttle=None)
    _reads_right(mount.task_dir(task) / "refused.bin", seed, offset, 64 * KiB, "the read once the server serves")


def test_r23_cp_and_sha256sum_of_a_downloading_file(mount, faultserver, tmp_path):
    size = 16 * MiB
    seed = 233
    digest = sha256_of(seed, size)
    task = mount.add_one(faultserver.add("/copy.bin", size=size, seed=seed, throttle=4 * MiB))
    status = mount.wait_downloaded(task, 512 * KiB)
    assert status["state"] == "downloading" and int(status["downloaded"]) < size // 2, status
    path = mount.task_dir(task) / "copy.bin"
    copy = tmp_path / "copy.bin"
    procs = [subprocess.Popen(["cp", str(path), str(copy)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True),
             subprocess.Popen(["sha256sum", str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)]
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            results.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    (cp_code, _, cp_err), (sum_code, sum_out, sum_err) = results
    assert cp_code == 0, cp_err
    assert sum_code == 0, sum_err
    assert sum_out.split()[0] == digest, "sha256sum of the downloading file is wrong"
    assert copy.stat().st_size == size
    assert sha256_file(copy) == digest, "cp of the downloading file is wrong"
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "copy.bin") == digest


def test_r23_eight_concurrent_readers_at_random_offsets(make_mount, faultserver):
    # Nine connections at once (the task's own and one per reader), over
    # the default per-host cap of 8: readers' windows take no slot (R23).
    mount = make_mount()
    size = 32 * MiB
    seed = 239
    task = mount.add_one(faultserver.add("/many.bin", size=size, seed=seed, throttle=2 * MiB))
    mount.wait_downloaded(task, 64 * KiB)
    pick = random.Random(23)
    length = 128 * KiB
    # One offset in each of eight 3 MiB slots from 2 MiB on, anywhere in it.
    slots = pick.sample(range(9), 8)
    offsets = [2 * MiB + slot * 3 * MiB + pick.randrange(0, 2 * MiB) for slot in slots]
    path = mount.task_dir(task) / "many.bin"
    start = threading.Barrier(len(offsets))
    results = [None] * len(offsets)

    def read(i, offset):
        try:
            start.wait(10)
            results[i] = read_range(path, offset, length)
        except (OSError, threading.BrokenBarrierError) as exc:
            results[i] = exc

    threads = [threading.Thread(target=read, args=(i, off), daemon=True)
               for i, off in enumerate(offsets)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 3 * READ_BOUND
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    blocked = [offsets[i] for i, thread in enumerate(threads) if thread.is_alive()]
    assert not blocked, f"reads at {blocked} still blocked after {3 * READ_BOUND}s"
    for offset, data in zip(offsets, results):
        assert not isinstance(data, Exception), f"read at {offset}: {data!r}"
        _same(data, content_range(seed, offset, offset + length), f"read at {offset}")
    assert mount.status(task)["state"] == "downloading"


# -- paused, queued, failed ---------------------------------------------------------

def test_r23_many_files_read_at_once_stay_within_the_per_host_bound(make_mount, faultserver):
    """A file manager thumbnailing a folder: eight paused files read at
    once. Each read is served, and the readers' connections to the one host
    stay within --max-connections-per-host (readers have slots of their own,
    as many per host), so they do not multiply without bound."""
    mount = make_mount("--max-connections-per-host", "3", "--max-active", "8")
    size, count = 64 * MiB, 8
    tasks = {}
    for i in range(count):
        task = mount.add_one(faultserver.add(f"/t{i}.bin", size=size, seed=300 + i, throttle=4 * MiB))
        _paused_midway(mount, faultserver, task, f"/t{i}.bin", 64 * KiB)
        tasks[task] = i
    since = time.monotonic()
    offset, length = 20 * MiB + 4096, 64 * KiB
    results = {}

    def read(task, i):
        results[task] = _timed_read(mount.task_dir(task) / f"t{i}.bin", offset, length, timeout=30)[0]

    threads = [threading.Thread(target=read, args=item) for item in tasks.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(40)
    for task, i in tasks.items():
        assert task in results, f"the read of task {task} did not come back"
        _same(results[task], content_range(300 + i, offset, offset + length), f"task {task}'s read")
        assert mount.status(task)["state"] == "paused"
    peak = faultserver.max_concurrent(since=since)
    assert 1 <= peak <= 3, f"{peak} GETs at once for eight readers with 3 connections per host"


@pytest.mark.parametrize("state", ["paused", "retrying"])
def test_r23_a_read_waits_while_the_server_is_down_and_is_served_once_it_is_back(mount, faultserver, state):
    # R23: EIO is for a failed task's bytes; a paused or retrying task's read blocks until they are.
    size, seed = 32 * MiB, 235
    if state == "paused":
        task = mount.add_one(faultserver.add("/down.bin", size=size, seed=seed, throttle=2 * MiB))
        _paused_midway(mount, faultserver, task, "/down.bin", 512 * KiB)
        faultserver.update("/down.bin", status=503, status_times=None)
    else:
        # The first answer breaks after 1 MiB; every later one is a 503.
        task = mount.add_one(faultserver.add("/down.bin", size=size, seed=seed,
                                             script=[{"cut_after": MiB}] + [{"status": 503}] * 1000))
        mount.wait_state(task, "retrying", timeout=20)
    offset = 24 * MiB
    began = time.monotonic()
    with pytest.raises(TimeoutError):
        _timed_read(mount.task_dir(task) / "down.bin", offset, 64 * KiB, timeout=3)
    asked = [g for g in faultserver.gets("/down.bin")
             if g.started >= began and g.range_start is not None and g.range_start >= offset - NEAR]
    # A back-off within each attempt, and a retrying task's own retries (1 s doubling) start new ones:
    # a handful, not a loop.
    assert 1 <= len(asked) <= 8, f"{len(asked)} requests for the read's range in 3 s: a back-off, not a loop: {[(round(g.started - began, 2), g.range) for g in asked]}"
    assert mount.status(task)["state"] == state
    faultserver.update("/down.bin", status=None, script=[])
    _reads_right(mount.task_dir(task) / "down.bin", seed, offset, 64 * KiB, f"a {state} task's read once the server is back")


def test_r23_paused_task_serves_a_read_and_stays_paused(mount, faultserver):
    size = 32 * MiB
    seed = 234
    task = mount.add_one(faultserver.add("/paused.bin", size=size, seed=seed, throttle=2 * MiB))
    status = _paused_midway(mount, faultserver, task, "/paused.bin", 512 * KiB)
    offset, length = 20 * MiB + 777, 64 * KiB
    path, kept, before = _reads_missing_bytes(mount, faultserver, task, "paused.bin", status, size, seed,
                                              offset, length)
    # Bytes it holds are served as they are.
    held, _ = _timed_read(path, 0, min(kept, 256 * KiB))
    _same(held, content(seed, min(kept, 256 * KiB)), "a paused task's held bytes")
    # It fetched the read and what follows it, then stopped: no background download.
    count = _fetched_only_the_read(mount, faultserver, task, "/paused.bin", "paused", before, kept, length)
    # Once fetched, the same bytes are held: a second read asks nothing, and
    # neither does one 2 MiB further on (read ahead: "the following few MiB").
    _reads_right(path, seed, offset, length, "the same bytes read again")
    ahead = offset + 2 * MiB
    _reads_right(path, seed, ahead, length, "bytes read ahead")
    assert len(faultserver.gets("/paused.bin")) == count, \
        "bytes already fetched (or read ahead) were fetched again"
    # And the file assembled from both comes out whole.
    _completes_whole(mount, faultserver, task, "paused.bin", "resume", seed, size)


def test_r23_queued_task_serves_a_read_and_stays_queued(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    size = 32 * MiB
    seed = 235
    first = mount.add_one(faultserver.add("/queued.bin", size=size, seed=seed, throttle=2 * MiB))
    mount.wait_downloaded(first, 256 * KiB)  # its total is known now
    other = mount.add_one(faultserver.add("/other.bin", size=64 * MiB, seed=2351, throttle=MiB))
    assert mount.status(other)["state"] == "queued"
    mount.ctl(first, "pause")
    mount.wait_state(first, "paused", timeout=5)
    mount.wait_state(other, "downloading", timeout=5)
    wait_until(lambda: _all_finished(faultserver, "/queued.bin"), 5, "the first transfer to stop")
    mount.ctl(first, "resume")  # the one slot is busy: back in line
    status = mount.wait_state(first, "queued", timeout=5)
    assert status["total"] == str(size), status
    length = 64 * KiB
    _, kept, before = _reads_missing_bytes(mount, faultserver, first, "queued.bin", status, size, seed,
                                           24 * MiB + 99, length)
    assert mount.status(other)["state"] == "downloading", "the read took the other task's slot"
    _fetched_only_the_read(mount, faultserver, first, "/queued.bin", "queued", before, kept, length)
    _completes_whole(mount, faultserver, first, "queued.bin", "start", seed, size)


def test_r23_failed_task_missing_bytes_are_eio(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    size = 8 * MiB
    seed = 236
    held = MiB
    # The first answer breaks off after 1 MiB; every later one is 404 for good.
    task = mount.add_one(faultserver.add("/failed.bin", size=size, seed=seed,
                                         script=[{"cut_after": held}],
                                         status=404, status_times=None))
    status = mount.wait_state(task, "failed", timeout=30)
    assert status["total"] == str(size), status
    kept = int(status["downloaded"])
    assert 0 < kept <= held, status
    path = mount.task_dir(task) / "failed.bin"
    assert os.stat(path).st_size == size, "a failed task with a known total is not full size"
    data, _ = _timed_read(path, 0, kept)
    _same(data, content(seed, kept), "a failed task's held bytes")
    with pytest.raises(OSError) as caught:
        _timed_read(path, 4 * MiB, 64 * KiB)
    assert caught.value.errno == errno.EIO, caught.value
    assert mount.status(task)["state"] == "failed"


_INTERRUPTED_READER = r"""
import ctypes, json, os, signal, sys, time
path, offset, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
libc.pread.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
libc.pread.restype = ctypes.c_ssize_t
# A handler that does nothing, installed without SA_RESTART (Python's way):
# only the daemon answering the interrupt can end the read.
signal.signal(signal.SIGALRM, lambda *_: None)
fd = os.open(path, os.O_RDONLY)
buf = ctypes.create_string_buffer(65536)
began = time.monotonic()
signal.setitimer(signal.ITIMER_REAL, delay)
result = libc.pread(fd, buf, 65536, offset)
error = ctypes.get_errno()
print(json.dumps({"result": result, "errno": error, "elapsed": time.monotonic() - began}))
"""


def test_r23_blocked_read_interrupted_returns_eintr(mount, faultserver):
    size = 32 * MiB
    task = mount.add_one(faultserver.add("/stalled.bin", size=size, seed=237, throttle=2 * MiB))
    _paused_midway(mount, faultserver, task, "/stalled.bin", 256 * KiB)
    # From now on the server sends headers, then nothing for a minute.
    faultserver.update("/stalled.bin", stall_after=0, stall_seconds=60, stall_times=None)
    delay = 1.0
    reader = subprocess.Popen([sys.executable, "-c", _INTERRUPTED_READER,
                               str(mount.task_dir(task) / "stalled.bin"), str(20 * MiB),
                               str(delay)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        try:
            out, err = reader.communicate(timeout=delay + 5)
        except subprocess.TimeoutExpired:
            raise AssertionError("a blocked read interrupted by SIGALRM is still blocked") from None
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait(10)
    assert reader.returncode == 0, err
    outcome = json.loads(out)
    assert outcome["result"] == -1 and outcome["errno"] == errno.EINTR, \
        f"the read returned {outcome} (want -1 with EINTR)"
    assert outcome["elapsed"] >= delay * 0.9, f"the read did not block: {outcome}"
    assert outcome["elapsed"] - delay < 2.0, f"EINTR came late: {outcome}"
    assert mount.status(task)["state"] == "paused", "the interrupted read changed the task"


# -- unknown totals -----------------------------------------------------------------

def test_r23_unknown_total_grows_and_ends_where_the_bytes_end(mount, faultserver):
    size = 6 * MiB
    seed = 238
    expected = content(seed, size)
    task = mount.add_one(faultserver.add("/nolength.bin", size=size, seed=seed,
                                         length_unknown=True, throttle=MiB))
    status = mount.wait_downloaded(task, 64 * KiB)
    assert status["total"] == "unknown", status
    path = mount.task_dir(task) / "nolength.bin"
    sizes = []
    deadline = time.monotonic() + 10
    while len(sizes) < 4:  # four sizes seen while it grows
        assert time.monotonic() < deadline, f"the data file did not grow: {sizes}"
        st_size = os.stat(path).st_size
        assert st_size < size, f"st_size {st_size} before the download ended"
        if not sizes or st_size != sizes[-1]:
            assert not sizes or st_size > sizes[-1], f"the file shrank: {sizes} then {st_size}"
            sizes.append(st_size)
        # What is there reads back; a read past it is end-of-file at once
        # (or, if bytes landed meanwhile, the server's bytes) — never a wait.
        data, _ = _timed_read(path, 0, size)
        assert len(data) >= st_size, f"read {len(data)} bytes of a file of {st_size}"
        _same(data, expected[:len(data)], "the arrived bytes")
        # 4 MiB past: at 1 MiB/s a read that waited for those bytes would
        # take seconds.
        past = st_size + 4 * MiB
        data, seconds = _timed_read(path, past, 64 * KiB, timeout=3.0)
        _same(data, expected[past:past + len(data)], f"a read past the end at {past}")
        assert seconds < 1.0, f"a read past the arrived bytes waited {seconds:.2f}s"
        time.sleep(0.1)  # pace the loop; the file grows 100 KiB meanwhile
    assert mount.status(task)["state"] == "downloading"
    assert all(g.range is None for g in faultserver.gets("/nolength.bin")), \
        "a server that gives no length was asked for ranges"
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "nolength.bin") == sha256_of(seed, size)


# -- never bytes other than the server's ---------------------------------------------

def test_r23_no_stale_bytes_after_a_start_over(mount, faultserver):
    size = 16 * MiB
    res_path = "/changes.bin"
    # The file changes (new ETag, new content, same size) after the first GET,
    # so the range the read asks for is answered 200 with the new file.
    faultserver.add(res_path, size=size, seed=240, throttle=4 * MiB, change_after_requests=1)
    resource = faultserver.resource(res_path)
    task = mount.add_one(faultserver.url(res_path))
    mount.wait_downloaded(task, MiB)  # old bytes held at the front
    path = mount.task_dir(task) / "changes.bin"
    offset, length = 12 * MiB + 4321, 64 * KiB
    data, _ = _timed_read(path, offset, length, timeout=3 * READ_BOUND)
    _same(data, resource.data(offset, offset + length, version=1),
          "a read answered by the changed file")
    wait_until(lambda: any(g.version == 1 for g in faultserver.gets(res_path)), 5,
               "the server to serve the changed file")
    log = wait_until(lambda: START_OVER_RE.search(mount.task_log(task)) and mount.task_log(task),
                     10, "the task log to say it started over")
    data, _ = _timed_read(path, 0, length, timeout=3 * READ_BOUND)
    _same(data, resource.data(0, length, version=1),
          f"the front of the file after the start-over (log: {log[-500:]!r})")
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "changes.bin") == sha256_of(240 + 7919, size)


# -- a media player ---------------------------------------------------------------

def _run(args, timeout):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.timeout(180)
def test_r23_ffprobe_and_ffmpeg_seek_a_downloading_video(mount, faultserver, tmp_path):
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        pytest.skip("ffmpeg is not installed (scripts/install-deps --test installs it)")
    clip = tmp_path / "clip.mp4"
    # 60 s of noisy test pattern (about 15 MB), H.264 without faststart: the
    # index (moov) is at the end of the file, where a player looks first.
    made = _run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                 "-f", "lavfi", "-i", "testsrc=duration=60:size=320x240:rate=25",
                 "-vf", "noise=alls=40:allf=t", "-c:v", "libx264", "-preset", "ultrafast",
                 "-b:v", "2M", "-pix_fmt", "yuv420p", "-g", "250", clip], timeout=120)
    assert made.returncode == 0, made.stderr
    body = clip.read_bytes()
    assert body.find(b"moov") > body.find(b"mdat") > 0, "the index is not at the end"
    reference = tmp_path / "reference.png"
    made = _run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                 "-ss", "50", "-i", clip, "-frames:v", "1", reference], timeout=60)
    assert made.returncode == 0 and reference.stat().st_size > 0, made.stderr
    # 512 KiB/s on one connection: the whole file takes about 30 s.
    task = mount.add_one(faultserver.add("/clip.mp4", body=body, throttle=512 * KiB))
    mount.wait_downloaded(task, 64 * KiB)
    path = mount.task_dir(task) / "clip.mp4"
    probe = _run(["ffprobe", "-v", "error", "-show_entries", "format=duration",
                  "-of", "default=noprint_wrappers=1:nokey=1", path], timeout=30)
    assert probe.returncode == 0, probe.stderr
    assert abs(float(probe.stdout.strip()) - 60.0) < 1.0, probe.stdout
    frame = tmp_path / "frame.png"
    seek = _run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                 "-ss", "50", "-i", path, "-frames:v", "1", frame], timeout=30)
    assert seek.returncode == 0, seek.stderr
    assert frame.stat().st_size > 0 and frame.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert frame.read_bytes() == reference.read_bytes(), "the frame at 50 s is not the video's"
    status = mount.status(task)
    assert status["state"] == "downloading" and int(status["downloaded"]) < len(body), \
        f"the download ended before the player was done, so this proved nothing: {status}"


def test_r23_a_handle_opened_before_a_start_over_never_reads_the_new_version(mount, faultserver):
    """One open file never mixes versions: once the task starts over (the
    file changed on the server), every read of a handle opened before is
    EIO — bytes of the new version already held, bytes still missing, and
    after the new version completed — while a new open reads the new version."""
    size = 8 * MiB
    res_path = "/versions.bin"
    seed = 241
    faultserver.add(res_path, size=size, seed=seed, throttle=2 * MiB)
    resource = faultserver.resource(res_path)
    task = mount.add_one(faultserver.url(res_path))
    mount.wait_downloaded(task, 2 * MiB)
    path = mount.task_dir(task) / "versions.bin"
    fd = os.open(path, os.O_RDONLY)
    try:
        front = within(lambda: os.pread(fd, 2 * MiB, 0), READ_BOUND, "a read of the held front")
        _same(front, content(seed, 2 * MiB), "the old version's front")
        _paused_midway(mount, faultserver, task, res_path, 2 * MiB)
        # Every GET from now on gets version 1 (another ETag, other bytes):
        # the resume cannot continue and starts over from zero.
        faultserver.update(res_path, change_after_requests=len(faultserver.gets(res_path)))
        mount.ctl(task, "resume")
        wait_until(lambda: START_OVER_RE.search(mount.task_log(task)), 10,
                   "the task log to say it started over")
        mount.wait_downloaded(task, 256 * KiB)  # the new version's front is held
        assert mount.status(task)["state"] == "downloading"
        for offset in (0, 6 * MiB):  # held again, and not yet fetched
            with pytest.raises(OSError) as caught:
                within(lambda: os.pread(fd, 64 * KiB, offset), READ_BOUND,
                       f"a read at {offset} of the handle opened before the start-over")
            assert caught.value.errno == errno.EIO, caught.value
        faultserver.update(res_path, throttle=None)
        mount.wait_state(task, "completed", timeout=30)
        with pytest.raises(OSError) as caught:
            within(lambda: os.pread(fd, 64 * KiB, 0), READ_BOUND,
                   "a read of the old handle once the new version completed")
        assert caught.value.errno == errno.EIO, caught.value
    finally:
        os.close(fd)
    # Opened again, it is the new version, whole.
    again, _ = _timed_read(path, 0, size)
    _same(again, resource.data(0, size, version=1), "the data file opened after the start-over")
    assert sha256_file(mount.mp / "files" / "versions.bin") == sha256_of(seed + 7919, size)
