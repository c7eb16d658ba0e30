"""R35, R42, R17, R20: folders in files/.

`dir=FOLDER` puts the finished file at files/FOLDER/NAME; mkdir, rmdir, mv
and rm -r work inside files/ with the catalog following; names are unique
per folder; `status` shows `dir:`; STATE/files mirrors the folders.
"""

import errno
import os
import shutil
import stat
import subprocess

from support.files import KiB, content
from support.mount import expect_errno
from support.waiting import wait_until

TIMEOUT = 30


def _add(mount, faultserver, path, *options, size=16 * KiB, seed=1, **knobs):
    return mount.add_one(faultserver.add(path, size=size, seed=seed, **knobs), *options)


def _completed(mount, faultserver, path, *options, size=16 * KiB, seed=1):
    task = _add(mount, faultserver, path, *options, size=size, seed=seed)
    mount.wait_state(task, "completed")
    return task


def test_r35_dir_puts_the_file_in_its_folder_and_status_shows_it(mount, faultserver):
    task = _completed(mount, faultserver, "/a.bin", "dir=music/live 2024", seed=3)
    status = mount.status(task)
    assert status["name"] == "a.bin"
    assert status["dir"] == "music/live 2024"
    assert (mount.mp / "files" / "music" / "live 2024" / "a.bin").read_bytes() == content(3, 16 * KiB)
    assert (mount.state / "files" / "music" / "live 2024" / "a.bin").read_bytes() == content(3, 16 * KiB), "R42"
    assert "a.bin" in os.listdir(mount.task_dir(task)), "the data file in queue/<id>/ has the name alone"
    info = os.stat(mount.mp / "files" / "music")
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o755
    assert mount.files() == ["music"]
    top = _completed(mount, faultserver, "/top.bin")
    assert mount.status(top)["dir"] == "-", "a file at the top of files/ has no folder"


def test_r35_names_are_unique_per_folder(mount, faultserver):
    faultserver.add("/x.bin", size=KiB)
    url = faultserver.url("/x.bin")
    ids = mount.add(f"{url}?1\n dir=a\n out=x.bin\n{url}?2\n dir=b\n out=x.bin\n"
                    f"{url}?3\n dir=a\n out=x.bin\n{url}?4\n out=x.bin\n")
    for task in ids:
        mount.wait_state(task, "completed")
    assert [(mount.status(t)["dir"], mount.status(t)["name"]) for t in ids] == [
        ("a", "x.bin"), ("b", "x.bin"), ("a", "x (1).bin"), ("-", "x.bin")]
    assert sorted(os.listdir(mount.mp / "files" / "a")) == ["x (1).bin", "x.bin"]


def test_r35_a_bad_dir_refuses_the_write_and_adds_nothing(mount, faultserver):
    url = faultserver.add("/n.bin", size=KiB)
    for bad in ["/etc", "a/../b", "a//b", ".", "..", "music/"]:
        mount.assert_refused_write(f"{url}\n dir={bad}\n".encode())
    assert mount.task_ids() == []
    assert "dir=/etc" in mount.log()
    assert mount.files() == []


def test_r35_a_dir_part_is_sanitised_like_a_name(mount, faultserver):
    task = _completed(mount, faultserver, "/s.bin", "dir=.hidden/..inside")
    assert mount.status(task)["dir"] == "hidden/inside"
    assert (mount.mp / "files" / "hidden" / "inside" / "s.bin").exists()


def test_r35_mkdir_and_rmdir_work_in_files(mount, faultserver):
    _completed(mount, faultserver, "/taken.bin")
    files = mount.mp / "files"
    os.mkdir(files / "new")
    os.mkdir(files / "new" / "inner")
    assert stat.S_ISDIR(os.stat(files / "new" / "inner").st_mode)
    assert (mount.state / "files" / "new" / "inner").is_dir(), "R42: STATE/files mirrors the folders"
    assert sorted(os.listdir(files)) == ["new", "taken.bin"]
    expect_errno(errno.EEXIST, os.mkdir, files / "taken.bin")
    expect_errno(errno.EEXIST, os.mkdir, files / "new")
    expect_errno(errno.EINVAL, os.mkdir, files / ".hidden")
    expect_errno(errno.ENOTEMPTY, os.rmdir, files / "new")
    expect_errno(errno.ENOTDIR, os.rmdir, files / "taken.bin")
    expect_errno(errno.EISDIR, os.unlink, files / "new")
    os.rmdir(files / "new" / "inner")
    os.rmdir(files / "new")
    assert mount.files() == ["taken.bin"]
    assert not (mount.state / "files" / "new").exists()


def test_r35_a_waiting_tasks_name_cannot_become_a_folder(mount, faultserver):
    task = _add(mount, faultserver, "/slow.bin", "out=later", size=64 * KiB, throttle=8 * KiB)
    expect_errno(errno.EEXIST, os.mkdir, mount.mp / "files" / "later")
    mount.ctl(task, "pause")


def test_r35_mv_moves_a_file_between_folders_and_the_catalog_follows(mount, faultserver):
    task = _completed(mount, faultserver, "/m.bin", seed=5)
    files = mount.mp / "files"
    os.mkdir(files / "sorted")
    os.rename(files / "m.bin", files / "sorted" / "m2.bin")
    assert mount.status(task)["dir"] == "sorted"
    assert mount.status(task)["name"] == "m2.bin"
    assert (files / "sorted" / "m2.bin").read_bytes() == content(5, 16 * KiB)
    os.rename(files / "sorted" / "m2.bin", files / "m2.bin")
    assert mount.status(task)["dir"] == "-"
    os.rename(files / "m2.bin", files / "sorted" / "m2.bin")
    expect_errno(errno.EINVAL, os.rename, files / "sorted" / "m2.bin", files / "sorted" / ".m2")
    mount.unmount()
    mount.remount()
    assert mount.status(task)["dir"] == "sorted", "the catalog kept the move"
    assert (mount.mp / "files" / "sorted" / "m2.bin").read_bytes() == content(5, 16 * KiB)


