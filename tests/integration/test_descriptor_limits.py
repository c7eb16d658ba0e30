"""R53, R54, R40: the daemon's descriptors. Every file open in files/ holds
one of the daemon's descriptors (FUSE passthrough, or reads through the
daemon); running out must neither fail downloads for good nor make opens
answer EIO."""

import errno
import os
import resource

from support.files import KiB, MiB
from support.waiting import wait_until


def _limits(pid):
    """The (soft, hard) limit of open files of process `pid`, from /proc."""
    with open(f"/proc/{pid}/limits", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return int(soft), int(hard)
    raise AssertionError(f"no open-files line in /proc/{pid}/limits")


def test_the_daemon_raises_its_soft_descriptor_limit_to_the_hard_one(make_mount):
    """A shell's soft limit (often 1,024) is not the daemon's budget: it
    raises it at start, as daemons do."""
    mount = make_mount(start=False)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(256, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        mount.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with open("/proc/sys/fs/nr_open", encoding="utf-8") as handle:
        ceiling = int(handle.read())
    assert _limits(mount.pid) == (min(hard, ceiling), hard)


def test_files_held_open_do_not_fail_other_downloads(mount, faultserver):
    """Out of descriptors (a program holds many finished files open), an
    open in files/ fails with EMFILE, not EIO, and a download that cannot
    open its data retries instead of failing for good with a disk hint;
    it completes once the files are closed."""
    done = mount.add_one(faultserver.add("/held.bin", size=64 * KiB))
    mount.wait_state(done, "completed")
    held_path = mount.mp / "files" / "held.bin"
    # A budget just over what the daemon uses now (its soft limit was
    # raised at start; here it is brought down, as a low hard limit would).
    in_use = len(os.listdir(f"/proc/{mount.pid}/fd"))
    _, hard = _limits(mount.pid)
    resource.prlimit(mount.pid, resource.RLIMIT_NOFILE, (in_use + 40, hard))
    held = []
    try:
        refusal = None
        for _ in range(200):
            try:
                held.append(os.open(held_path, os.O_RDONLY))
            except OSError as error:
                refusal = error
                break
        assert refusal is not None, "200 opens and the daemon never ran out"
        assert refusal.errno in (errno.EMFILE, errno.ENFILE), f"an open past the limit failed with {refusal!r}"
        task = mount.add_one(faultserver.add("/meanwhile.bin", size=MiB))
        wait_until(lambda: mount.status(task).get("error", "-") != "-", 15, "the new task to meet the limit")
        status = mount.status(task)
        # The data file is opened before any connection: that open meets the limit.
        assert status["state"] == "retrying", status
        assert status["error"].startswith("too many files open in downloadfs"), status
    finally:
        for fd in held:
            os.close(fd)
        resource.prlimit(mount.pid, resource.RLIMIT_NOFILE, (hard, hard))
    mount.wait_state(task, "completed", timeout=30)
