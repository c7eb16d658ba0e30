"""What a mount does with a state dir that disagrees with its catalog."""

import os

from support.files import KiB
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
