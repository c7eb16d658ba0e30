"""R4: `downloadfs wait`, `add --wait` and `downloadfs ctl`, plain clients
of the mount's `wait` (R22) and `ctl` (R30, R31) files."""

import os
import re
import shutil
import signal
import subprocess

from support.cli import one_line_message, run_cli
from support.files import KiB, MiB
from support.waiting import wait_until


def _start(args, workdir):
    """A client command in the background, its output in files."""
    out, err = open(workdir / "bg.stdout", "wb"), open(workdir / "bg.stderr", "wb")
    proc = subprocess.Popen([str(a) for a in args], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    out.close()
    err.close()
    return proc


def _finish(proc, workdir, timeout=30):
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        raise AssertionError(f"still running after {timeout}s: {(workdir / 'bg.stdout').read_text()!r}")
    return proc.returncode, (workdir / "bg.stdout").read_text(), (workdir / "bg.stderr").read_text()


def _has_open(pid, path):
    """Whether process `pid` holds `path` open (it blocks reading it)."""
    fds = f"/proc/{pid}/fd"
    return any(os.readlink(f"{fds}/{fd}") == str(path) for fd in os.listdir(fds))


def test_r4_wait_for_two_tasks_that_complete(mount, faultserver, downloadfs_bin, tmp_path):
    a = mount.add_one(faultserver.add("/wa.bin", size=2 * MiB, throttle=2 * MiB))
    b = mount.add_one(faultserver.add("/wb.bin", size=MiB, throttle=2 * MiB), "out=second file.bin")
    proc = _start([downloadfs_bin, "wait", "--mount", mount.mp, a, b], tmp_path)
    code, out, err = _finish(proc, tmp_path)
    assert code == 0, (code, out, err)
    assert out.splitlines() == [f"{a} completed wa.bin", f"{b} completed second file.bin"], out
    assert [mount.status(t)["state"] for t in (a, b)] == ["completed", "completed"]


def test_r4_wait_blocks_until_the_task_ends(mount, faultserver, downloadfs_bin, tmp_path):
    task = mount.add_one(faultserver.add("/block.bin", size=4 * MiB, throttle=MiB))
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused", timeout=5)
    proc = _start([downloadfs_bin, "wait", "--mount", mount.mp, task], tmp_path)
    try:
        proc.wait(1.0)  # the requirement itself: a paused task has not ended
        raise AssertionError(f"wait returned while the task was paused: {proc.returncode}")
    except subprocess.TimeoutExpired:
        pass
    faultserver.update("/block.bin", throttle=None)
    mount.ctl(task, "resume")
    code, out, err = _finish(proc, tmp_path)
    assert (code, out) == (0, f"{task} completed block.bin\n"), (code, out, err)


def test_r4_wait_for_a_task_that_fails_exits_3(mount, faultserver, downloadfs_bin, tmp_path):
    good = mount.add_one(faultserver.add("/ok.bin", size=64 * KiB))
    bad = mount.add_one(faultserver.add("/missing.bin", status=404, status_times=None))
    result = run_cli([downloadfs_bin, "wait", "--mount", mount.mp, good, bad], tmp_path)
    assert result.returncode == 3, result
    assert result.stdout.splitlines() == [f"{good} completed ok.bin", f"{bad} failed: HTTP 404 Not Found"], result


def test_r4_wait_without_ids_waits_for_every_unfinished_task(mount, faultserver, downloadfs_bin, tmp_path):
    done = mount.add_one(faultserver.add("/done.bin", size=1000))
    mount.wait_state(done, "completed")
    failed = mount.add_one(faultserver.add("/gone.bin", status=404, status_times=None))
    mount.wait_state(failed, "failed")
    running = mount.add_one(faultserver.add("/run.bin", size=2 * MiB, throttle=2 * MiB))
    result = run_cli([downloadfs_bin, "wait", "--mount", mount.mp], tmp_path)
    assert result.returncode == 0, result
    assert result.stdout == f"{running} completed run.bin\n", "only the task unfinished when wait began"


def test_r4_wait_for_a_task_that_is_not_there_is_an_error(mount, faultserver, downloadfs_bin, tmp_path):
    task = mount.add_one(faultserver.add("/here.bin", size=1000))
    result = run_cli([downloadfs_bin, "wait", "--mount", mount.mp, task, 99], tmp_path, timeout=10)
    assert result.returncode == 1, result
    assert one_line_message(result.stderr) and "no task 99" in result.stderr, result.stderr
    assert result.stdout == "", "nothing waited on before the ids were checked"


def test_r4_a_task_removed_while_waited_on_has_failed(mount, faultserver, downloadfs_bin, tmp_path):
    task = mount.add_one(faultserver.add("/rm.bin", size=8 * MiB, throttle=MiB))
    mount.wait_downloaded(task, 1)
    proc = _start([downloadfs_bin, "wait", "--mount", mount.mp, task], tmp_path)
    wait_until(lambda: _has_open(proc.pid, mount.task_dir(task) / "wait"), 5, "the command to open the task's wait")
    shutil.rmtree(mount.task_dir(task))
    code, out, err = _finish(proc, tmp_path, timeout=10)
    assert (code, out) == (3, f"{task} failed: task removed\n"), (code, out, err)


def test_r4_add_wait_adds_then_waits(mount, faultserver, downloadfs_bin, tmp_path):
    a = faultserver.add("/add-a.bin", size=MiB, throttle=2 * MiB)
    b = faultserver.add("/add-b.bin", size=64 * KiB)
    result = run_cli([downloadfs_bin, "add", "--wait", "--mount", mount.mp, a, b], tmp_path)
    assert result.returncode == 0, result
    ids = mount.task_ids()
    assert len(ids) == 2
    assert result.stdout.splitlines() == [str(ids[0]), str(ids[1]),
                                          f"{ids[0]} completed add-a.bin", f"{ids[1]} completed add-b.bin"], result
    missing = faultserver.add("/add-missing.bin", status=404, status_times=None)
    result = run_cli([downloadfs_bin, "add", "--wait", "--mount", mount.mp, missing], tmp_path)
    assert result.returncode == 3, result
    new = mount.task_ids()[-1]
    assert result.stdout.splitlines() == [str(new), f"{new} failed: HTTP 404 Not Found"], result


def test_r4_ctl_sends_a_command(mount, faultserver, downloadfs_bin, tmp_path):
    task = mount.add_one(faultserver.add("/ctl.bin", size=8 * MiB, throttle=MiB))
    mount.wait_state(task, "downloading")
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, task, "pause"], tmp_path, timeout=10)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), result
    mount.wait_state(task, "paused", timeout=5)
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, task, "limit", "500K"], tmp_path, timeout=10)
    assert result.returncode == 0, result
    assert (mount.task_dir(task) / "ctl").read_text().splitlines()[0] == "limit 500K"