def test_r35_mv_of_a_folder_moves_its_tasks_waiting_ones_included(mount, faultserver):
    done = _completed(mount, faultserver, "/d.bin", "dir=inbox/sub", seed=7)
    slow = _add(mount, faultserver, "/w.bin", "dir=inbox", size=64 * KiB, seed=8, throttle=16 * KiB)
    mount.wait_state(slow, "downloading")
    files = mount.mp / "files"
    os.mkdir(files / "archive")
    os.rename(files / "inbox", files / "archive" / "2026")
    assert mount.status(done)["dir"] == "archive/2026/sub"
    assert (files / "archive" / "2026" / "sub" / "d.bin").read_bytes() == content(7, 16 * KiB)
    assert not (files / "inbox").exists()
    assert mount.status(slow)["dir"] == "archive/2026", "an unfinished task follows its folder"
    faultserver.update("/w.bin", throttle=None)
    mount.wait_state(slow, "completed", timeout=TIMEOUT)
    assert (files / "archive" / "2026" / "w.bin").read_bytes() == content(8, 64 * KiB)
    assert not (files / "inbox").exists(), "the old folder is not made again"
    expect_errno(errno.EINVAL, os.rename, files / "archive", files / "archive" / "2026" / "x")
    assert mount.task_log(done).count("renamed to archive/2026/sub/d.bin") == 1
    mount.unmount()
    mount.remount()
    assert mount.status(done)["dir"] == "archive/2026/sub"


def test_r35_rm_r_of_a_folder_removes_its_tasks_and_files(mount, faultserver):
    inside = _completed(mount, faultserver, "/in.bin", "dir=trash/deep")
    outside = _completed(mount, faultserver, "/out.bin")
    (mount.state / "files" / "trash" / "plain.bin").write_bytes(b"plain")
    subprocess.run(["rm", "-r", str(mount.mp / "files" / "trash")], check=True, timeout=TIMEOUT)
    assert mount.files() == ["out.bin"]
    assert not (mount.state / "files" / "trash").exists()
    wait_until(lambda: inside not in mount.task_ids(), timeout=TIMEOUT, what="the task in the folder removed (R32)")
    assert mount.status(outside)["state"] == "completed"


def test_r35_rmdir_of_a_waiting_tasks_folder_lets_it_be_made_again(mount, faultserver):
    os.mkdir(mount.mp / "files" / "later")
    task = _add(mount, faultserver, "/l.bin", "dir=later", size=64 * KiB, seed=9, throttle=16 * KiB)
    mount.wait_state(task, "downloading")
    os.rmdir(mount.mp / "files" / "later")
    faultserver.update("/l.bin", throttle=None)
    mount.wait_state(task, "completed", timeout=TIMEOUT)
    assert (mount.mp / "files" / "later" / "l.bin").read_bytes() == content(9, 64 * KiB)


def test_r35_a_file_in_the_way_of_a_folder_fails_the_task_with_a_sentence(mount, faultserver):
    _completed(mount, faultserver, "/blocker", "out=blocker")
    task = _add(mount, faultserver, "/b.bin", "dir=blocker")
    mount.wait_state(task, "failed")
    error = mount.status(task)["error"]
    assert "blocker" in error and "a file has that name" in error, error
    assert mount.files() == ["blocker"]


def test_r34_r35_a_forgotten_task_leaves_its_file_in_its_folder(mount, faultserver):
    task = _completed(mount, faultserver, "/f.bin", "dir=keep", seed=11)
    mount.ctl(task, "forget")
    assert task not in mount.task_ids()
    files = mount.mp / "files"
    assert (files / "keep" / "f.bin").read_bytes() == content(11, 16 * KiB)
    os.rename(files / "keep" / "f.bin", files / "f.bin")
    os.rename(files / "keep", files / "kept")
    assert mount.files() == ["f.bin", "kept"]
    assert (files / "f.bin").read_bytes() == content(11, 16 * KiB)


def test_r35_file_managers_and_rsync_see_ordinary_folders(mount, faultserver, tmp_path):
    _completed(mount, faultserver, "/r1.bin", "dir=a/b", seed=12)
    _completed(mount, faultserver, "/r2.bin", "dir=a", seed=13)
    os.mkdir(mount.mp / "files" / "empty")
    found = subprocess.run(["find", str(mount.mp / "files"), "-printf", "%y %P\n"], capture_output=True,
                           text=True, check=True, timeout=TIMEOUT).stdout.split("\n")
    assert sorted(line for line in found if line) == ["d ", "d a", "d a/b", "d empty", "f a/b/r1.bin", "f a/r2.bin"]
    dest = tmp_path / "copy"
    subprocess.run(["rsync", "-a", f"{mount.mp / 'files'}/", str(dest)], check=True, timeout=TIMEOUT)
    assert (dest / "a" / "b" / "r1.bin").read_bytes() == content(12, 16 * KiB)
    assert (dest / "empty").is_dir()
    copied = tmp_path / "cp"
    shutil.copytree(mount.mp / "files", copied)
    assert (copied / "a" / "r2.bin").read_bytes() == content(13, 16 * KiB)
