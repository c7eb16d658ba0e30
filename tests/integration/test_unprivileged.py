"""A mount made without privilege, as nearly every user makes one (issue
27, §9 reads): no CAP_SYS_ADMIN means no FUSE passthrough, so every read of
files/ comes through the daemon (its splice path). CI runs as root, where
the kernel reads finished files itself; these tests run the daemon as a
user of its own so that path is exercised too.

A mount without allow_other answers its owner alone (root included), so
everything on the mount is done by scripts run as that user."""

import hashlib
import json
import os
import re
import subprocess

import pytest

from support.cli import one_line_message
from support.files import MiB, content, resident_bytes, sha256_file
from support.mount import mounted_in_table
from support.waiting import wait_until

# Run as the mount's user: adds URL, waits (deadline) until its task is
# completed or failed, and leaves the state in `state`.
_DOWNLOAD = r"""
import sys, time
mnt, url = sys.argv[1], sys.argv[2]
with open(f"{mnt}/queue/new", "r+") as new:
    new.write(url + "\n")
    new.flush()
    new.seek(0)
    task = new.read().split()[0]
deadline = time.monotonic() + 60
while True:
    status = open(f"{mnt}/queue/{task}/status").read()
    state = next(line[len("state: "):] for line in status.splitlines() if line.startswith("state: "))
    if state in ("completed", "failed"):
        break
    if time.monotonic() > deadline:
        sys.exit(f"still {state} after 60 s")
    time.sleep(0.05)
"""

# Then reads the finished file every way a program does and prints what
# each read gave.
_DOWNLOAD_AND_READ = _DOWNLOAD + r"""
import hashlib, json, mmap, os
name, size = sys.argv[3], int(sys.argv[4])
path = f"{mnt}/files/{name}"
digest = lambda data: hashlib.sha256(data).hexdigest()
out = {"state": state, "uid": os.stat(path).st_uid}
with open(path, "rb", buffering=0) as f:
    out["whole"] = digest(f.read())
    blocks = []
    f.seek(0)
    while chunk := f.read(MiB := 1 << 20):
        blocks.append(chunk)
    out["blocks"] = digest(b"".join(blocks))
    # Reads at places out of order, across request boundaries.
    out["pread"] = [digest(os.pread(f.fileno(), n, at)) for at, n in
                    ((size - 5000, 5000), (131071, 2), (3 * (1 << 20) - 7, 300000), (0, 1))]
    with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as mapped:
        out["mmap"] = digest(mapped[1 << 20: 2 << 20])
out["again"] = digest(open(path, "rb").read())
print(json.dumps(out))
"""


def test_files_read_through_the_daemon_for_a_user_without_privilege(make_mount, unprivileged_user, nginx,
                                                                     nginx_file):
    size = 9 * MiB + 123
    name, digest = nginx_file("unprivileged.bin", size, seed=27)
    mount = make_mount(user=unprivileged_user)
    log = wait_until(lambda: (text := mount.output()) and "files/ is read" in text and text,
                     timeout=10, what="the daemon to log how files/ is read")
    assert "files/ is read through the daemon: " in log, log
    run = mount.as_user(_DOWNLOAD_AND_READ, str(mount.mp), nginx.url("/" + name), name, str(size), timeout=90)
    assert run.returncode == 0, run.stderr + mount.as_user("import sys; print(open(sys.argv[1]).read())",
                                                           str(mount.mp / "log")).stdout
    got = json.loads(run.stdout)
    expected = content(27, size)
    assert got["state"] == "completed"
    assert got["uid"] == unprivileged_user.pw_uid
    assert got["whole"] == digest
    assert got["blocks"] == digest
    assert got["again"] == digest, "a second read (from the kernel's cache) must give the same bytes"
    assert got["pread"] == [hashlib.sha256(expected[at:at + n]).hexdigest() for at, n in
                            ((size - 5000, 5000), (131071, 2), (3 * MiB - 7, 300000), (0, 1))]
    assert got["mmap"] == hashlib.sha256(expected[MiB:2 * MiB]).hexdigest()
    # The daemon ran as the user: its state dir and finished file are the user's.
    assert (mount.state / "files" / name).stat().st_uid == unprivileged_user.pw_uid


