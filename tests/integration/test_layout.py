"""R6–R7: what the mount looks like, who may touch it, and how fresh it is."""

import errno
import os
import stat
import subprocess
import time

import pytest

from support.files import KiB, MiB, content, content_range, read_range, sha256_file, sha256_of
from support.mount import expect_errno
from support.waiting import wait_until, within

NOBODY = 65534
REFUSED = (errno.EPERM, errno.EACCES)


def _completed_task(mount, faultserver, path="/m.bin", size=1000):
    task = mount.add_one(faultserver.add(path, size=size))
    mount.wait_state(task, "completed")
    return task


def test_r6_modes(mount, faultserver):
    task = _completed_task(mount, faultserver)
    expected = {
        "status": 0o444, "log": 0o444, "ctl": 0o644, "queue/new": 0o644,
        f"queue/{task}/status": 0o444, f"queue/{task}/url": 0o444,
        f"queue/{task}/log": 0o444, f"queue/{task}/wait": 0o444,
        f"queue/{task}/ctl": 0o644, f"queue/{task}/m.bin": 0o444, "files/m.bin": 0o444,
    }
    for rel, mode in expected.items():
        info = os.stat(mount.mp / rel)
        assert stat.S_ISREG(info.st_mode), f"{rel} is not a regular file"
        assert stat.S_IMODE(info.st_mode) == mode, f"{rel}: {oct(stat.S_IMODE(info.st_mode))}"
    for rel in ["", "queue", "files", f"queue/{task}"]:
        assert stat.S_ISDIR(os.stat(mount.mp / rel).st_mode), f"{rel or '/'} is not a directory"


def test_r6_owner_is_mounting_user(mount, faultserver):
    task = _completed_task(mount, faultserver)
    for rel in ["", "queue", "files", "status", "ctl", "log", "queue/new", f"queue/{task}",
                f"queue/{task}/status", f"queue/{task}/ctl", f"queue/{task}/m.bin",
                "files/m.bin"]:
        info = os.stat(mount.mp / rel)
        assert (info.st_uid, info.st_gid) == (os.getuid(), os.getgid()), rel


def _as_nobody(args, cwd):
    # chdir happens before the uid switch, so only the mount itself can refuse.
    return subprocess.run(args, cwd=cwd, user=NOBODY, group=NOBODY, extra_groups=[],
                          capture_output=True, text=True, timeout=10)


def test_r6_other_user_refused(mount):
    for args in (["cat", "status"], ["ls", "queue"], ["stat", "."]):
        result = _as_nobody(args, mount.mp)
        assert result.returncode != 0, f"{args} as nobody succeeded: {result.stdout}"
        assert "Permission denied" in result.stderr, result.stderr


def test_r6_allow_other_lets_others_read(make_mount):
    mount = make_mount("-o", "allow_other")
    result = _as_nobody(["cat", "status"], mount.mp)
    assert result.returncode == 0, result.stderr
    # ...but not write what only the owner may write.
    result = _as_nobody(["sh", "-c", "echo http://127.0.0.1:9/x > queue/new"], mount.mp)
    assert result.returncode != 0 and "Permission denied" in result.stderr, result
    assert mount.task_ids() == []


def _snapshot(mount, task):
    return {
        "root": sorted(os.listdir(mount.mp)),
        "queue": sorted(os.listdir(mount.mp / "queue")),
        "files": sorted(os.listdir(mount.mp / "files")),
        "task": sorted(os.listdir(mount.task_dir(task))),
        "status": mount.read(f"queue/{task}/status"),
        "url": mount.read(f"queue/{task}/url"),
        "table": mount.root_status(),
        "data": (mount.mp / "files" / "m.bin").read_bytes(),
    }


