"""R50: pausing, unmounting and remounting continue downloads where they were."""

import os

import pytest

from support.files import KiB, MiB, sha256_file, sha256_of
from support.nginx import wait_for_access
from support.waiting import stays_true


def test_r50_unmount_remount_resumes_with_range(mount, nginx, nginx_file):
    size = 24 * MiB
    name, digest = nginx_file("resume.bin", size, seed=50)
    uri = f"/rate/4m/{name}"
    task = mount.add_one(nginx.url(f"/{name}", rate="4m"))
    seen = int(mount.wait_downloaded(task, 6 * MiB)["downloaded"])
    assert mount.unmount() == 0, mount.output()
    wait_for_access(nginx, uri, 1)
    mount.remount()
    mount.wait_state(task, "completed", timeout=60)
    records = nginx.access_log(uri)
    resumed = [r for r in records if r.range_start]
    assert resumed, f"no ranged request after the remount: {records}"
    assert resumed[0].range_start >= seen, \
        f"resumed from {resumed[0].range_start}, but {seen} bytes had arrived before unmount"
    assert resumed[0].status == 206
    assert sum(r.sent for r in records) < size + 8 * MiB, records
    assert sha256_file(mount.mp / "files" / name) == digest


def test_r50_paused_stays_paused_after_remount(mount, faultserver):
    task = mount.add_one(faultserver.add("/p.bin", size=8 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, MiB)
    mount.ctl(task, "pause")
    kept = mount.wait_state(task, "paused")["downloaded"]
    requests = len(faultserver.gets("/p.bin"))
    assert mount.unmount() == 0
    mount.remount()
    stays_true(lambda: mount.status(task)["state"] == "paused", 1.5, "paused after remount")
    assert mount.status(task)["downloaded"] == kept
    assert len(faultserver.gets("/p.bin")) == requests, "a paused task was fetched"


def test_r50_completed_stay_listed(mount, faultserver):
    tasks = {mount.add_one(faultserver.add(f"/c{i}.bin", size=(i + 1) * 100 * KiB, seed=i)): i
             for i in range(2)}
    for task in tasks:
        mount.wait_state(task, "completed")
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["c0.bin", "c1.bin"]
    for task, i in tasks.items():
        assert mount.status(task)["state"] == "completed"
        assert sha256_file(mount.mp / "files" / f"c{i}.bin") == sha256_of(i, (i + 1) * 100 * KiB)


def test_r50_queued_tasks_carry_on(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    tasks = [mount.add_one(faultserver.add(f"/q{i}.bin", size=2 * MiB, seed=i, throttle=2 * MiB))
             for i in range(3)]
    mount.wait_downloaded(tasks[0], 256 * KiB)
    assert [mount.status(t)["state"] for t in tasks[1:]] == ["queued", "queued"]
    assert mount.unmount() == 0
    mount.remount()
    for i, task in enumerate(tasks):
        mount.wait_state(task, "completed", timeout=30)
        assert sha256_file(mount.mp / "files" / f"q{i}.bin") == sha256_of(i, 2 * MiB)


@pytest.mark.parametrize("how", ["unmount", "kill9"])
def test_r50_the_downloads_that_ran_carry_on_first(make_mount, faultserver, how):
    # A task moved ahead of the running one (top) and a task started past the limit (start):
    # after the remount, the two that were downloading download again, and the line keeps its order.
    mount = make_mount("--max-active", "1")
    tasks = [mount.add_one(faultserver.add(f"/o{i}.bin", size=8 * MiB, seed=i, throttle=256 * KiB))
             for i in range(4)]
    mount.wait_downloaded(tasks[0], 64 * KiB)
    mount.ctl(tasks[2], "top")
    mount.ctl(tasks[3], "start")
    mount.wait_state(tasks[3], "downloading")
    running = {t for t in tasks if mount.status(t)["state"] == "downloading"}
    assert len(running) == 1 and tasks[3] in running, "start took the only slot"
    if how == "unmount":
        assert mount.unmount() == 0
    else:
        mount.kill9()
    mount.remount()
    mount.wait_state(tasks[3], "downloading")
    waiting = [t for t in tasks if mount.status(t)["state"] == "queued"]
    line = [int(i) for i in os.getxattr(mount.mp / "queue", "user.downloadfs.line").split()]
    assert line == [tasks[2], tasks[0], tasks[1]] and sorted(waiting) == sorted(line), line
