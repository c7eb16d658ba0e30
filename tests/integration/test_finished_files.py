"""R40, R42, R43: finished files in files/ and STATE/files/."""

import errno
import hashlib
import mmap
import os
import shutil
import stat
import subprocess
import time

from support.faultserver import DEFAULT_LAST_MODIFIED_EPOCH
from support.files import KiB, MiB, content, sha256_file, sha256_of
from support.mount import expect_errno
from support.waiting import wait_until


def test_r40_files_listing_size_mode_mtime(mount, faultserver):
    dated = mount.add_one(faultserver.add("/dated.bin", size=300 * KiB))
    mount.wait_state(dated, "completed")
    started = time.time()
    undated = mount.add_one(faultserver.add("/undated.bin", size=200 * KiB, no_validators=True))
    mount.wait_state(undated, "completed")
    finished = time.time()
    assert mount.files() == ["dated.bin", "undated.bin"]
    info = os.stat(mount.mp / "files" / "dated.bin")
    assert stat.S_ISREG(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o444
    assert info.st_size == 300 * KiB
    assert int(info.st_mtime) == DEFAULT_LAST_MODIFIED_EPOCH, "mtime is not the server's Last-Modified"
    info = os.stat(mount.mp / "files" / "undated.bin")
    assert info.st_size == 200 * KiB
    assert started - 2 <= info.st_mtime <= finished + 2, "mtime is not the completion time"


def test_r40_r34_r42_files_and_state_files_show_one_mtime_which_forget_keeps(mount, faultserver):
    """The mtime `files/` shows is the one the file in STATE/files has, to
    the nanosecond, and `forget` (which then shows the disk's) changes
    nothing: without a Last-Modified (the time it landed, whole seconds) and
    with one no filesystem keeps (year 1: the earliest ext4 does)."""
    cases = {"no-date.bin": dict(no_validators=True),
             "year-one.bin": dict(last_modified="Mon, 01 Jan 0001 00:00:00 GMT")}
    tasks = {name: mount.add_one(faultserver.add("/" + name, size=1000, **options)) for name, options in cases.items()}
    for name, task in tasks.items():
        mount.wait_state(task, "completed")
        shown, stored = os.stat(mount.mp / "files" / name), os.stat(mount.state / "files" / name)
        assert shown.st_mtime_ns == stored.st_mtime_ns, f"{name}: files/ {shown.st_mtime_ns}, STATE/files {stored.st_mtime_ns}"
        mount.ctl(task, "forget")
        wait_until(lambda: task not in mount.task_ids(), 10, f"task {task} to be forgotten")
        assert os.stat(mount.mp / "files" / name).st_mtime_ns == shown.st_mtime_ns, f"{name}: forget changed its mtime"
    assert os.stat(mount.state / "files" / "year-one.bin").st_mtime == -(2 ** 31)


def test_r40_byte_identical_sha256(mount, nginx, nginx_file, tmp_path):
    size = 48 * MiB
    name, digest = nginx_file("identical.bin", size, seed=42)
    task = mount.add_one(nginx.url(f"/{name}"))
    mount.wait_state(task, "completed", timeout=60)
    path = mount.mp / "files" / name
    assert sha256_file(path) == digest
    result = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, timeout=60)
    assert result.stdout.split()[0] == digest
    shutil.copyfile(path, tmp_path / "copy.bin")
    assert sha256_file(tmp_path / "copy.bin") == digest
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ) as mapped:
        assert hashlib.sha256(mapped).hexdigest() == digest
    assert sha256_file(mount.state / "files" / name) == digest
    assert sha256_file(mount.task_dir(task) / name) == digest


def test_r40_mv_renames(mount, faultserver):
    task = mount.add_one(faultserver.add("/a.bin", size=10 * KiB, seed=3))
    mount.wait_state(task, "completed")
    os.rename(mount.mp / "files" / "a.bin", mount.mp / "files" / "b.bin")
    assert mount.files() == ["b.bin"]
    assert mount.status(task)["name"] == "b.bin"
    assert (mount.state / "files" / "b.bin").read_bytes() == content(3, 10 * KiB)
    assert not (mount.state / "files" / "a.bin").exists()
    assert (mount.task_dir(task) / "b.bin").read_bytes() == content(3, 10 * KiB)
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["b.bin"], "the catalog did not follow the rename"
    assert mount.status(task)["name"] == "b.bin"


def test_r40_mv_to_a_name_that_is_not_utf8_or_not_sanitised_is_refused(mount, faultserver):
    task = mount.add_one(faultserver.add("/a.bin", size=10 * KiB, seed=3))
    mount.wait_state(task, "completed")
    files = bytes(mount.mp / "files")
    old = files + b"/a.bin"
    # Not UTF-8 (U+FFFD used to be stored instead), then names R17 would change.
    for new in (b"\xff\xfe.bin", b"a\xc3.bin", b".hidden.bin", b"tab\there.bin", b"cr\r.bin"):
        expect_errno(errno.EINVAL, os.rename, old, files + b"/" + new)
    assert os.listdir(files) == [b"a.bin"]
    assert mount.status(task)["name"] == "a.bin"
    assert sorted(os.listdir(mount.state / "files")) == ["a.bin"]
    assert "renamed" not in mount.task_log(task)
    # A name that is not UTF-8 names nothing here: ENOENT, not a repaired lookup.
    expect_errno(errno.ENOENT, os.stat, files + b"/\xff\xfe.bin")
    expect_errno(errno.ENOENT, os.unlink, files + b"/\xff\xfe.bin")
    expect_errno(errno.ENOENT, os.rename, files + b"/\xff.bin", files + b"/b.bin")
    expect_errno(errno.ENOENT, os.rmdir, bytes(mount.mp / "queue") + b"/\xff")
    # ... and no file can be made under such a name (R14 drop-ins included).
    expect_errno(errno.EINVAL, os.open, bytes(mount.mp / "queue") + b"/\xff.txt",
                 os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    assert mount.task_ids() == [task]
    assert (mount.mp / "files" / "a.bin").read_bytes() == content(3, 10 * KiB)
    os.rename(old, files + b"/caf\xc3\xa9.bin")  # valid UTF-8 is fine
    assert mount.files() == ["caf\u00e9.bin"]


def test_r40_write_refused(mount, faultserver):
    task = mount.add_one(faultserver.add("/w.bin", size=10 * KiB, seed=3))
    mount.wait_state(task, "completed")
    path = mount.mp / "files" / "w.bin"
    for flags in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_APPEND, os.O_WRONLY | os.O_TRUNC):
        expect_errno(errno.EACCES, os.open, path, flags)
    expect_errno((errno.EACCES, errno.EPERM), os.truncate, path, 0)
    assert path.read_bytes() == content(3, 10 * KiB)
    assert os.stat(path).st_size == 10 * KiB


