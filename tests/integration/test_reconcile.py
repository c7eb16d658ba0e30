"""What a mount does with a state dir that disagrees with its catalog."""

import os

from support.files import KiB, MiB, sha256_file, sha256_of
from support.waiting import wait_until


def test_reconcile_orphan_partial_kept_aside(mount):
    """Partial data no task claims (a lost catalog) is moved aside, never deleted."""
    assert mount.unmount() == 0
    partial = mount.state / "partial"
    partial.mkdir(exist_ok=True)
    orphan = partial / "999999"
    content = os.urandom(64 * KiB)
    orphan.write_bytes(content)
    mount.remount()
    kept = mount.state / "orphaned" / "999999"
    wait_until(lambda: not orphan.exists(), 5, "the orphan partial file to be moved aside")
    assert kept.read_bytes() == content
    assert mount.task_ids() == []
    assert str(kept) in mount.log()
    # A second orphan of the same name does not overwrite the first.
    assert mount.unmount() == 0
    orphan.write_bytes(b"second")
    mount.remount()
    wait_until(lambda: not orphan.exists(), 5, "the second orphan to be moved aside")
    assert kept.read_bytes() == content
    assert (mount.state / "orphaned" / "999999.1").read_bytes() == b"second"


def test_reconcile_missing_completed_file_marked_failed(mount, faultserver):
    task = mount.add_one(faultserver.add("/gone.bin", size=10 * KiB))
    mount.wait_state(task, "completed")
    assert mount.unmount() == 0
    os.remove(mount.state / "files" / "gone.bin")
    mount.remount()
    status = mount.wait_state(task, "failed", timeout=5)
    assert status["error"] != "-"
    assert mount.files() == []
    # The user can fetch it again.
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed")
    assert mount.files() == ["gone.bin"]


def test_r51_a_partial_file_deleted_under_the_daemon_is_noticed_at_resume(mount, faultserver):
    """Audit 3, C #9: a resume under a running daemon reopened STATE/partial/N
    with O_CREAT and trusted the catalog's ranges, so a partial file deleted
    meanwhile (a cleaner, a stray `rm`) ended `completed` with zeros in front.
    The attempt's open applies the mount's rule: the download starts over,
    and the task log says why."""
    size, seed = 4 * MiB, 9
    task = mount.add_one(faultserver.add("/gone.bin", size=size, seed=seed, throttle=512 * KiB))
    mount.wait_downloaded(task, 256 * KiB)
    mount.ctl(task, "pause")
    status = mount.wait_state(task, "paused")
    assert int(status["downloaded"]) > 0, status
    os.remove(mount.state / "partial" / str(task))
    faultserver.update("/gone.bin", throttle=None)
    before = len(faultserver.gets("/gone.bin"))
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed")
    assert sha256_file(mount.mp / "files" / "gone.bin") == sha256_of(seed, size)
    assert "partial data is missing; starting over" in mount.task_log(task), mount.task_log(task)
    assert any(get.range_start in (None, 0) for get in faultserver.gets("/gone.bin")[before:])
