"""R54: a full disk fails the task that hit it, and nothing else."""

import errno
import os
import subprocess

import pytest

from support.cli import one_line_message, run_cli
from support.files import KiB, MiB, sha256_file, sha256_of
from support.waiting import wait_until


@pytest.fixture
def small_tmpfs(tmp_path):
    """An 8 MiB tmpfs to put a state dir on; unmounted (lazily if busy) afterwards."""
    path = tmp_path / "small"
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(path)], check=True,
                   timeout=10)
    yield path
    if subprocess.run(["umount", str(path)], capture_output=True, timeout=10).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=10)


def test_r54_enospc_fails_only_that_task(small_tmpfs, make_mount, faultserver):
    mount = make_mount(state_dir=small_tmpfs / "state")
    done = mount.add_one(faultserver.add("/done.bin", size=512 * KiB, seed=1))
    mount.wait_state(done, "completed")
    ballast = small_tmpfs / "ballast"
    with open(ballast, "wb") as handle:
        handle.write(b"\x55" * (4 * MiB))
    size = 5 * MiB  # more than is left, less than is left once the ballast goes
    big = mount.add_one(faultserver.add("/big.bin", size=size, seed=2, throttle=MiB))
    status = mount.wait_state(big, "failed", timeout=30)
    assert "No space left on device" in status["error"], status["error"]
    assert mount.alive(), "the daemon died on ENOSPC"
    assert mount.status(done)["state"] == "completed"
    assert sha256_file(mount.mp / "files" / "done.bin") == sha256_of(1, 512 * KiB)
    assert mount.integrity_check() == ["ok"]
    ballast.unlink()
    mount.ctl(big, "resume")
    mount.wait_state(big, "completed", timeout=30)
    # The failure's line, which the full disk kept out of the catalog, is stored once there is room.
    assert "failed: No space left on device" in mount.task_log(big), mount.task_log(big)
    resumed = faultserver.gets("/big.bin")[-1]
    assert resumed.range_start and resumed.range_start > 0, \
        f"data up to the last checkpoint was not kept: {resumed.range!r}"
    assert sha256_file(mount.mp / "files" / "big.bin") == sha256_of(2, size)
    assert mount.integrity_check() == ["ok"]
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["big.bin", "done.bin"]


def test_r51_r54_a_task_failed_on_a_full_disk_gives_back_its_untrusted_bytes(small_tmpfs, make_mount,
                                                                             faultserver):
    """Audit 3, C #3: a task failed by ENOSPC kept the bytes past its
    checkpoint allocated (not trusted, R51), so the daemon itself held the
    disk full and nothing else could go on. Its partial file is cut back to
    what it trusts; `resume` still carries on from there."""
    mount = make_mount(state_dir=small_tmpfs / "state")
    size = 16 * MiB  # twice the disk
    big = mount.add_one(faultserver.add("/big.bin", size=size, seed=4, throttle=4 * MiB))
    status = mount.wait_state(big, "failed", timeout=30)
    assert "No space left on device" in status["error"], status["error"]
    trusted = int(status["downloaded"])
    partial = mount.state / "partial" / str(big)
    allocated = os.stat(partial).st_blocks * 512
    assert allocated <= trusted + 64 * KiB, f"{allocated} bytes allocated for {trusted} trusted"
    # The disk is not full any more: all but the trusted bytes and the catalog are free.
    disk = os.statvfs(small_tmpfs)
    assert disk.f_bavail * disk.f_frsize >= 8 * MiB - trusted - 1 * MiB, (disk, trusted)
    assert mount.alive()
    assert mount.integrity_check() == ["ok"]


def _fill(directory):
    """Fill the filesystem of `directory` to the last page; return the ballast file."""
    ballast = directory / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for block in (64 * KiB, 4 * KiB, 1):
            try:
                while True:
                    os.write(fd, b"\x55" * block)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
    finally:
        os.close(fd)
    return ballast


def test_r4_add_on_a_full_disk_fails_says_why_and_prints_no_id(small_tmpfs, make_mount, faultserver,
                                                               downloadfs_bin, tmp_path):
    mount = make_mount(state_dir=small_tmpfs / "state")
    url = faultserver.add("/later.bin", size=1000)
    ballast = _fill(small_tmpfs)
    # The daemon adds the URL when `add` reads the ids back; the catalog
    # cannot grow, so that read answers EIO. It used to count as "no ids".
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, url], tmp_path)
    assert result.returncode != 0, result
    assert result.stdout == "", f"printed an id it did not get: {result!r}"
    assert one_line_message(result.stderr), result
    assert "full" in result.stderr or "No space" in result.stderr, result.stderr
    assert mount.task_ids() == []
    assert mount.alive()
    # Space back: nothing was added behind the user's back (not even at close),
    # and the same add now works.
    ballast.unlink()
    assert mount.task_ids() == []
    assert faultserver.gets("/later.bin") == []
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, url], tmp_path)
    assert result.returncode == 0, result
    [task] = [int(line) for line in result.stdout.split()]
    assert mount.task_ids() == [task]
    mount.wait_state(task, "completed")
    assert mount.integrity_check() == ["ok"]


def test_r54_log_lines_the_catalog_refuses_are_reported_not_dropped(small_tmpfs, make_mount):
    """Issue 9, item 8: EventLog dropped lines silently when the catalog
    could not store them. A line is still shown in MOUNT/log and the daemon
    says on stderr that it could not be stored."""
    mount = make_mount(state_dir=small_tmpfs / "state")
    ballast = _fill(small_tmpfs)
    try:
        fd = os.open(mount.new, os.O_WRONLY)
        try:
            for _ in range(200):  # enough lines to need new catalog pages
                try:
                    os.write(fd, b"file:///full-disk-line\n")
                except OSError as error:
                    assert error.errno == errno.EINVAL
        finally:
            os.close(fd)
        assert mount.log().count("refused a write") >= 200, "every refusal is shown"
        wait_until(lambda: "not stored" in mount.output(), 10, "the daemon to report the lines it could not store")
        assert mount.alive()
    finally:
        ballast.unlink()
    assert mount.integrity_check() == ["ok"]


def test_r54_a_mount_on_a_full_disk_says_what_to_do(small_tmpfs, make_mount, faultserver, tmp_path):
    """A remount whose state dir's disk is full cannot save what it
    reconciles: refused with a line that says the disk is full and what to
    do, not only SQLite's words."""
    mount = make_mount(state_dir=small_tmpfs / "state")
    task = mount.add_one(faultserver.add("/full-remount.bin", size=4 * MiB, throttle=512 * KiB))
    mount.wait_downloaded(task, 1)
    mount.unmount()
    ballast = _fill(small_tmpfs)
    try:
        result = mount.assert_mount_refused(tmp_path)
        assert "disk is full: free some space" in result.stderr, result.stderr
    finally:
        ballast.unlink()
    mount.start()
    mount.wait_state(task, "completed", timeout=60)
