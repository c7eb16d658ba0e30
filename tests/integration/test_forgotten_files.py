"""R34, R41, R42, R43, R17: files/ shows files that belong to no task.

A forgotten task (R34) leaves its file in STATE/files as a plain file with
its name, size, mtime and extended attributes. Until `forget` itself is
there, these tests leave such a file the way it will: written straight into
STATE/files with the mount up, its mtime set, its attributes set, mode 0444.
"""

import errno
import hashlib
import mmap
import os
import stat
import subprocess

from support.faultserver import DEFAULT_LAST_MODIFIED_EPOCH
from support.files import KiB, MiB, content
from support.mount import expect_errno
from support.waiting import wait_until

URL_ATTR = "user.xdg.origin.url"
MIME_ATTR = "user.mime_type"
PLAIN_MTIME = 1500000000  # 2017-07-14


def _leave_plain(mount, name, data, mtime=PLAIN_MTIME, url="http://example.invalid/x.bin",
                 mime="application/x-plain-test"):
    """A file in STATE/files as `forget` leaves it; returns its path there."""
    path = mount.state / "files" / name
    path.write_bytes(data)
    if url is not None:
        os.setxattr(path, URL_ATTR, url.encode())
    if mime is not None:
        os.setxattr(path, MIME_ATTR, mime.encode())
    os.utime(path, (mtime, mtime))
    os.chmod(path, 0o444)
    return path


def _completed(mount, faultserver, path, size=64 * KiB, seed=1, **knobs):
    task = mount.add_one(faultserver.add(path, size=size, seed=seed, **knobs))
    mount.wait_state(task, "completed")
    return task


def test_r34_plain_file_is_listed_with_its_size_mtime_and_mode(mount, faultserver):
    task = _completed(mount, faultserver, "/task.bin")
    _leave_plain(mount, "plain.bin", content(7, 300 * KiB))
    assert mount.files() == ["plain.bin", "task.bin"], "each name once: the task's and the plain file"
    info = os.stat(mount.mp / "files" / "plain.bin")
    assert stat.S_ISREG(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o444
    assert info.st_size == 300 * KiB
    assert int(info.st_mtime) == PLAIN_MTIME
    mine = os.stat(mount.mp)
    assert (info.st_uid, info.st_gid) == (mine.st_uid, mine.st_gid), "owner is the mount's (R6)"
    assert info.st_ino != os.stat(mount.mp / "files" / "task.bin").st_ino
    assert mount.status(task)["name"] == "task.bin"


def test_r34_plain_file_reads_back_its_bytes(mount):
    size = 3 * MiB + 123
    data = content(8, size)
    _leave_plain(mount, "big.bin", data)
    path = mount.mp / "files" / "big.bin"
    assert path.read_bytes() == data
    result = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, timeout=60)
    assert result.stdout.split()[0] == hashlib.sha256(data).hexdigest()
    with open(path, "rb") as first, open(path, "rb") as second:
        first.seek(size - 1000)
        assert second.read(4096) == data[:4096]
        assert first.read() == data[size - 1000:]
        with mmap.mmap(second.fileno(), 0, prot=mmap.PROT_READ) as mapped:
            assert mapped[MiB:MiB + 10] == data[MiB:MiB + 10]
    for flags in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_TRUNC):
        expect_errno(errno.EACCES, os.open, path, flags)
    assert (mount.state / "files" / "big.bin").read_bytes() == data


