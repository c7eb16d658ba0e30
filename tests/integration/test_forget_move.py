"""R34 (forget, forget-completed) and R30 (move N)."""

import errno
import re
import select
import os
import stat
import time

import pytest

from support.faultserver import DEFAULT_LAST_MODIFIED_EPOCH
from support.files import KiB, MiB, content
from support.mount import expect_errno, write_command
from support.waiting import start_order, wait_until


def _table_ids(mount):
    """Ids in the root table's task rows (the first column)."""
    rows = mount.root_status().splitlines()[1:-1]
    return sorted(int(row.split()[0]) for row in rows)


def test_r34_forget_keeps_the_file_with_its_name_size_mtime_and_xattrs(mount, faultserver):
    size = 300 * KiB
    url = faultserver.add("/kept.bin", size=size, seed=5, content_type="image/png")
    task = mount.add_one(url)
    mount.wait_state(task, "completed")
    mount.ctl(task, "forget")
    # The task is gone everywhere the mount shows tasks.
    assert task not in mount.task_ids()
    assert not os.path.exists(mount.task_dir(task))
    assert task not in _table_ids(mount)
    assert f"task {task} forgotten" in mount.log()
    # Its file stays, as it was.
    path = mount.mp / "files" / "kept.bin"
    assert mount.files() == ["kept.bin"]
    info = os.stat(path)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o444
    assert info.st_size == size
    assert int(info.st_mtime) == DEFAULT_LAST_MODIFIED_EPOCH
    assert path.read_bytes() == content(5, size)
    assert os.getxattr(path, "user.xdg.origin.url") == url.encode()
    assert os.getxattr(path, "user.mime_type") == b"image/png"
    assert (mount.state / "files" / "kept.bin").stat().st_size == size
    # And after a remount.
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["kept.bin"]
    assert mount.task_ids() == []
    assert os.getxattr(path, "user.xdg.origin.url") == url.encode()


def test_r34_r17_r13_a_forgotten_files_name_is_never_reused_and_its_url_makes_a_new_task(mount, faultserver):
    url = faultserver.add("/same.bin", size=64 * KiB, seed=1)
    first = mount.add_one(url)
    mount.wait_state(first, "completed")
    mount.ctl(first, "forget")
    again = mount.add_one(url)
    assert again != first
    mount.wait_state(again, "completed")
    assert mount.status(again)["name"] == "same (1).bin"
    assert mount.files() == ["same (1).bin", "same.bin"]
    # Removing the new task removes its file alone.
    os.unlink(mount.mp / "files" / "same (1).bin")
    assert mount.files() == ["same.bin"]