def test_a_user_without_privilege_alone_reaches_the_mount(make_mount, unprivileged_user):
    """R6 as a normal user makes it: the mount is the user's (no
    allow_other), so even root is refused, and the user gets every file."""
    mount = make_mount(user=unprivileged_user)
    run = mount.as_user("import os, sys; print(sorted(os.listdir(sys.argv[1])))", str(mount.mp))
    assert run.returncode == 0, run.stderr
    assert "'files'" in run.stdout and "'queue'" in run.stdout
    try:
        listing = mount.mp.joinpath("queue").exists()
    except PermissionError:
        listing = False
    assert not listing, "a mount without allow_other must refuse other users, root included"


def test_a_daemon_short_of_threads_fails_to_mount_and_says_why(make_mount, unprivileged_user):
    """A user at their process limit (RLIMIT_NPROC counts threads too): the
    daemon cannot make the threads it needs before it mounts (the catalog's
    loader, the engine, the loop, the notifier). It must neither mount a
    filesystem nobody answers nor wait for ever for a thread that never
    came: it fails at once, names the thread and says why."""
    user = unprivileged_user
    mount = make_mount(user=user, start=False)
    mount.mp.mkdir(parents=True, exist_ok=True)
    os.chown(mount.mp, user.pw_uid, user.pw_gid)
    # Three: the main thread and two more, fewer than the daemon makes.
    run = subprocess.run(["prlimit", "--nproc=3", *mount.command()], capture_output=True, text=True,
                         timeout=60, user=user.pw_uid, group=user.pw_gid, extra_groups=[],
                         env={**os.environ, "HOME": user.pw_dir, "USER": user.pw_name})
    assert run.returncode != 0, run
    assert one_line_message(run.stderr), f"want a one-line message, got {run.stderr!r}"
    assert re.search(r"cannot start the downloadfs-[a-z]+ thread \(Resource temporarily unavailable\): "
                     r"the system is out of threads or memory; free some and try again$", run.stderr.strip()), run.stderr
    assert not mounted_in_table(mount.mp)


# Downloads, prints the task's id and says whether it completed;
# `_READ_THROUGH` reads a file once, front to back, and prints its sha256.
_DOWNLOAD_ONLY = _DOWNLOAD + r"""
print(task)
sys.exit(0 if state == "completed" else f"the download ended {state}")
"""
_READ_THROUGH = r"""
import hashlib, sys
digest = hashlib.sha256()
with open(sys.argv[1], "rb", buffering=0) as f:
    while chunk := f.read(1 << 20):
        digest.update(chunk)
print(digest.hexdigest())
"""


@pytest.mark.parametrize("where", ["files", "queue"])
def test_a_file_read_through_the_daemon_is_cached_once(make_mount, unprivileged_user, nginx, nginx_file, where):
    """Issue 27, point 3: without passthrough the kernel keeps what it read
    in the FUSE file's cache (keep_cache); the daemon lets the backing
    file's copy go behind the reader (BackingCacheRelease), so a file read
    through files/ — or through its completed task's data file
    (queue/<id>/<name>, R23), served the
    same way — does not take its size twice in memory."""
    size = 40 * MiB + 123
    name, digest = nginx_file(f"cached-once-{where}.bin", size, seed=41)
    mount = make_mount(user=unprivileged_user)
    run = mount.as_user(_DOWNLOAD_ONLY, str(mount.mp), nginx.url("/" + name), timeout=90)
    assert run.returncode == 0, run.stderr
    path = mount.mp / "files" / name if where == "files" else mount.mp / "queue" / run.stdout.strip() / name
    backing = mount.state / "files" / name
    # The download let most of its pages go (WrittenCacheRelease): read the
    # backing file straight, so that they are cached, or this test could not fail.
    assert sha256_file(backing) == digest
    before = resident_bytes(backing)
    assert before >= 0.9 * size, f"only {before} of {size} bytes cached after reading the backing file"
    run = mount.as_user(_READ_THROUGH, str(path), timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == digest
    after = resident_bytes(backing)
    # What is left: the window before the last 4 MiB boundary the read
    # crossed, and the part after that boundary.
    assert after <= 12 * MiB, f"{after} of {size} bytes still cached in the backing file after the read"
    # Read again: from the kernel's cache of the FUSE file, the same bytes.
    run = mount.as_user(_READ_THROUGH, str(path), timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == digest
