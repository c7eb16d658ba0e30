"""Issue 9: the loop over the task machine — what a user can see of it."""

import os
import time

from support.files import KiB, MiB, sha256_file, sha256_of
from support.waiting import wait_until


def test_r20_connections_counts_open_transfers(mount, faultserver):
    task = mount.add_one(faultserver.add("/conn.bin", size=4 * MiB, seed=71, throttle=2 * MiB))
    status = mount.wait_downloaded(task, 256 * KiB)
    assert mount.status(task)["connections"] == "1"
    mount.ctl(task, "pause")
    assert mount.status(task)["connections"] == "0"
    mount.ctl(task, "resume")
    done = mount.wait_state(task, "completed")
    assert done["connections"] == "0"


def test_r30_pause_returns_with_the_final_count(mount, faultserver):
    """`ctl pause` returns once the task is paused with its final, committed count."""
    task = mount.add_one(faultserver.add("/final.bin", size=8 * MiB, seed=72, throttle=2 * MiB))
    mount.wait_downloaded(task, MiB)
    mount.ctl(task, "pause")
    first = mount.status(task)
    assert first["state"] == "paused"
    time.sleep(0.5)  # nothing may change while paused; no event to poll for
    assert mount.status(task)["downloaded"] == first["downloaded"]
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed")
    resumed = faultserver.gets("/final.bin")[-1]
    assert resumed.range_start == int(first["downloaded"])
    assert sha256_file(mount.mp / "files" / "final.bin") == sha256_of(72, 8 * MiB)


def test_r30_restarted_transfer_keeps_its_speed_limit(mount, faultserver):
    """A start-over after an unusable answer runs under the task's limit (issue 9, item 8)."""
    rate = 256 * KiB
    url = faultserver.add("/limited.bin", size=2 * MiB, seed=73,
                          script=[{"status": 206}])  # first GET: 206 without Content-Range
    task = mount.add(f"{url}\n  max-download-limit=256K\n")[0]
    wait_until(lambda: len(faultserver.gets("/limited.bin")) >= 2, 20, "the second attempt")
    started = time.monotonic()
    mount.wait_downloaded(task, 512 * KiB, timeout=20)
    elapsed = time.monotonic() - started
    assert elapsed >= 512 * KiB / rate * 0.7, f"512 KiB in {elapsed:.2f}s: the limit was not applied"
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "limited.bin") == sha256_of(73, 2 * MiB)


def test_r15_many_small_files_share_commits(make_mount, faultserver):
    """200 small files with 16 active all complete, byte-identical, and each
    task's log tells its whole story in order."""
    mount = make_mount("--max-active", "16")
    urls = [faultserver.add(f"/small{i}.bin", size=16 * KiB, seed=200 + i) for i in range(200)]
    ids = mount.add("".join(u + "\n" for u in urls))
    assert len(ids) == 200
    wait_until(lambda: len(mount.files()) == 200, 60, "every small file in files/")
    for i in (0, 99, 199):
        assert sha256_file(mount.mp / "files" / f"small{i}.bin") == sha256_of(200 + i, 16 * KiB)
    log = mount.task_log(ids[42]).splitlines()
    words = [line.split(" ", 1)[1] for line in log]
    assert words[0].startswith("added: ") and words[-1] == "completed: small42.bin", words
    assert mount.integrity_check() == ["ok"]


def test_daemon_threads_carry_their_names(mount):
    """`top -H`, `ps -L` and perf tell the loop, the engine and the kernel
    notifier apart: each names itself to the kernel once it runs."""
    tasks = f"/proc/{mount.pid}/task"

    def names():
        found = set()
        for tid in os.listdir(tasks):
            try:
                with open(f"{tasks}/{tid}/comm") as comm:
                    found.add(comm.read().strip())
            except FileNotFoundError:
                pass  # a thread that ended meanwhile
        return found

    wanted = {"downloadfs-loop", "downloadfs-engi", "downloadfs-noti"}  # the kernel keeps 15 bytes
    wait_until(lambda: wanted <= names(), 10, f"threads named {sorted(wanted)}")