def test_r4_ctl_refused_prints_the_reason_and_exits_1(mount, faultserver, downloadfs_bin, tmp_path):
    task = mount.add_one(faultserver.add("/bogus.bin", size=8 * MiB, throttle=MiB))
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, task, "bogus"], tmp_path, timeout=10)
    assert result.returncode == 1, result
    assert one_line_message(result.stderr), result.stderr
    assert 'unknown command "bogus"' in result.stderr and "pause" in result.stderr, result.stderr
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, "all", "max-active", "0"], tmp_path, timeout=10)
    assert result.returncode == 1, result
    assert 'bad max-active "0"' in result.stderr, result.stderr
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, 99, "pause"], tmp_path, timeout=10)
    assert result.returncode == 1 and "no task 99" in result.stderr, result
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, "every", "pause"], tmp_path, timeout=10)
    assert result.returncode != 0 and one_line_message(result.stderr), result
    # A word that looks like an option is the command's, for the mount to judge;
    # --mount is still taken after the command.
    result = run_cli([downloadfs_bin, "ctl", task, "move", "-1", "--mount", mount.mp], tmp_path, timeout=10)
    assert result.returncode == 1 and 'bad place "-1"' in result.stderr, result


def test_r4_ctl_all_writes_the_mounts_ctl(mount, downloadfs_bin, tmp_path):
    result = run_cli([downloadfs_bin, "ctl", "--mount", mount.mp, "all", "max-active", "2"], tmp_path, timeout=10)
    assert (result.returncode, result.stderr) == (0, ""), result
    assert (mount.mp / "ctl").read_text().splitlines()[0] == "max-active 2"


