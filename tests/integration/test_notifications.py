"""R7: names and attributes the kernel may cache are announced when they change.

Directories, `ctl`, `url`, `wait`, `queue/new`, finished files and every
node's name are cached by the kernel for seconds (docs/design.md, "Nodes and
notifications"); these tests first make the kernel cache a name, then change
it without going through that name, and check that it is gone at once and
that a watcher of the node that went was told (IN_DELETE_SELF).

What Linux cannot do, and these tests do not ask: tell watchers of a
*directory* that an entry appeared, or (since Linux 5.3) that one went when
the change did not come through the mount's own unlink/rmdir/rename (FUSE's
delete notification drops the name and fires IN_DELETE_SELF only). A
directory's mtime moves instead, for watchers that poll (docs/usage.md).
"""

import os

from support.files import KiB, MiB
from support.inotify import IN_DELETE_SELF, Watch
from support.waiting import wait_until

GONE_WITHIN = 1.0  # seconds; a stale cache would last 10 s


def _completed(mount, faultserver, path, size=64 * KiB, **knobs):
    task = mount.add_one(faultserver.add(path, size=size, **knobs))
    mount.wait_state(task, "completed")
    return task


def _gone(path, what):
    wait_until(lambda: not os.path.lexists(path), GONE_WITHIN, what)


def test_r7_r32_rm_in_files_removes_the_task_dir(mount, faultserver):
    task = _completed(mount, faultserver, "/gone.bin")
    task_dir = mount.task_dir(task)
    assert os.path.isdir(task_dir) and os.path.isfile(task_dir / "status")  # cached now
    watch = Watch()
    try:
        watch.add(task_dir)
        os.unlink(mount.mp / "files" / "gone.bin")
        _gone(task_dir, f"queue/{task} to go")
        assert watch.wait_for(task_dir, IN_DELETE_SELF, "", 2.0), watch.events
    finally:
        watch.close()
    assert task not in mount.task_ids()


def test_r7_r32_rmdir_removes_the_files_entry(mount, faultserver):
    task = _completed(mount, faultserver, "/done.bin")
    finished = mount.mp / "files" / "done.bin"
    assert os.path.isfile(finished)  # cached now
    watch = Watch()
    try:
        watch.add(finished)
        os.rmdir(mount.task_dir(task))
        _gone(finished, "files/done.bin to go")
        assert watch.wait_for(finished, IN_DELETE_SELF, "", 2.0), watch.events
    finally:
        watch.close()


def test_r7_r40_mv_in_files_forgets_the_old_data_name(mount, faultserver):
    task = _completed(mount, faultserver, "/a.bin")
    old = mount.task_dir(task) / "a.bin"
    assert os.path.isfile(old)  # cached now
    os.rename(mount.mp / "files" / "a.bin", mount.mp / "files" / "b.bin")
    _gone(old, f"queue/{task}/a.bin to go")
    assert os.path.getsize(mount.task_dir(task) / "b.bin") == 64 * KiB
    assert sorted(os.listdir(mount.task_dir(task))) == ["b.bin", "ctl", "log", "status", "url"]


def test_r7_r17_name_from_the_server_replaces_the_first_name(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    blocker = mount.add_one(faultserver.add("/blocker.bin", size=64 * MiB, throttle=MiB))
    mount.wait_state(blocker, "downloading")
    task = mount.add_one(faultserver.add("/first.bin", size=64 * KiB,
                                         content_disposition='attachment; filename="real.bin"'))
    first = mount.task_dir(task) / "first.bin"
    assert os.path.isfile(first), os.listdir(mount.task_dir(task))  # cached now
    mount.ctl(task, "start")
    mount.wait_state(task, "completed")
    assert mount.status(task)["name"] == "real.bin"
    _gone(first, f"queue/{task}/first.bin to go")
    assert os.path.getsize(mount.task_dir(task) / "real.bin") == 64 * KiB


def test_r7_r14_a_drop_in_file_goes_at_close(mount, faultserver):
    path = mount.mp / "queue" / "urls.txt"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    watch = Watch()
    try:
        watch.add(path)
        os.write(fd, (faultserver.add("/x.bin", size=1000) + "\n").encode())
    finally:
        os.close(fd)
    try:
        assert watch.wait_for(path, IN_DELETE_SELF, "", 2.0), watch.events
    finally:
        watch.close()
    assert not os.path.lexists(path)
    assert "urls.txt" not in os.listdir(mount.mp / "queue")
    assert len(mount.task_ids()) == 1


def test_r7_directory_mtimes_show_when_listings_changed(mount, faultserver):
    """A file manager that polls a directory's mtime (the kernel cannot
    announce a new entry to inotify) sees queue/ and files/ move."""
    queue, files = mount.mp / "queue", mount.mp / "files"
    before = (os.stat(queue).st_mtime_ns, os.stat(files).st_mtime_ns)  # cached now
    task = mount.add_one(faultserver.add("/new.bin", size=1000))
    wait_until(lambda: os.stat(queue).st_mtime_ns > before[0], GONE_WITHIN, "queue/'s mtime to move")
    mount.wait_state(task, "completed")
    wait_until(lambda: os.stat(files).st_mtime_ns > before[1], GONE_WITHIN, "files/'s mtime to move")
    added = os.stat(queue).st_mtime_ns
    os.unlink(files / "new.bin")
    wait_until(lambda: os.stat(queue).st_mtime_ns > added, GONE_WITHIN, "queue/'s mtime to move again")