def test_r42_state_files_dir(mount, faultserver):
    size = 6 * MiB
    slow = mount.add_one(faultserver.add("/slow.bin", size=size, seed=4, throttle=2 * MiB))
    mount.wait_downloaded(slow, MiB)
    partial = [os.path.join(d, n) for d, _, names in os.walk(mount.state / "partial") for n in names]
    assert partial and any(os.path.getsize(p) > 0 for p in partial), partial
    assert not (mount.state / "files" / "slow.bin").exists()
    mount.wait_state(slow, "completed")
    assert sha256_file(mount.state / "files" / "slow.bin") == sha256_of(4, size)
    assert mount.unmount() == 0
    assert sha256_file(mount.state / "files" / "slow.bin") == sha256_of(4, size), \
        "STATE/files/ not reachable with nothing mounted"


def test_r43_error_body_never_saved(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    task = mount.add_one(faultserver.add("/missing.bin", status=404, status_times=None))
    status = mount.wait_state(task, "failed")
    assert "404" in status["error"]
    assert mount.files() == []
    state_files = mount.state / "files"
    assert not state_files.exists() or list(state_files.iterdir()) == []
    for entry in os.listdir(mount.task_dir(task)):
        if entry not in ("status", "url", "ctl", "log", "wait"):
            assert os.path.getsize(mount.task_dir(task) / entry) == 0, f"{entry} holds the error page"
    for dirpath, _, names in os.walk(mount.state):
        for name in names:
            if not name.startswith("catalog"):
                with open(os.path.join(dirpath, name), "rb") as handle:
                    assert b"<h1>404" not in handle.read(), f"{name} holds the error page"


def test_r43_no_half_file_in_files(mount, faultserver):
    size = 4 * MiB
    task = mount.add_one(faultserver.add("/half.bin", size=size, seed=6, throttle=2 * MiB))
    mount.wait_state(task, "downloading")
    while mount.status(task)["state"] != "completed":
        listed = mount.files()
        if listed:
            # Listed only once whole.
            assert os.stat(mount.mp / "files" / "half.bin").st_size == size
            assert mount.status(task)["state"] == "completed"
        time.sleep(0.02)
    wait_until(lambda: mount.files() == ["half.bin"], 1, "the whole file in files/")
    assert sha256_file(mount.mp / "files" / "half.bin") == sha256_of(6, size)


def _kernel_at_least(major, minor):
    release = os.uname().release.split("-")[0].split(".")
    return (int(release[0]), int(release[1])) >= (major, minor)


def test_files_read_by_the_kernel_itself_where_it_can(mount, faultserver):
    """§9 reads of files/: with root on Linux 6.9+, the daemon hands the
    kernel the finished file (FUSE passthrough) and says so in its log;
    otherwise it says why not and serves reads itself. Either way every
    way of reading gives the server's bytes: several opens of one file at
    once, mmap, a file whose task is removed while it is open, and a file
    opened again after every earlier open was closed."""
    log = wait_until(lambda: (text := mount.output()) and "files/ is read" in text and text,
                     timeout=10, what="the daemon to log how files/ is read")
    if os.geteuid() == 0 and _kernel_at_least(6, 9):
        assert "files/ is read by the kernel straight from the state dir (FUSE passthrough)" in log, log
    else:
        assert "files/ is read through the daemon: " in log, log
    size = 3 * MiB + 123
    task = mount.add_one(faultserver.add("/through.bin", size=size, seed=11))
    mount.wait_state(task, "completed")
    path = mount.mp / "files" / "through.bin"
    expected = content(11, size)
    first = open(path, "rb")
    second = open(path, "rb")
    try:
        # Interleaved, at different places: one backing file serves both.
        first.seek(size - 1000)
        assert second.read(4096) == expected[:4096]
        assert first.read() == expected[size - 1000:]
        with open(path, "rb") as third, mmap.mmap(third.fileno(), 0, prot=mmap.PROT_READ) as mapped:
            assert mapped[MiB:MiB + 10] == expected[MiB:MiB + 10]
        assert second.read() == expected[4096:]
    finally:
        first.close()
        second.close()
    # Every open was closed: the next one starts afresh.
    assert path.read_bytes() == expected
    held = open(path, "rb")
    try:
        os.unlink(path)  # R32: removes the task and its file
        assert "through.bin" not in mount.files()
        assert not (mount.state / "files" / "through.bin").exists()
        assert held.read() == expected, "an open finished file must stay readable after its task is removed"
    finally:
        held.close()
