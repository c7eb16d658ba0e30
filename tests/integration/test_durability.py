"""R51, R54: a failed fdatasync is a write error, and its count is never trusted.

The daemon runs with an LD_PRELOAD shim (support/failsync.c, built here) that
makes fdatasync of partial data fail with EIO while a flag file exists (and
syncfs, and the wait on one file's writeback that follows a group's syncfs).
"""

import sqlite3
import subprocess
from pathlib import Path

import pytest

from support.files import MiB, sha256_file, sha256_of
from support.waiting import wait_until


def build_failsync(tmp_path):
    """support/failsync.c built into tmp_path; the path of the library."""
    source = Path(__file__).parent / "support" / "failsync.c"
    library = tmp_path / "failsync.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(library), str(source), "-ldl"],
                   check=True, timeout=60)
    return library


@pytest.fixture
def failing_sync(tmp_path, monkeypatch):
    """The flag file that makes partial-data syncs fail while it exists."""
    library = build_failsync(tmp_path)
    flag = tmp_path / "fail-sync"
    monkeypatch.setenv("LD_PRELOAD", str(library))
    monkeypatch.setenv("FAILSYNC_FLAG", str(flag))
    return flag


def _stored_downloaded(mount, task):
    with sqlite3.connect(f"file:{mount.state / 'catalog.sqlite'}?mode=ro", uri=True, timeout=5) as db:
        return db.execute("SELECT downloaded FROM task WHERE id = ?", (task,)).fetchone()[0]


def test_r51_failed_fdatasync_fails_task_and_keeps_last_good_count(failing_sync, make_mount, faultserver):
    size = 8 * MiB
    mount = make_mount()
    task = mount.add_one(faultserver.add("/sync.bin", size=size, seed=41, throttle=2 * MiB))
    mount.wait_downloaded(task, 2 * MiB, timeout=30)
    failing_sync.touch()
    # Every checkpoint that syncs from now on fails; what was written by now
    # bounds what may have been synced before.
    written_before = int(mount.status(task)["downloaded"])
    status = mount.wait_state(task, "failed", timeout=30)
    assert "Input/output error" in status["error"], status["error"]
    trusted = _stored_downloaded(mount, task)
    assert int(status["downloaded"]) == trusted
    assert trusted <= written_before, \
        f"committed {trusted} bytes although only {written_before} were written before syncs failed"
    assert mount.alive()

    failing_sync.unlink()
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=60)
    resumed = faultserver.gets("/sync.bin")[-1]
    assert (resumed.range_start or 0) == trusted, \
        f"resumed with {resumed.range!r}, expected to continue from the trusted {trusted}"
    assert sha256_file(mount.mp / "files" / "sync.bin") == sha256_of(41, size)


def test_r51_sync_failing_from_the_start_trusts_nothing(failing_sync, make_mount, faultserver):
    size = 4 * MiB
    failing_sync.touch()
    mount = make_mount()
    task = mount.add_one(faultserver.add("/never.bin", size=size, seed=42, throttle=2 * MiB))
    status = mount.wait_state(task, "failed", timeout=30)
    assert "Input/output error" in status["error"], status["error"]
    assert _stored_downloaded(mount, task) == 0
    # A resume while the disk still fails fails again, and never completes.
    mount.ctl(task, "resume")
    status = mount.wait_state(task, "failed", timeout=30)
    assert _stored_downloaded(mount, task) == 0
    assert mount.files() == []

    failing_sync.unlink()
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=60)
    assert sha256_file(mount.mp / "files" / "never.bin") == sha256_of(42, size)


@pytest.mark.parametrize("told_by", ["syncfs", "own writeback"])
def test_r51_one_failed_flush_in_a_group_fails_only_its_task(failing_sync, make_mount, faultserver, told_by):
    """Small files that finish together are flushed as a group (one syncfs);
    the writeback of one of them fails. R51, R54: that task fails with the
    error and trusts nothing it had not synced; the others of its group
    complete. "syncfs": the group's syncfs reports the error (it cannot say
    whose); "own writeback": syncfs succeeds and only the wait on that
    file's own writeback tells."""
    count, size, bad = 12, 64 * 1024, 5
    env = {"FAILSYNC_ONLY": str(bad)}
    if told_by == "own writeback":
        env["FAILSYNC_SYNCFS_OK"] = "1"
    failing_sync.touch()
    mount = make_mount("--max-active", "16", env=env)
    urls = [faultserver.add(f"/g{i}.bin", size=size, seed=300 + i) for i in range(count)]
    ids = mount.add("".join(url + "\n" for url in urls))
    assert ids == list(range(1, count + 1)), ids
    for task, i in zip(ids, range(count)):
        if task == bad:
            status = mount.wait_state(task, "failed", timeout=30)
            assert "Input/output error" in status["error"], status["error"]
            assert _stored_downloaded(mount, task) == 0, "a count was trusted although its flush failed"
        else:
            mount.wait_state(task, "completed", timeout=30)
            assert sha256_file(mount.mp / "files" / f"g{i}.bin") == sha256_of(300 + i, size)
    assert mount.alive()

    failing_sync.unlink()
    mount.ctl(bad, "resume")
    mount.wait_state(bad, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / f"g{bad - 1}.bin") == sha256_of(300 + bad - 1, size)