def test_r34_r41_plain_file_shows_the_attributes_stored_on_it(mount):
    url = "https://example.invalid/dir/file.iso"
    _leave_plain(mount, "attrs.bin", b"x" * 100, url=url, mime="application/x-iso9660-image")
    path = mount.mp / "files" / "attrs.bin"
    assert os.getxattr(path, URL_ATTR).decode() == url
    assert os.getxattr(path, MIME_ATTR).decode() == "application/x-iso9660-image"
    assert set(os.listxattr(path)) == {URL_ATTR, MIME_ATTR}
    result = subprocess.run(["getfattr", "-d", "-m", "-", str(path)], capture_output=True,
                            text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert f'{URL_ATTR}="{url}"' in result.stdout
    # Without a type, and with an attribute that is not R41's: neither is shown.
    bare = _leave_plain(mount, "bare.bin", b"y" * 10, mime=None)
    os.chmod(bare, 0o644)
    os.setxattr(bare, "user.other", b"private")
    os.chmod(bare, 0o444)
    path = mount.mp / "files" / "bare.bin"
    assert os.listxattr(path) == [URL_ATTR]
    expect_errno(errno.ENODATA, os.getxattr, path, MIME_ATTR)
    expect_errno(errno.ENODATA, os.getxattr, path, "user.other")
    # None at all.
    _leave_plain(mount, "none.bin", b"z", url=None, mime=None)
    assert os.listxattr(mount.mp / "files" / "none.bin") == []
    expect_errno(errno.ENODATA, os.getxattr, mount.mp / "files" / "none.bin", URL_ATTR)


def test_r34_attributes_through_an_open_file_follow_a_rename(mount):
    """getxattr on an open descriptor names only the inode: the mount finds
    the file from it, also after `mv` gave it another name."""
    _leave_plain(mount, "held.bin", b"held", url="http://example.invalid/held")
    with open(mount.mp / "files" / "held.bin", "rb") as held:
        inode = os.fstat(held.fileno()).st_ino
        assert os.getxattr(held.fileno(), URL_ATTR) == b"http://example.invalid/held"
        os.rename(mount.mp / "files" / "held.bin", mount.mp / "files" / "moved.bin")
        assert os.getxattr(held.fileno(), URL_ATTR) == b"http://example.invalid/held"
        assert os.stat(mount.mp / "files" / "moved.bin").st_ino == inode, "a rename keeps the inode"
        assert held.read() == b"held"


def test_r34_rm_removes_the_plain_file_alone(mount, faultserver):
    task = _completed(mount, faultserver, "/kept.bin", seed=2)
    _leave_plain(mount, "gone.bin", b"bye" * 1000)
    files = mount.mp / "files"
    before = os.stat(files).st_mtime_ns
    os.unlink(files / "gone.bin")
    assert mount.files() == ["kept.bin"]
    assert not (mount.state / "files" / "gone.bin").exists()
    expect_errno(errno.ENOENT, os.stat, files / "gone.bin")
    expect_errno(errno.ENOENT, os.unlink, files / "gone.bin")
    assert mount.task_ids() == [task]
    assert mount.status(task)["state"] == "completed"
    assert (files / "kept.bin").read_bytes() == content(2, 64 * KiB)
    assert "removed" not in mount.task_log(task)
    wait_until(lambda: os.stat(files).st_mtime_ns != before, 1, "files/ mtime to move (R7)")


def test_r34_mv_renames_the_plain_file_on_disk(mount):
    data = content(9, 50 * KiB)
    _leave_plain(mount, "a.bin", data)
    files = mount.mp / "files"
    inode = os.stat(files / "a.bin").st_ino
    os.rename(files / "a.bin", files / "b.bin")
    assert mount.files() == ["b.bin"]
    assert (mount.state / "files" / "b.bin").read_bytes() == data
    assert not (mount.state / "files" / "a.bin").exists()
    expect_errno(errno.ENOENT, os.stat, files / "a.bin")
    info = os.stat(files / "b.bin")
    assert info.st_ino == inode
    assert int(info.st_mtime) == PLAIN_MTIME
    assert os.getxattr(files / "b.bin", MIME_ATTR) == b"application/x-plain-test"
    os.rename(files / "b.bin", files / "b.bin")  # onto itself: nothing to do
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["b.bin"]
    assert (files / "b.bin").read_bytes() == data
    assert os.stat(files / "b.bin").st_ino == inode, "the inode is the file's, across mounts too"


def test_r34_r40_mv_of_a_plain_file_is_refused_as_a_tasks_is(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    done = _completed(mount, faultserver, "/done.bin", seed=3)
    running = mount.add_one(faultserver.add("/running.bin", size=64 * MiB, seed=4, throttle=MiB))
    mount.wait_state(running, "downloading")
    queued = mount.add_one(faultserver.add("/queued.bin", size=KiB, seed=5))
    _leave_plain(mount, "p.bin", b"plain")
    _leave_plain(mount, "other.bin", b"other")
    files = bytes(mount.mp / "files")
    old = files + b"/p.bin"
    for new in (b"\xff\xfe.bin", b"a\xc3.bin", b".hidden.bin", b"tab\there.bin", b"cr\r.bin"):
        expect_errno(errno.EINVAL, os.rename, old, files + b"/" + new)
    for taken in (b"other.bin", b"done.bin", b"running.bin", b"queued.bin"):
        expect_errno(errno.EEXIST, os.rename, old, files + b"/" + taken)
    assert sorted(os.listdir(mount.state / "files")) == ["done.bin", "other.bin", "p.bin"]
    assert (mount.state / "files" / "p.bin").read_bytes() == b"plain"
    assert (mount.state / "files" / "other.bin").read_bytes() == b"other"
    assert mount.files() == ["done.bin", "other.bin", "p.bin"]
    for task, name in ((done, "done.bin"), (running, "running.bin"), (queued, "queued.bin")):
        assert mount.status(task)["name"] == name
    # A task's file onto a plain file's name: refused as before.
    expect_errno(errno.EEXIST, os.rename, files + b"/done.bin", old)
    assert mount.status(done)["name"] == "done.bin"
    assert (mount.state / "files" / "p.bin").read_bytes() == b"plain"
    # Out of files/: refused.
    expect_errno((errno.EXDEV, errno.EPERM), os.rename, old, bytes(mount.mp / "queue") + b"/p.bin")


def test_r17_a_new_download_never_takes_a_plain_files_name(mount, faultserver):
    _leave_plain(mount, "same.bin", b"the forgotten one")
    task = _completed(mount, faultserver, "/same.bin", seed=6)
    assert mount.status(task)["name"] == "same (1).bin"
    assert mount.files() == ["same (1).bin", "same.bin"]
    assert (mount.mp / "files" / "same.bin").read_bytes() == b"the forgotten one"
    assert (mount.mp / "files" / "same (1).bin").read_bytes() == content(6, 64 * KiB)


def test_r17_a_file_left_under_a_downloading_tasks_name_shows_and_the_task_takes_the_next_name(mount, faultserver):
    """A file put straight into STATE/files under the name of a task still
    downloading (nothing the mount does leaves one: R17 never gives a task
    the name of a file there, and a file being moved in is hidden until its
    task is committed `completed`) is a file like any other: shown as it is,
    and the task's own file, moved in after it, takes ` (1)` (R17)."""
    task = mount.add_one(faultserver.add("/claimed.bin", size=4 * MiB, seed=7, throttle=MiB))
    mount.wait_state(task, "downloading")
    _leave_plain(mount, "claimed.bin", b"not yet")
    assert mount.files() == ["claimed.bin"]
    assert (mount.mp / "files" / "claimed.bin").read_bytes() == b"not yet"
    mount.wait_state(task, "completed")
    assert mount.status(task)["name"] == "claimed (1).bin"
    assert mount.files() == ["claimed (1).bin", "claimed.bin"]
    assert (mount.mp / "files" / "claimed.bin").read_bytes() == b"not yet"
    assert (mount.mp / "files" / "claimed (1).bin").read_bytes() == content(7, 4 * MiB)


def test_r34_only_regular_files_and_folders_are_shown(mount):
    (mount.state / "files" / "folder").mkdir()
    (mount.state / "files" / "folder" / "inside.bin").write_bytes(b"in a folder (R35)")
    os.symlink("/etc/hostname", mount.state / "files" / "link")
    os.mkfifo(mount.state / "files" / "fifo")
    (mount.state / "files" / b"\xff\xfe.bin".decode("utf-8", "surrogateescape")).write_bytes(b"?")
    _leave_plain(mount, "real.bin", b"real")
    assert mount.files() == ["folder", "real.bin"]
    assert (mount.mp / "files" / "folder" / "inside.bin").read_bytes() == b"in a folder (R35)"
    for name in ("link", "fifo"):
        expect_errno(errno.ENOENT, os.stat, mount.mp / "files" / name)
        expect_errno(errno.ENOENT, os.unlink, mount.mp / "files" / name)
    assert os.path.lexists(mount.state / "files" / "link")


def test_r41_r42_a_completed_file_carries_its_attributes_on_disk(mount, faultserver):
    """The file in STATE/files has R41's attributes itself, so they stay
    with it when nothing is mounted and once its task is forgotten."""
    faultserver.add("/typed.bin", size=10 * KiB, content_type="text/plain; charset=utf-8")
    task = mount.add_one(f"http://user:secret@127.0.0.1:{faultserver.port}/typed.bin")
    untyped = mount.add_one(faultserver.add("/untyped.bin", size=KiB, content_type=None))
    mount.wait_state(task, "completed")
    mount.wait_state(untyped, "completed")
    on_disk = mount.state / "files" / "typed.bin"
    clean = f"http://127.0.0.1:{faultserver.port}/typed.bin"
    assert os.getxattr(on_disk, URL_ATTR).decode() == clean
    assert os.getxattr(on_disk, MIME_ATTR) == b"text/plain"
    assert int(os.stat(on_disk).st_mtime) == DEFAULT_LAST_MODIFIED_EPOCH
    assert stat.S_IMODE(os.stat(on_disk).st_mode) == 0o444
    bare = mount.state / "files" / "untyped.bin"
    assert os.getxattr(bare, URL_ATTR).decode() == faultserver.url("/untyped.bin")
    expect_errno(errno.ENODATA, os.getxattr, bare, MIME_ATTR)
    assert mount.unmount() == 0
    assert os.getxattr(on_disk, URL_ATTR).decode() == clean, "gone when nothing is mounted"
