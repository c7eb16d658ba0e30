"""R30 (start, top, limit) and R31 (global ctl): steering running downloads."""

import errno
import os
import subprocess
import time

import pytest

from support.files import KiB, MiB, sha256_file, sha256_of
from support.cli import run_cli
from support.mount import expect_errno, mounted_in_table, write_command
from support.waiting import start_order, wait_until


def _downloaded(mount, tasks):
    return sum(int(mount.status(task)["downloaded"]) for task in tasks)


WINDOW = 10  # R31 (issue 4): limits hold within 10 % over a 10 s window


def _rate(mount, tasks, seconds):
    """Bytes per second the tasks gained together over `seconds`."""
    began, before = time.monotonic(), _downloaded(mount, tasks)
    time.sleep(seconds)  # the measurement window itself
    return (_downloaded(mount, tasks) - before) / (time.monotonic() - began)


def _states(mount, tasks):
    return [mount.status(task)["state"] for task in tasks]


def test_r30_start_preempts_earliest_started(make_mount, faultserver):
    mount = make_mount("--max-active", "2")
    tasks = []
    for i in range(2):
        tasks.append(mount.add_one(faultserver.add(f"/a{i}.bin", size=16 * MiB, seed=i,
                                                   throttle=MiB)))
        mount.wait_state(tasks[-1], "downloading")  # a defined start order
    late = mount.add_one(faultserver.add("/late.bin", size=2 * MiB, seed=9, throttle=2 * MiB))
    assert mount.status(late)["state"] == "queued"
    mount.ctl(late, "start")
    wait_until(lambda: _states(mount, tasks + [late]) == ["queued", "downloading", "downloading"],
               3, "the earliest-started task to go back to the queue")
    mount.wait_state(late, "completed", timeout=20)
    mount.wait_state(tasks[0], "downloading", timeout=5)
    resumed = faultserver.gets("/a0.bin")[-1]
    assert resumed.range_start and resumed.range_start > 0, "preempted data was thrown away"