def test_r4_the_usage_script_fails_when_a_download_failed(mount, faultserver, downloadfs_bin, tmp_path):
    """docs/usage.md's script: add a list, wait, fail when any failed."""
    listing = tmp_path / "list.txt"
    listing.write_text(f"{faultserver.add('/s1.bin', size=1000)}\n"
                       f"{faultserver.add('/s2.bin', status=404, status_times=None)}\n")
    script = (f'downloadfs add --mount "$1" --wait -i "$2" > "$3" || {{ echo "some downloads failed" >&2; exit 1; }}')
    env = dict(os.environ, PATH=f"{downloadfs_bin.parent}:{os.environ['PATH']}")
    result = subprocess.run(["sh", "-c", script, "sh", str(mount.mp), str(listing), str(tmp_path / "report")],
                            capture_output=True, text=True, timeout=30, env=env)
    assert result.returncode == 1 and "some downloads failed" in result.stderr, result
    assert "failed: HTTP 404" in (tmp_path / "report").read_text()


def test_r4_r34_a_task_forgotten_before_its_turn_had_completed(mount, faultserver, downloadfs_bin, tmp_path):
    """`wait` reads the `wait` files one after another: a task that completes
    while another is waited on, and is forgotten before its turn (`forget`,
    `forget-completed`, an aria2 client's purge), completed all the same; one
    removed before its turn failed (`MOUNT/events` tells the two apart)."""
    first = mount.add_one(faultserver.add("/turn-first.bin", size=4 * MiB, throttle=MiB))
    mount.ctl(first, "pause")
    mount.wait_state(first, "paused", timeout=5)
    forgotten = mount.add_one(faultserver.add("/turn-forgotten.bin", size=64 * KiB), "out=kept file.bin")
    removed = mount.add_one(faultserver.add("/turn-removed.bin", size=64 * KiB))
    proc = _start([downloadfs_bin, "wait", "--mount", mount.mp, first, forgotten, removed], tmp_path)
    wait_until(lambda: _has_open(proc.pid, mount.task_dir(first) / "wait"), 5, "the command to wait on the first task")
    mount.wait_state(forgotten, "completed")
    mount.wait_state(removed, "completed")
    mount.ctl(forgotten, "forget")
    shutil.rmtree(mount.task_dir(removed))
    faultserver.update("/turn-first.bin", throttle=None)
    mount.ctl(first, "resume")
    code, out, err = _finish(proc, tmp_path)
    assert out.splitlines() == [f"{first} completed turn-first.bin", f"{forgotten} completed kept file.bin",
                                f"{removed} failed: task removed"], (code, out, err)
    assert code == 3, "the removed task failed"
    assert "kept file.bin" in mount.files()


def test_r4_add_wait_reports_a_task_forgotten_at_once_as_completed(mount, faultserver, downloadfs_bin, tmp_path):
    """`add --wait` follows MOUNT/events from before it adds: a task that
    completes and is forgotten before its `wait` is read completed."""
    first = faultserver.add("/aw-first.bin", size=2 * MiB, throttle=MiB)
    small = faultserver.add("/aw-small.bin", size=1000)
    proc = _start([downloadfs_bin, "add", "--wait", "--mount", mount.mp, first, small], tmp_path)
    wait_until(lambda: len(mount.task_ids()) == 2, 5, "both tasks to be added")
    a, b = mount.task_ids()
    mount.wait_state(b, "completed")
    mount.root_ctl("forget-completed")
    code, out, err = _finish(proc, tmp_path)
    assert (code, out.splitlines()) == (0, [str(a), str(b), f"{a} completed aw-first.bin", f"{b} completed aw-small.bin"]), \
        (code, out, err)