def test_r6_refusals(mount, faultserver):
    task = _completed_task(mount, faultserver)
    before = _snapshot(mount, task)
    for rel in ["status", "log", f"queue/{task}/status", f"queue/{task}/url",
                f"queue/{task}/log", f"queue/{task}/wait", f"queue/{task}/m.bin", "files/m.bin"]:
        expect_errno(errno.EACCES, os.open, mount.mp / rel, os.O_WRONLY)
        expect_errno(errno.EACCES, os.open, mount.mp / rel, os.O_RDWR | os.O_TRUNC)
    # files/ takes folders (R35, test_folders.py); nothing else does.
    for rel in ["", "queue", f"queue/{task}"]:
        expect_errno(REFUSED, os.mkdir, mount.mp / rel / "newdir")
    for rel in ["", f"queue/{task}"]:
        expect_errno(REFUSED, os.open, mount.mp / rel / "newfile",
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    assert _snapshot(mount, task) == before, "a refused operation changed the mount"


def _metadata(path):
    info = os.stat(path)
    return (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_mtime_ns)


def test_r6_chmod_chown_utime_refused_everywhere(mount, faultserver):
    task = _completed_task(mount, faultserver)
    # The files whose writes are commands used to answer 0 and change nothing.
    writable = ["queue/new", "ctl", f"queue/{task}/ctl"]
    others = ["status", f"queue/{task}/status", "files/m.bin", "queue", f"queue/{task}"]
    for rel in writable + others:
        path = mount.mp / rel
        before = _metadata(path)
        expect_errno(errno.EACCES, os.chmod, path, 0o666)
        expect_errno(errno.EACCES, os.chown, path, NOBODY, -1)
        expect_errno(errno.EACCES, os.chown, path, -1, NOBODY)
        expect_errno(errno.EACCES, os.utime, path, (0, 0))
        expect_errno(errno.EACCES, os.utime, path)  # touch: "now"
        assert _metadata(path) == before, rel
    # setxattr is refused as well, and truncating a file with content.
    expect_errno(errno.EACCES, os.setxattr, mount.mp / "queue/new", "user.x", b"1")
    expect_errno(errno.EACCES, os.truncate, mount.mp / "files/m.bin", 0)
    # The one change accepted: O_TRUNC on the files whose writes are commands.
    url = faultserver.add("/trunc.bin", size=1000)
    result = subprocess.run(["sh", "-c", f'echo "{url}" > "{mount.new}"'],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert len(mount.task_ids()) == 2
    result = subprocess.run(["sh", "-c", f'echo resume-all > "{mount.mp}/ctl"'],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    os.truncate(mount.new, 0)
    expect_errno(errno.EACCES, os.truncate, mount.new, 10)


def test_r7_status_is_fresh(mount, faultserver):
    task = mount.add_one(faultserver.add("/slow.bin", size=16 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, 1)
    first_status, first_table = mount.read(f"queue/{task}/status"), mount.root_status()
    time.sleep(1.0)  # the requirement itself: two reads a second apart
    second_status, second_table = mount.read(f"queue/{task}/status"), mount.root_status()
    assert first_status != second_status
    assert first_table != second_table


def test_r7_a_status_kept_open_is_fresh_at_every_read_from_the_start(mount, faultserver):
    """A monitor that keeps `status` (and the root `status`) open and reads
    it again from offset 0, as with /proc files, sees new progress: every
    read is fresh, not only every open."""
    task = mount.add_one(faultserver.add("/kept-open.bin", size=16 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, 1)
    status = os.open(mount.mp / "queue" / str(task) / "status", os.O_RDONLY)
    table = os.open(mount.mp / "status", os.O_RDONLY)
    try:
        first, first_table = os.pread(status, 65536, 0), os.pread(table, 65536, 0)
        later = mount.add_one(faultserver.add("/added-after-open.bin", size=1000))
        wait_until(lambda: os.pread(status, 65536, 0) != first, 10, "the open status to show new progress")
        wait_until(lambda: f"added-after-open.bin".encode() in os.pread(table, 65536, 0), 10,
                   "the open root status to show a task added after the open")
        assert os.pread(table, 65536, 0) != first_table
        mount.wait_state(later, "completed")
    finally:
        os.close(status)
        os.close(table)


@pytest.mark.parametrize("log", ["log", "queue/{task}/log"])
def test_r7_a_log_kept_open_is_followed_like_tail_f(mount, faultserver, log):
    """`tail -f` keeps the log open and reads on from where it stopped: the
    lines added since come there, whole."""
    task = mount.add_one(faultserver.add("/followed.bin", size=16 * MiB, throttle=1 * MiB))
    mount.wait_downloaded(task, 1)
    path = mount.mp / log.format(task=task)
    fd = os.open(path, os.O_RDONLY)
    try:
        seen = b""
        while chunk := os.read(fd, 4096):
            seen += chunk
        if log == "log":
            later = mount.add_one(faultserver.add("/added-while-followed.bin", size=1000))
            marker = b"added-while-followed.bin"
        else:
            mount.ctl(task, "pause")
            marker = b"paused"
        before = len(seen)

        def followed():
            nonlocal seen
            seen += os.read(fd, 4096)
            return marker in seen[before:]

        wait_until(followed, 10, f"a read at the end of the open {log} to bring the new lines")
        assert seen.endswith(b"\n")
        assert seen[before:] in path.read_bytes()
        if log == "log":
            mount.wait_state(later, "completed")
    finally:
        os.close(fd)


def test_r7_growing_data_file_size(mount, faultserver):
    # A server that sends no Content-Length: the total is unknown, so the
    # data file grows as bytes land (R7, R23). With a known total it has its
    # full size from the start (test_read_before_done.py).
    size = 6 * MiB
    task = mount.add_one(faultserver.add("/grow.bin", size=size, throttle=2 * MiB,
                                         length_unknown=True))
    mount.wait_state(task, "downloading")
    data = mount.task_dir(task) / "grow.bin"
    sizes = []

    def grew_three_times():
        st_size = os.stat(data).st_size
        if not sizes or st_size != sizes[-1]:
            sizes.append(st_size)
        return len(sizes) >= 4

    wait_until(grew_three_times, 10, "the data file to grow")
    assert sizes == sorted(sizes) and sizes[-1] < size, sizes
    assert mount.status(task)["total"] == "unknown"


def test_r7_task_dir_exists_at_close(mount, faultserver):
    url = faultserver.add("/a.bin", size=1000)
    mount.write_new(url + "\n")
    ids = mount.task_ids()  # no waiting
    assert len(ids) == 1
    assert (mount.task_dir(ids[0]) / "url").read_text().strip() == url


def test_r7_task_dir_exists_when_ids_read(mount, faultserver):
    url = faultserver.add("/b.bin", size=1000)
    fd = os.open(mount.new, os.O_RDWR)
    try:
        os.write(fd, (url + "\n").encode())
        task = int(os.pread(fd, 100, 0).decode().split()[0])
        assert os.path.isdir(mount.task_dir(task)), "task dir missing before close"
    finally:
        os.close(fd)


def test_r7_completed_file_listed_within_a_second(mount, faultserver):
    task = mount.add_one(faultserver.add("/c.bin", size=512 * KiB, throttle=MiB))
    mount.wait_state(task, "completed")
    wait_until(lambda: "c.bin" in os.listdir(mount.mp / "files"), 1.0, "c.bin in files/")
    assert (mount.mp / "files" / "c.bin").read_bytes() == content(1, 512 * KiB)


# The names every queue/<id>/ holds beside its data file (R20, R22, R30).
FIXED_NAMES = ("status", "url", "ctl", "log", "wait")


@pytest.mark.parametrize("name, via", [(name, "out=") for name in FIXED_NAMES]
                         + [("status", "Content-Disposition")])
def test_r23_a_download_named_like_a_fixed_entry_is_reachable(mount, faultserver, name, via):
    """A download named `status` (by out= or by the server) keeps that name
    in files/ (R17), but in queue/<id>/ its data file takes the next free
    name, `status (1)`: every name there is listed once, and the data can
    be read while it downloads and after."""
    size = 4 * MiB
    seed = 260 + FIXED_NAMES.index(name)
    res_path = f"/fixed-{name}.bin"
    if via == "out=":
        task = mount.add_one(faultserver.add(res_path, size=size, seed=seed, throttle=MiB), f"out={name}")
    else:
        task = mount.add_one(faultserver.add(res_path, size=size, seed=seed, throttle=MiB,
                                             content_disposition=f'attachment; filename="{name}"'))
    status = mount.wait_downloaded(task, 64 * KiB)
    assert status["name"] == name, status
    folder = mount.task_dir(task)
    data = folder / f"{name} (1)"
    listing = os.listdir(folder)
    assert sorted(listing) == sorted([n for n in FIXED_NAMES if n != "wait"] + [data.name]), listing
    inodes = {n: os.stat(folder / n).st_ino for n in listing}
    assert len(set(inodes.values())) == len(listing), f"two names share an inode: {inodes}"
    # The fixed entries are still themselves.
    assert mount.status(task)["id"] == str(task)
    assert os.stat(folder / "ctl").st_mode & 0o777 == 0o644
    # The data, while it downloads: held bytes and bytes far ahead.
    assert os.stat(data).st_size == size
    for offset in (0, 3 * MiB + 4321):
        got = within(lambda: read_range(data, offset, 64 * KiB), 5, f"a read at {offset} of {data.name}")
        assert got == content_range(seed, offset, offset + 64 * KiB), f"the bytes at {offset} of {data.name}"
    assert mount.status(task)["state"] == "downloading", "the download ended before the reads"
    faultserver.update(res_path, throttle=None)
    mount.wait_state(task, "completed", timeout=30)
    assert sorted(os.listdir(folder)) == sorted(listing)
    assert sha256_file(data) == sha256_of(seed, size), f"{data.name} once completed"
    assert sha256_file(mount.mp / "files" / name) == sha256_of(seed, size), f"files/{name}"
    assert mount.read(f"queue/{task}/wait") == "completed\n"


def test_statfs_shows_the_state_dirs_filesystem(mount):
    """`df MOUNT` and a file manager's free space show the filesystem the
    downloads land on (the state dir's), not a filesystem of 0 bytes."""
    ours, backing = os.statvfs(mount.mp), os.statvfs(mount.state / "files")
    assert ours.f_blocks > 0 and ours.f_bsize > 0
    assert (ours.f_blocks, ours.f_bsize, ours.f_namemax) == (backing.f_blocks, backing.f_bsize, backing.f_namemax)
    # Free space moves as others write; the two readings are close, not equal.
    assert abs(ours.f_bavail - backing.f_bavail) * backing.f_frsize < 256 << 20