def test_r30_top_moves_to_head(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    running = mount.add_one(faultserver.add("/run.bin", size=2 * MiB, throttle=2 * MiB))
    mount.wait_state(running, "downloading")
    waiting = [mount.add_one(faultserver.add(f"/w{i}.bin", size=512 * KiB, throttle=MiB))
               for i in range(3)]
    mount.ctl(waiting[2], "top")
    assert start_order(mount, waiting, 30) == [waiting[2], waiting[0], waiting[1]]


def test_r30_limit(mount, faultserver):
    task = mount.add_one(faultserver.add("/lim.bin", size=32 * MiB, seed=3, throttle=4 * MiB))
    mount.ctl(task, "limit 256K")
    mount.wait_downloaded(task, 1)
    time.sleep(1.0)  # let the limiter settle
    limited = _rate(mount, [task], WINDOW)
    assert 0.9 * 256 * KiB <= limited <= 1.1 * 256 * KiB, f"{limited / KiB:.0f} KiB/s"
    # The rest would take over 100 s at 256 KiB/s; lifted, it takes seconds.
    left = 32 * MiB - int(mount.status(task)["downloaded"])
    began = time.monotonic()
    mount.ctl(task, "limit 0")
    mount.wait_state(task, "completed", timeout=30)
    unlimited = left / (time.monotonic() - began)
    assert unlimited > 3 * 256 * KiB, f"limit 0 did not lift the limit: {unlimited / KiB:.0f} KiB/s"
    assert sha256_file(mount.mp / "files" / "lim.bin") == sha256_of(3, 32 * MiB)


def test_r10_max_download_limit_option(mount, faultserver):
    url = faultserver.add("/opt.bin", size=16 * MiB, throttle=4 * MiB)
    task = mount.add_one(url, "max-download-limit=300K")
    mount.wait_downloaded(task, 1)
    time.sleep(1.0)
    rate = _rate(mount, [task], WINDOW)
    assert 0.9 * 300 * KiB <= rate <= 1.1 * 300 * KiB, f"{rate / KiB:.0f} KiB/s"


# R18: `split N` takes a whole number from 1 to 16, in a task's ctl and the root's.
BAD_SPLIT_COMMANDS = ["split 0", "split 17", "split x", "split", "split -1", "split 1.5", "split 4 4"]


@pytest.mark.parametrize("command", ["frobnicate", "limit fast", "limit", "top now please",
                                     "pause pause", ""] + BAD_SPLIT_COMMANDS)
def test_r30_bad_command_einval(mount, faultserver, command):
    task = mount.add_one(faultserver.add("/x.bin", size=1000))
    mount.wait_state(task, "completed")
    before = mount.status(task)
    expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", command)
    assert mount.status(task) == before
    _assert_logged_refusal(mount, f"queue/{task}/ctl: refused")


def test_r31_max_active_demotion(make_mount, faultserver):
    mount = make_mount("--max-active", "3")
    tasks = []
    for i in range(3):
        tasks.append(mount.add_one(faultserver.add(f"/d{i}.bin", size=32 * MiB, throttle=MiB)))
        mount.wait_state(tasks[-1], "downloading")
    mount.root_ctl("max-active 1")
    wait_until(lambda: _states(mount, tasks) == ["downloading", "queued", "queued"], 1.5,
               "the two most recently started tasks to go back to queued")
    time.sleep(1.0)  # nothing starts again behind our back
    assert _states(mount, tasks) == ["downloading", "queued", "queued"]
    mount.root_ctl("max-active 3")
    wait_until(lambda: _states(mount, tasks) == ["downloading"] * 3, 3, "all three to run again")


def test_r31_global_limit(mount, faultserver):
    limit = 512 * KiB
    mount.root_ctl("limit 512K")
    tasks = [mount.add_one(faultserver.add(f"/g{i}.bin", size=16 * MiB, throttle=4 * MiB))
             for i in range(3)]
    for task in tasks:
        mount.wait_downloaded(task, 1)
    time.sleep(2.0)  # let the limiter settle
    rate = _rate(mount, tasks, WINDOW)
    assert 0.9 * limit <= rate <= 1.1 * limit, f"{rate / KiB:.0f} KiB/s for a 512 KiB/s limit"


def test_r1_speed_limit_option(make_mount, faultserver):
    mount = make_mount("--speed-limit", "1.5MiB")
    task = mount.add_one(faultserver.add("/s.bin", size=64 * MiB, throttle=8 * MiB))
    mount.wait_downloaded(task, 1)
    time.sleep(1.0)
    rate = _rate(mount, [task], WINDOW)
    assert 0.9 * 1.5 * MiB <= rate <= 1.1 * 1.5 * MiB, f"{rate / MiB:.2f} MiB/s"


def test_r31_pause_all_resume_all(make_mount, faultserver):
    mount = make_mount("--max-active", "2")
    done = mount.add_one(faultserver.add("/done.bin", size=1000))
    mount.wait_state(done, "completed")
    tasks = [mount.add_one(faultserver.add(f"/p{i}.bin", size=4 * MiB, seed=i, throttle=MiB))
             for i in range(3)]
    mount.wait_downloaded(tasks[1], 1)
    assert _states(mount, tasks) == ["downloading", "downloading", "queued"]
    mount.root_ctl("pause-all")
    wait_until(lambda: _states(mount, tasks) == ["paused"] * 3, 3, "every task to pause")
    assert mount.status(done)["state"] == "completed"
    wait_until(lambda: all(r.finished for i in range(3) for r in faultserver.gets(f"/p{i}.bin")),
               5, "transfers to stop")
    for i in range(3):
        faultserver.update(f"/p{i}.bin", throttle=None)
    mount.root_ctl("resume-all")
    wait_until(lambda: "paused" not in _states(mount, tasks), 3, "every task to leave paused")
    for i, task in enumerate(tasks):
        mount.wait_state(task, "completed", timeout=30)
        assert sha256_file(mount.mp / "files" / f"p{i}.bin") == sha256_of(i, 4 * MiB)


def test_r31_pause_all_pauses_retrying(mount, faultserver):
    task = mount.add_one(faultserver.add("/busy.bin", size=1000, status=503, status_times=None,
                                         retry_after=30))
    mount.wait_state(task, "retrying", timeout=10)
    mount.root_ctl("pause-all")
    mount.wait_state(task, "paused", timeout=3)


@pytest.mark.parametrize("command", ["frobnicate", "max-active", "max-active x", "max-active -1",
                                     "limit fast", "pause-all now"] + BAD_SPLIT_COMMANDS)
def test_r31_bad_command_einval(mount, command):
    expect_errno(errno.EINVAL, write_command, mount.mp / "ctl", command)
    assert mount.alive()
    _assert_logged_refusal(mount, "ctl: refused")


def test_r1_speed_limit_under_one_byte_per_second_refused(make_mount, tmp_path):
    # It used to mount with no limit at all.
    refused = make_mount("--speed-limit", "0.0001K", start=False)
    refused.mp.mkdir()
    result = run_cli(refused.command(foreground=False), tmp_path)
    assert result.returncode != 0 and "0.0001K" in result.stderr, result
    assert not mounted_in_table(refused.mp)


def test_r30_r31_rate_under_one_byte_per_second_refused_not_taken_as_none(mount, faultserver):
    task = mount.add_one(faultserver.add("/r.bin", size=32 * MiB, throttle=MiB),
                         "max-download-limit=256K")
    mount.wait_downloaded(task, 1)
    # Task and root ctl: EINVAL, and the log names the smallest rate.
    expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", "limit 0.0001K")
    expect_errno(errno.EINVAL, write_command, mount.mp / "ctl", "limit 0.5")
    log = mount.log()
    for prefix in (f"queue/{task}/ctl: refused", "ctl: refused"):
        line = next((l for l in log.splitlines() if prefix in l and "1 byte/s" in l), None)
        assert line, f"no {prefix!r} line naming the smallest rate:\n{log}"
    assert "removed" not in mount.task_log(task) and "removed" not in log, "a limit was lifted"
    # max-download-limit=: the write is refused whole.
    other = faultserver.add("/o.bin", size=1000)
    fd = os.open(mount.new, os.O_WRONLY)
    try:
        expect_errno(errno.EINVAL, os.write, fd, f"{other}\n  max-download-limit=0.0001K\n".encode())
    finally:
        os.close(fd)
    assert mount.task_ids() == [task]
    assert "1 byte/s" in mount.log().splitlines()[-1], mount.log()
    # The task's own limit of 256 KiB/s still holds.
    time.sleep(1.0)  # let the limiter settle
    rate = _rate(mount, [task], 3)
    assert rate <= 1.2 * 256 * KiB, f"{rate / KiB:.0f} KiB/s: the limit was lifted"


def _assert_logged_refusal(mount, prefix):
    """R30: an unknown command is EINVAL *with a log line* saying why."""
    lines = [line for line in mount.log().splitlines() if prefix in line]
    assert len(lines) == 1, f"want one {prefix!r} line in the log:\n{mount.log()}"
    assert len(lines[0].split(prefix, 1)[1].strip(": ")) > 5, lines[0]


# R6, R30, R31: a ctl write is checked whole; a blank write ends the one before.

def test_r6_r30_a_write_with_a_command_and_a_bad_line_changes_nothing(make_mount, faultserver):
    mount = make_mount("--max-active", "3")
    task = mount.add_one(faultserver.add("/whole.bin", size=4 * MiB, throttle=256 * KiB))
    mount.wait_state(task, "downloading")
    settings = (mount.task_dir(task) / "ctl").read_text()
    # One write each (os.write, not a shell's printf, which writes line by line).
    expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", b"pause\nfrobnicate\n")
    expect_errno(errno.EINVAL, write_command, mount.mp / "ctl", b"max-active 7\nbogus\n")
    expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", b"limit 1M\nresume\n")
    assert mount.status(task)["state"] == "downloading"
    assert (mount.mp / "ctl").read_text().splitlines()[0] == "max-active 3"
    assert (mount.task_dir(task) / "ctl").read_text() == settings


def test_r30_r31_a_shells_trailing_blank_line_is_no_refused_command(mount, faultserver):
    """`printf 'limit 1M\\n\\n'` and `echo -e 'max-active 7\\n'` write the command,
    then a blank line alone: the command is carried out and the whole is not
    reported as refused. A blank line as the only write holds no command."""
    task = mount.add_one(faultserver.add("/blank.bin", size=1000))
    mount.wait_state(task, "completed")
    ctl, root = mount.task_dir(task) / "ctl", mount.mp / "ctl"
    script = f"printf 'limit 1M\\n\\n' > '{ctl}' && echo -e 'max-active 7\\n' > '{root}'"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    assert "limit 1M" in ctl.read_text().splitlines()
    assert root.read_text().splitlines()[0] == "max-active 7"
    assert "refused" not in mount.log()
    empty = subprocess.run(["bash", "-c", f"printf '\\n' > '{root}'"], capture_output=True, text=True, timeout=20)
    assert empty.returncode == 1 and "Invalid argument" in empty.stderr, empty
