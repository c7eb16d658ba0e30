"""R30 pause/resume and R32 cancelling by removal."""

import os
import subprocess
import time

from support.files import KiB, MiB, content, sha256_file, sha256_of
from support.status import Table
from support.waiting import stays_true, wait_until


def _pread_prefix(fd, length):
    """Exactly bytes [0, length) of `fd` (fewer only at end-of-file), no more asked."""
    got = bytearray()
    while len(got) < length:
        chunk = os.pread(fd, length - len(got), len(got))
        if not chunk:
            break
        got += chunk
    return bytes(got)


def _regular_files(root):
    found = []
    for dirpath, _, names in os.walk(root):
        found += [os.path.join(dirpath, n) for n in names
                  if os.path.isfile(os.path.join(dirpath, n))]
    return found


def test_r30_pause_resume(mount, faultserver):
    size = 8 * MiB
    task = mount.add_one(faultserver.add("/p.bin", size=size, seed=7, etag='"p1"',
                                         throttle=2 * MiB))
    mount.wait_downloaded(task, MiB)
    mount.ctl(task, "pause")
    paused = mount.wait_state(task, "paused", timeout=5)
    kept = int(paused["downloaded"])
    assert 0 < kept < size
    wait_until(lambda: all(r.finished for r in faultserver.gets("/p.bin")), 5,
               "the transfer to stop")
    stays_true(lambda: mount.status(task)["downloaded"] == str(kept), 1.0, "no bytes while paused")
    # R23: a paused task's data file has its full size, and the bytes it
    # holds read back as they are (a read of held bytes fetches nothing,
    # which the resume's Range below also shows).
    data = mount.task_dir(task) / "p.bin"
    assert os.stat(data).st_size == size, "a paused task's data file is not full size"
    asked = len(faultserver.gets("/p.bin"))
    with open(data, "rb", buffering=0) as handle:
        assert _pread_prefix(handle.fileno(), kept) == content(7, kept), "paused data not kept"
    assert len(faultserver.gets("/p.bin")) == asked, "a read of held bytes asked the server"
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=30)
    resumed = faultserver.gets("/p.bin")[-1]
    assert resumed.range_start == kept, f"resume asked for {resumed.range!r}, kept {kept}"
    assert resumed.status == 206
    assert sha256_file(mount.mp / "files" / "p.bin") == sha256_of(7, size)


def test_r30_resume_failed_task(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    url = faultserver.add("/later.bin", size=1000, status=404, status_times=1)
    task = mount.add_one(url)
    mount.wait_state(task, "failed")
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed")


def _slow_task(mount, faultserver, path="/slow.bin", size=16 * MiB):
    task = mount.add_one(faultserver.add(path, size=size, throttle=MiB))
    mount.wait_downloaded(task, 256 * KiB)
    return task


def _assert_cancelled(mount, faultserver, task, path="/slow.bin"):
    assert task not in mount.task_ids()
    assert task not in Table(mount.root_status()).ids()
    assert not os.path.exists(mount.task_dir(task))
    wait_until(lambda: _regular_files(mount.state / "partial") == [], 3,
               "partial data to be deleted")
    wait_until(lambda: all(r.finished for r in faultserver.gets(path)), 5, "the transfer to stop")
    later = mount.add_one(faultserver.add("/next.bin", size=1000))
    assert later > task, "a task id was reused"


def test_r32_rm_r_cancels(mount, faultserver):
    task = _slow_task(mount, faultserver)
    result = subprocess.run(["rm", "-r", str(mount.task_dir(task))], capture_output=True,
                            text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    _assert_cancelled(mount, faultserver, task)


def test_r32_rmdir_cancels(mount, faultserver):
    task = _slow_task(mount, faultserver)
    os.rmdir(mount.task_dir(task))
    _assert_cancelled(mount, faultserver, task)


def test_r32_rm_r_completed_task(mount, faultserver):
    task = mount.add_one(faultserver.add("/done.bin", size=5000))
    mount.wait_state(task, "completed")
    subprocess.run(["rm", "-r", str(mount.task_dir(task))], check=True, timeout=10)
    assert mount.task_ids() == []
    assert mount.files() == []
    assert not (mount.state / "files" / "done.bin").exists()


def test_r32_rm_file_in_files(mount, faultserver):
    task = mount.add_one(faultserver.add("/done.bin", size=5000))
    mount.wait_state(task, "completed")
    os.remove(mount.mp / "files" / "done.bin")
    assert mount.files() == []
    assert task not in mount.task_ids()
    assert task not in Table(mount.root_status()).ids()
    assert not (mount.state / "files" / "done.bin").exists()


def test_r32_ids_never_reused_after_remount(mount, faultserver):
    first = mount.add_one(faultserver.add("/a.bin", size=1000))
    second = mount.add_one(faultserver.add("/b.bin", size=1000))
    mount.wait_state(second, "completed")
    os.rmdir(mount.task_dir(second))
    assert mount.unmount() == 0
    mount.remount()
    third = mount.add_one(faultserver.add("/c.bin", size=1000))
    assert third > second > first


def test_r32_cancel_frees_the_slot(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    first = _slow_task(mount, faultserver)
    second = mount.add_one(faultserver.add("/second.bin", size=1000))
    assert mount.status(second)["state"] == "queued"
    started = time.monotonic()
    os.rmdir(mount.task_dir(first))
    mount.wait_state(second, "completed", timeout=10)
    assert time.monotonic() - started < 5
