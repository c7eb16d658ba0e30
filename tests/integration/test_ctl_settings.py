"""R30, R31: reading a `ctl` shows the settings in force, in the words the
file takes, so every line can be written back; `grep -r` and `rsync -a`
over the mount meet no unreadable file."""

import os
import subprocess

from support.files import KiB, MiB
from support.mount import write_command


def _cat(path):
    result = subprocess.run(["cat", str(path)], capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert os.stat(path).st_size == len(result.stdout.encode()), "stat's size is not what a read gives"
    return result.stdout


def test_r30_r31_cat_ctl_shows_the_settings_in_force(make_mount, faultserver):
    mount = make_mount("--max-active", "3")
    task = mount.add_one(faultserver.add("/s.bin", size=8 * MiB, throttle=MiB))
    assert _cat(mount.mp / "ctl") == "max-active 3\nlimit 0\nsplit 4\n"
    assert _cat(mount.task_dir(task) / "ctl") == "limit 0\nsplit 4\n"
    mount.root_ctl("max-active 5")
    mount.root_ctl("limit 2M")
    mount.root_ctl("split 6")
    assert _cat(mount.mp / "ctl") == "max-active 5\nlimit 2M\nsplit 6\n"
    # Without a split of its own the task shows the mount's; the global
    # limit is the root ctl's, not the task's own.
    assert _cat(mount.task_dir(task) / "ctl") == "limit 0\nsplit 6\n"
    mount.ctl(task, "limit 1.5MiB")
    mount.ctl(task, "split 4")
    assert _cat(mount.task_dir(task) / "ctl") == "limit 1.5M\nsplit 4\n"
    mount.ctl(task, "limit 1000")
    assert _cat(mount.task_dir(task) / "ctl") == "limit 1000\nsplit 4\n"


def test_r30_r31_each_line_written_back_is_accepted_and_changes_nothing(mount, faultserver):
    task = mount.add_one(faultserver.add("/w.bin", size=8 * MiB, throttle=MiB), "max-download-limit=768K")
    mount.root_ctl("limit 3M")
    for path in (mount.mp / "ctl", mount.task_dir(task) / "ctl"):
        shown = _cat(path)
        for line in shown.splitlines():
            write_command(path, line)  # raises on EINVAL
        assert _cat(path) == shown, path
    assert _cat(mount.task_dir(task) / "ctl") == "limit 768K\nsplit 4\n"
    assert "refused" not in mount.log(), mount.log()


def test_r30_a_ctl_read_twice_in_one_handle_is_one_text(mount, faultserver):
    task = mount.add_one(faultserver.add("/o.bin", size=8 * MiB, throttle=MiB))
    path = mount.task_dir(task) / "ctl"
    fd = os.open(path, os.O_RDWR)
    try:
        first = os.pread(fd, 4096, 0)
        os.write(fd, b"limit 64K\n")  # a write through the same handle still works
        assert os.pread(fd, 4096, 0) == first, "the text is the one made at open"
    finally:
        os.close(fd)
    assert _cat(path) == "limit 64K\nsplit 4\n", "a new open is fresh"


def test_r30_grep_and_rsync_over_the_mount_meet_no_unreadable_file(mount, faultserver, tmp_path):
    task = mount.add_one(faultserver.add("/done.bin", size=64 * KiB))
    mount.wait_state(task, "completed")
    mount.root_ctl("limit 2M")
    grep = subprocess.run(["grep", "-r", "--exclude-dir=queue", "limit", str(mount.mp)],
                          capture_output=True, text=True, timeout=30)
    assert grep.returncode == 0, grep
    assert f"{mount.mp}/ctl:limit 2M" in grep.stdout.splitlines(), grep.stdout
    dest = tmp_path / "backup"
    rsync = subprocess.run(["rsync", "-a", "--exclude=/queue", f"{mount.mp}/", f"{dest}/"],
                           capture_output=True, text=True, timeout=60)
    assert rsync.returncode == 0, rsync
    assert (dest / "ctl").read_text() == "max-active 3\nlimit 2M\nsplit 4\n"
    assert (dest / "files" / "done.bin").read_bytes() == (mount.mp / "files" / "done.bin").read_bytes()
    assert not (dest / "queue").exists()