def test_r34_forget_of_a_task_not_completed_is_einval_and_changes_nothing(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    running = mount.add_one(faultserver.add("/slow.bin", size=8 * MiB, throttle=256 * KiB))
    mount.wait_state(running, "downloading")
    waiting = mount.add_one(faultserver.add("/wait.bin", size=64 * KiB))
    for task in (running, waiting):
        before = mount.status(task)["state"]
        expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", "forget")
        assert mount.status(task)["state"] == before
    assert "only a completed task can be forgotten" in mount.log()
    assert mount.task_ids() == [running, waiting]


def test_r34_forget_completed_leaves_unfinished_tasks_alone(make_mount, faultserver):
    mount = make_mount("--max-active", "2")
    done = [mount.add_one(faultserver.add(f"/done{i}.bin", size=32 * KiB, seed=i)) for i in range(3)]
    for task in done:
        mount.wait_state(task, "completed")
    slow = mount.add_one(faultserver.add("/slow.bin", size=8 * MiB, throttle=256 * KiB))
    mount.wait_state(slow, "downloading")
    paused = mount.add_one(faultserver.add("/paused.bin", size=8 * MiB, throttle=256 * KiB))
    mount.ctl(paused, "pause")
    mount.wait_state(paused, "paused")
    mount.root_ctl("forget-completed")
    assert mount.task_ids() == [slow, paused]
    assert mount.status(slow)["state"] == "downloading"
    assert mount.status(paused)["state"] == "paused"
    assert mount.files() == ["done0.bin", "done1.bin", "done2.bin"]
    # A forgotten file acts alone: rm removes it and touches no task.
    os.unlink(mount.mp / "files" / "done1.bin")
    assert mount.files() == ["done0.bin", "done2.bin"]
    assert not (mount.state / "files" / "done1.bin").exists()
    assert mount.task_ids() == [slow, paused]


def test_r30_move_places_a_waiting_task_anywhere_in_the_line(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    running = mount.add_one(faultserver.add("/run.bin", size=2 * MiB, throttle=2 * MiB))
    mount.wait_state(running, "downloading")
    waiting = [mount.add_one(faultserver.add(f"/w{i}.bin", size=256 * KiB, seed=i, throttle=2 * MiB))
               for i in range(4)]
    mount.ctl(waiting[3], "move 1")    # w0 w3 w1 w2
    mount.ctl(waiting[0], "move 99999999999999999999999999")    # w3 w1 w2 w0 (past the end: last)
    mount.ctl(waiting[2], "move 0")    # w2 w3 w1 w0 (move 0 is top)
    expect_errno(errno.EINVAL, write_command, mount.task_dir(running) / "ctl", "move 0")
    # `top` is `move 0`: refused alike for a task with no place in the line.
    expect_errno(errno.EINVAL, write_command, mount.task_dir(running) / "ctl", "top")
    expect_errno(errno.EINVAL, write_command, mount.task_dir(waiting[1]) / "ctl", "move -1")
    expect_errno(errno.EINVAL, write_command, mount.task_dir(waiting[1]) / "ctl", "move")
    # Each task's directory tells its place: the N of `move N` that leaves it there.
    places = [os.getxattr(mount.task_dir(task), "user.downloadfs.place") for task in waiting]
    assert places == [b"3\n", b"2\n", b"0\n", b"1\n"], places
    with pytest.raises(OSError) as no_place:
        os.getxattr(mount.task_dir(running), "user.downloadfs.place")
    assert no_place.value.errno == errno.ENODATA
    assert start_order(mount, waiting, 60) == [waiting[2], waiting[3], waiting[1], waiting[0]]


def test_r24_r34_forget_tells_events_readers(mount, faultserver):
    task = mount.add_one(faultserver.add("/told.bin", size=16 * KiB, seed=3))
    mount.wait_state(task, "completed")
    fd = os.open(mount.mp / "events", os.O_RDONLY)
    try:
        mount.ctl(task, "forget")
        data = b""
        deadline = time.monotonic() + 10
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            assert left > 0, f"no whole line in 10 s: {data!r}"
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                data += os.read(fd, 4096)
    finally:
        os.close(fd)
    assert re.fullmatch(rf"\d+\.\d{{3}} {task} forgotten told\.bin\n", data.decode()), data


def _line(mount):
    return [int(n) for n in os.getxattr(mount.mp / "queue", "user.downloadfs.line").split()]


def _place(mount, task):
    return int(os.getxattr(mount.task_dir(task), "user.downloadfs.place"))


def test_r30_move_and_place_count_paused_tasks_in_the_line(make_mount, faultserver):
    """R30: `move N` goes to place N of the waiting line — queued and paused
    tasks, as user.downloadfs.line lists them — and a task's place is its
    index there (after pause-all, the usual moment to reorder, all are paused)."""
    mount = make_mount("--max-active", "1")
    tasks = [mount.add_one(faultserver.add(f"/p{i}.bin", size=4 * MiB, seed=i, throttle=256 * KiB))
             for i in range(5)]
    mount.root_ctl("pause-all")
    wait_until(lambda: all(mount.status(t)["state"] == "paused" for t in tasks), 20, "every task paused")
    assert _line(mount) == tasks
    assert [_place(mount, t) for t in tasks] == [0, 1, 2, 3, 4]
    mount.ctl(tasks[3], "move 0")
    assert _line(mount) == [tasks[3], tasks[0], tasks[1], tasks[2], tasks[4]]
    mount.ctl(tasks[0], "move 2")
    line = [tasks[3], tasks[1], tasks[0], tasks[2], tasks[4]]
    assert _line(mount) == line
    assert [_place(mount, t) for t in line] == [0, 1, 2, 3, 4]
    # `move` to its own place leaves each where it is.
    for task in line:
        mount.ctl(task, f"move {_place(mount, task)}")
    assert _line(mount) == line
    # A queued task (resumed while the slot is busy) counts in the same line as the paused.
    busy = mount.add_one(faultserver.add("/busy.bin", size=8 * MiB, throttle=256 * KiB))
    mount.wait_state(busy, "downloading")
    mount.ctl(tasks[2], "resume")
    assert mount.status(tasks[2])["state"] == "queued"
    assert _line(mount) == line and _place(mount, tasks[2]) == 3
    mount.ctl(tasks[2], "move 1")
    assert _line(mount) == [tasks[3], tasks[2], tasks[1], tasks[0], tasks[4]]
