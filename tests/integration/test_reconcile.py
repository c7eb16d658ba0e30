"""What a mount does with a state dir that disagrees with its catalog."""

import os

from support.files import KiB
from support.waiting import wait_until


def test_reconcile_orphan_partial_removed(mount):
    assert mount.unmount() == 0
    partial = mount.state / "partial"
    partial.mkdir(exist_ok=True)
    orphan = partial / "orphan-999999"
    orphan.write_bytes(b"\0" * (64 * KiB))
    mount.remount()
    wait_until(lambda: not orphan.exists(), 5, "the orphan partial file to be removed")
    assert mount.task_ids() == []


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
