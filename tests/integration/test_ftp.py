"""R52, R53 over FTP: REST resumes with size and MDTM as validators, and errors in FTP's words."""

import os
import time

import pytest

from support.files import KiB, MiB, sha256_file, sha256_of, write_content
from support.ftpserver import FtpServer

MTIME = 1_700_000_000  # the served file's modification time (MDTM)


@pytest.fixture
def ftp(tmp_path):
    home = tmp_path / "ftp"
    (home / "pub").mkdir(parents=True)
    server = FtpServer(home, throttle=512 * KiB)
    yield server
    server.stop()


def _serve(ftp, name, size, seed, mtime=MTIME):
    path = ftp.home / "pub" / name
    write_content(path, seed, size)
    os.utime(path, (mtime, mtime))
    return path


def _pause_midway(mount, task, at_least):
    mount.wait_downloaded(task, at_least, timeout=30)
    mount.ctl(task, "pause")
    return int(mount.wait_state(task, "paused")["downloaded"])


def test_r52_ftp_resume_uses_rest_and_says_so(make_mount, ftp):
    size = 3 * MiB
    _serve(ftp, "resume.bin", size, seed=61)
    mount = make_mount()
    task = mount.add_one(ftp.url("pub/resume.bin"))
    paused_at = _pause_midway(mount, task, 512 * KiB)
    assert 0 < paused_at < size
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=60)
    finished = mount.mp / "files" / "resume.bin"
    assert sha256_file(finished) == sha256_of(61, size)
    assert str(paused_at) in ftp.sent("REST"), ftp.commands
    log = mount.task_log(task)
    assert f"FTP server resumed at byte {paused_at} (REST)" in log, log
    assert "HTTP" not in log, log
    assert "starting over" not in log, log
    # R40: the finished file keeps the server's modification time (MDTM).
    assert int(os.stat(finished).st_mtime) == MTIME


@pytest.mark.parametrize("change", ["mtime", "size"])
def test_r52_ftp_changed_file_starts_over(make_mount, ftp, change):
    size = 3 * MiB
    path = _serve(ftp, "changing.bin", size, seed=62)
    mount = make_mount()
    task = mount.add_one(ftp.url("pub/changing.bin"))
    _pause_midway(mount, task, 512 * KiB)
    # One validator changes at a time: the same size with a new MDTM, or a
    # new size with the same MDTM.
    new_size = size if change == "mtime" else size + 100 * KiB
    _serve(ftp, "changing.bin", new_size, seed=63, mtime=MTIME + 3600 if change == "mtime" else MTIME)
    assert path.stat().st_size == new_size
    mount.ctl(task, "resume")
    mount.wait_state(task, "completed", timeout=60)
    assert sha256_file(mount.mp / "files" / "changing.bin") == sha256_of(63, new_size)
    log = mount.task_log(task)
    expected = "modification time" if change == "mtime" else f"size {size} → {new_size}"
    assert "file changed on the FTP server" in log and expected in log, log


@pytest.mark.parametrize("case, words", [
    ("password", "refused the login: wrong user name or password"),
    ("directory", "no such directory"),
    ("file", "no such file"),
])
def test_r53_ftp_errors_in_ftp_words(mount, ftp, case, words):
    _serve(ftp, "there.bin", 10 * KiB, seed=64)
    url = {
        "password": ftp.url("pub/there.bin", password="wrong"),
        "directory": ftp.url("nodir/there.bin"),
        "file": ftp.url("pub/missing.bin"),
    }[case]
    task = mount.add_one(url)
    started = time.monotonic()
    status = mount.wait_state(task, "failed", timeout=30)
    assert words in status["error"], status["error"]
    assert "denied access" not in status["error"]
    assert status["attempts"] == "1", "a permanent FTP refusal was retried"
    assert time.monotonic() - started < 10