def test_r4_concurrent_refusals_each_print_their_own_reason(mount, faultserver, downloadfs_bin, tmp_path):
    """Several clients refused at the same moment: each prints the reason
    MOUNT/log gives for its own command or input, not another's."""
    for round in range(3):
        procs = []
        for i in range(8):
            out = open(tmp_path / f"ctl{i}.out", "wb")
            procs.append(subprocess.Popen([str(downloadfs_bin), "ctl", "--mount", str(mount.mp), "all", f"bogus{i}"],
                                          stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            out.close()
        for i, proc in enumerate(procs):
            assert proc.wait(30) == 1
            said = (tmp_path / f"ctl{i}.out").read_text()
            assert one_line_message(said) and f'unknown command "bogus{i}"' in said, (round, i, said)
            assert not re.search(rf'"bogus(?!{i}")\d', said), (round, i, said)
    procs = []
    for i in range(6):
        listing = tmp_path / f"list{i}.txt"
        listing.write_text(f"{faultserver.url(f'/x{i}.bin')}\n  bogus{i}=1\n")
        out = open(tmp_path / f"add{i}.out", "wb")
        procs.append(subprocess.Popen([str(downloadfs_bin), "add", "--mount", str(mount.mp), "-i", str(listing)],
                                      stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        out.close()
    for i, proc in enumerate(procs):
        assert proc.wait(30) == 1
        said = (tmp_path / f"add{i}.out").read_text()
        assert one_line_message(said) and f'unknown option "bogus{i}"' in said, (i, said)
        assert "(pid " not in said, "the tag is for the client to find its line, not for the user"
    assert mount.task_ids() == []


def test_r4_client_commands_refuse_a_directory_that_is_not_a_mount(mount, faultserver, downloadfs_bin, tmp_path):
    """`--mount DIR` must name a downloadfs mount: a plain directory shaped
    like one is not written into, and a missing one is not "no task N"."""
    plain = tmp_path / "plain"
    (plain / "queue" / "6").mkdir(parents=True)
    for name in ("ctl", "status", "log", "queue/new", "queue/6/ctl", "queue/6/wait"):
        (plain / name).write_text("")
    url = faultserver.add("/plain.bin", size=1000)
    for where in (plain, tmp_path / "nonexistent"):
        for command in (["ctl", "--mount", where, "all", "max-active", "2"], ["ctl", "--mount", where, "6", "pause"],
                        ["add", "--mount", where, url], ["wait", "--mount", where, "6"], ["wait", "--mount", where],
                        ["status", where]):
            result = run_cli([downloadfs_bin, *command], tmp_path, timeout=10)
            assert result.returncode == 1 and result.stdout == "", (command, result)
            assert one_line_message(result.stderr) and f"{where} is not a downloadfs mount" in result.stderr, \
                (command, result)
    assert [(plain / name).read_text() for name in ("ctl", "queue/new", "queue/6/ctl")] == ["", "", ""], \
        "nothing written into plain files"
    assert mount.task_ids() == []
    # The mount reached through a symbolic link, and by a relative path, is the mount.
    link = tmp_path / "link"
    link.symlink_to(mount.mp)
    result = run_cli([downloadfs_bin, "ctl", "--mount", link, "all", "max-active", "2"], tmp_path, timeout=10)
    assert (result.returncode, result.stderr) == (0, ""), result
    assert (mount.mp / "ctl").read_text().splitlines()[0] == "max-active 2"
    result = subprocess.run([str(downloadfs_bin), "add", "--mount", os.path.relpath(mount.mp, tmp_path), url],
                            cwd=tmp_path, capture_output=True, text=True, timeout=10)
    assert result.returncode == 0 and result.stdout.split() == [str(mount.task_ids()[0])], result


def test_r4_wait_when_the_mount_goes_says_so_and_exits_1(mount, faultserver, downloadfs_bin, tmp_path):
    """The mount unmounted (SIGTERM to the daemon) under `downloadfs wait`:
    the task has not ended and resumes at the next mount, so `wait` says
    that in one line and exits 1 — not 3, which means a task failed, and
    not a raw errno sentence."""
    task = mount.add_one(faultserver.add("/goes.bin", size=32 * MiB, throttle=MiB))
    proc = _start([downloadfs_bin, "wait", "--mount", mount.mp, task], tmp_path)
    wait_file = mount.task_dir(task) / "wait"
    wait_until(lambda: _has_open(proc.pid, wait_file), 10, "wait to open queue/ID/wait")
    os.kill(mount.pid, signal.SIGTERM)
    code, out, err = _finish(proc, tmp_path)
    assert mount.wait_exit() == 0, mount.output()
    assert code == 1 and out == "", (code, out, err)
    assert one_line_message(err), err
    assert f"{mount.mp} was unmounted before task {task} ended; it resumes at the next mount" in err, err
