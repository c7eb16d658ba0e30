"""R1–R3: mounting, refusing to mount, and unmounting."""

import os
import signal
import stat
import subprocess
import time

import pytest

from support.cli import one_line_message, run_cli
from support.files import MiB, sha256_file, sha256_of
from support.mount import mounted_in_table, pid_alive, processes, wait_pid_gone
from support.waiting import wait_until


def test_r1_mount_returns_when_ready(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    result = run_cli(mount.command(foreground=False), tmp_path)
    assert result.returncode == 0, result
    # No waiting: the very next line can use the mount.
    assert os.path.ismount(mount.mp)
    assert {"queue", "files", "status", "ctl", "log"} <= set(os.listdir(mount.mp))
    assert "new" in os.listdir(mount.mp / "queue")
    pid = int((mount.state / "daemon.pid").read_text().split()[0])
    assert pid_alive(pid), "the background daemon is not running"


def test_r1_background_daemon_unmounts_by_command(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    assert run_cli(mount.command(foreground=False), tmp_path).returncode == 0
    pid = int((mount.state / "daemon.pid").read_text().split()[0])
    result = mount.unmount_command()
    assert result.returncode == 0, result.stderr
    assert not mounted_in_table(mount.mp)
    assert wait_pid_gone(pid, 2), "unmount returned before the daemon finished"


def test_r2_missing_mountpoint_fails_nothing_mounted(make_mount, tmp_path):
    mount = make_mount(start=False, mountpoint=tmp_path / "does-not-exist")
    mount.assert_mount_refused(tmp_path)


def test_r2_not_a_directory(make_mount, tmp_path):
    target = tmp_path / "plain-file"
    target.write_text("not a directory\n")
    mount = make_mount(start=False, mountpoint=target)
    mount.assert_mount_refused(tmp_path)
    assert target.read_text() == "not a directory\n"


def test_r2_already_mounted(make_mount, tmp_path):
    first = make_mount()
    second = make_mount(start=False, mountpoint=first.mp)
    result = run_cli(second.command(foreground=False), tmp_path)
    assert result.returncode != 0, result
    assert one_line_message(result.stderr), result.stderr
    assert first.alive() and first.ready(), "the first mount was disturbed"
    assert "new" in os.listdir(first.mp / "queue")


def test_r2_state_dir_locked(make_mount, tmp_path):
    first = make_mount()
    second = make_mount(start=False, state_dir=first.state)
    second.mp.mkdir(parents=True)
    second.assert_mount_refused(tmp_path)
    assert first.alive() and first.ready()


def test_r2_state_dir_unwritable(make_mount, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a regular file where a directory is needed\n")
    mount = make_mount(start=False, state_dir=blocker / "x")
    mount.mp.mkdir(parents=True)
    result = mount.assert_mount_refused(tmp_path)
    # The cause, in the system's words, not a library's error number.
    assert f"{blocker} is a file, not a directory" in result.stderr, result.stderr
    assert "NSCocoaErrorDomain" not in result.stderr and "could not be completed" not in result.stderr


def test_r2_dev_fuse_unavailable(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    # In a private mount namespace, hide /dev/fuse under an empty /dev
    # (with the few harmless devices any process may want).
    script = ('mount -t tmpfs tmpfs /dev && '
              'mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 && '
              'mknod -m 666 /dev/urandom c 1 9 && mknod -m 666 /dev/random c 1 8 && '
              'exec "$@"')
    result = run_cli(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                      "sh", *mount.command(foreground=False)], tmp_path)
    assert result.returncode != 0, result
    assert one_line_message(result.stderr), result.stderr
    assert not mounted_in_table(mount.mp)


def test_r2_dead_mount_cleared(make_mount):
    mount = make_mount()
    mount.kill9()
    mount.remount()
    assert "new" in os.listdir(mount.mp / "queue")


def _auto_unmount_helpers(mountpoint):
    """Pids of fusermount3 processes that hold `mountpoint` (libfuse's
    auto_unmount helper), found by their command line, which names it."""
    target = os.fsencode(str(mountpoint))
    return processes(lambda args: args[0].endswith(b"fusermount3") and target in args)


def test_r2_dead_mount_with_cached_root_cleared(make_mount):
    """The kernel may answer `stat` of a dead mount's root from its attribute
    cache (the root is cached for seconds), so the mount looks alive; with
    the auto_unmount helper gone nothing else clears it: `mount` must."""
    mount = make_mount()
    os.stat(mount.mp)  # the root's attributes are now in the kernel's cache
    helpers = _auto_unmount_helpers(mount.mp)
    assert helpers, "no auto_unmount helper found for the mount"
    for pid in helpers:
        os.kill(pid, signal.SIGKILL)
    mount.kill9(settle=0)
    assert mounted_in_table(mount.mp)
    mount.remount()
    assert "new" in os.listdir(mount.mp / "queue")


def test_r2_dead_mount_without_helper_cleared(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    # A FUSE mount whose server is gone: mount with a /dev/fuse fd, then close it.
    subprocess.run(["sh", "-c", 'exec 3<>/dev/fuse && mount -i -t fuse.downloadfs '
                    '-o fd=3,rootmode=40000,user_id=0,group_id=0 downloadfs "$1"',
                    "sh", str(mount.mp)], check=True, timeout=10)
    assert mounted_in_table(mount.mp)
    with pytest.raises(OSError):
        os.listdir(mount.mp)
    mount.start()
    assert "new" in os.listdir(mount.mp / "queue")


def test_r3_unmount_command(mount, faultserver):
    url = faultserver.add("/slow.bin", size=8 * MiB, throttle=MiB)
    task = mount.add_one(url)
    mount.wait_downloaded(task, 1)
    result = mount.unmount_command()
    assert result.returncode == 0, result.stderr
    assert not mounted_in_table(mount.mp)
    # "waits for the daemon to finish": it is gone when the command returns.
    wait_until(lambda: mount.proc.poll() is not None, 2, "daemon to have exited")
    assert mount.proc.returncode == 0, mount.output()


def test_r3_fusermount_unmounts(mount):
    assert mount.unmount() == 0, mount.output()
    assert not mounted_in_table(mount.mp)


def _signal_unmounts(mount, sig):
    os.kill(mount.pid, sig)
    assert mount.wait_exit() == 0, mount.output()
    assert not mounted_in_table(mount.mp)


def test_r3_sigterm_unmounts(mount):
    _signal_unmounts(mount, signal.SIGTERM)


def test_r3_sigint_unmounts(mount):
    _signal_unmounts(mount, signal.SIGINT)


def test_r3_sigterm_checkpoints_and_resumes(mount, faultserver):
    url = faultserver.add("/slow.bin", size=8 * MiB, throttle=2 * MiB)
    task = mount.add_one(url)
    before = int(mount.wait_downloaded(task, 2 * MiB)["downloaded"])
    os.kill(mount.pid, signal.SIGTERM)
    assert mount.wait_exit() == 0, mount.output()
    mount.remount()
    status = mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "slow.bin") == sha256_of(1, 8 * MiB)
    assert status["downloaded"] == str(8 * MiB)
    resumed = [r for r in faultserver.gets("/slow.bin") if r.range_start]
    assert resumed and resumed[0].range_start >= before, \
        f"expected a resume from at least {before}: {[r.range for r in faultserver.gets('/slow.bin')]}"


def _daemons_using(state_dir):
    """Pids of processes whose command line names `state_dir` (our daemons)."""
    target = str(state_dir).encode()
    return [pid for pid in processes(lambda args: target in args) if pid_alive(pid)]


def _assert_refused_cleanly(mount, workdir):
    """A refused mount: one line, non-zero, nothing mounted, no daemon left."""
    result = mount.assert_mount_refused(workdir)
    wait_until(lambda: not _daemons_using(mount.state), 10, "the refused daemon to be gone")
    assert not mounted_in_table(mount.mp)
    return result


@pytest.mark.parametrize("option, named", [
    # Unknown to FUSE, alone or among known ones: named in the message (R2).
    ("no_such_fuse_option", "no_such_fuse_option"),
    ("ro,not_an_option=3", "not_an_option=3"),
    # How downloadfs's commands know a mount as theirs: not the user's to
    # change (with them, `status`/`unmount` disowned the mount).
    ("subtype=dl", "subtype=dl"),
    ("allow_other,fsname=mine", "fsname=mine"),
], ids=["unknown", "unknown_among_known", "subtype", "fsname"])
def test_r1_r2_refused_fuse_option_is_a_failed_mount_that_names_it(make_mount, tmp_path, option, named):
    mount = make_mount("-o", option, start=False)
    mount.mp.mkdir(parents=True)
    result = _assert_refused_cleanly(mount, tmp_path)
    assert named in result.stderr, result.stderr


def test_r1_max_read_is_honoured(make_mount, tmp_path):
    """`-o max_read=N` is FUSE's own option: libfuse 3 wants the daemon's
    `init` to repeat it, else it refuses the handshake; the mount works."""
    mount = make_mount("-o", "max_read=65536", start=False)
    mount.mp.mkdir(parents=True)
    result = run_cli(mount.command(foreground=False), tmp_path)
    assert result.returncode == 0, result
    assert "total:" in (mount.mp / "status").read_text()
    assert mount.unmount_command().returncode == 0


def test_r2_nonempty_mountpoint_refused(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    (mount.mp / "keep.txt").write_text("mine\n")
    result = _assert_refused_cleanly(mount, tmp_path)
    assert "nonempty" in result.stderr, result.stderr
    assert (mount.mp / "keep.txt").read_text() == "mine\n"


def test_r2_nonempty_option_mounts_over_files(make_mount, tmp_path):
    mount = make_mount("-o", "nonempty", start=False)
    mount.mp.mkdir(parents=True)
    (mount.mp / "keep.txt").write_text("mine\n")
    result = run_cli(mount.command(foreground=False), tmp_path)
    assert result.returncode == 0, result
    assert os.path.ismount(mount.mp)
    assert "keep.txt" not in os.listdir(mount.mp) and "queue" in os.listdir(mount.mp)
    assert mount.unmount_command().returncode == 0
    assert (mount.mp / "keep.txt").read_text() == "mine\n"


def test_r3_unmount_detaches_a_stopped_daemon_lazily(mount):
    os.kill(mount.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        result = mount.unmount_command(timeout=30)
        elapsed = time.monotonic() - started
        assert not mounted_in_table(mount.mp)
        assert result.returncode == 0, result.stderr
        assert one_line_message(result.stderr) and "lazily" in result.stderr, result.stderr
        assert elapsed < 15, f"unmount took {elapsed:.1f}s"
    finally:
        os.kill(mount.pid, signal.SIGCONT)
    # Running again, the daemon finds its mount gone, checkpoints and exits.
    assert mount.wait_exit() == 0, mount.output()


def test_r3_unmount_by_mount_option(mount):
    result = subprocess.run([str(mount.binary), "unmount", "--mount", str(mount.mp)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not mounted_in_table(mount.mp)
    assert mount.wait_exit() == 0, mount.output()


def _mounts_at(path):
    """How many mounts /proc/self/mountinfo has at `path` (stacked ones each count)."""
    target = os.path.realpath(path)
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
        return sum(1 for line in handle if line.split()[4] == target)


@pytest.mark.parametrize("layout", ["same", "inside", "inside_through_a_link", "mountpoint_inside"])
def test_r2_state_dir_and_mountpoint_that_overlap_are_refused(make_mount, tmp_path, layout):
    """A state dir the mount would cover is hidden from the daemon itself
    (state dir = mountpoint: the first writer hung for good, unkillable);
    a mountpoint inside the state dir is another filesystem than
    STATE/files (every download failed at the end with EXDEV). Refused
    before anything is made or mounted (R2), paths compared resolved."""
    mount = make_mount(start=False)  # its teardown owns what is under its base
    base = mount.base
    mp = base / "mnt"
    mp.mkdir(parents=True)
    if layout == "same":
        state = mp
    elif layout == "inside":
        state = mp / "sub" / "state"
    elif layout == "inside_through_a_link":
        (base / "link").symlink_to(mp)
        state = base / "link" / "state"
    else:
        state = base / "state"
        mp = state / "files"
        mp.mkdir(parents=True)
    mount.mp, mount.state = mp, state
    result = _assert_refused_cleanly(mount, tmp_path)
    assert "state dir" in result.stderr and "outside" in result.stderr, result.stderr
    if layout != "mountpoint_inside":
        assert os.listdir(mp) == [], "the refused mount made its state dir in the mountpoint"


def test_r2_mountpoint_given_as_a_symbolic_link(make_mount, tmp_path):
    """`~/dl -> /data/dl` is a directory: mount through the link mounts on
    its target, and `unmount` through the link unmounts it."""
    mount = make_mount(start=False)  # its teardown owns what is under its base
    real = mount.base / "real"
    real.mkdir()
    link = mount.base / "dl"
    link.symlink_to(real)
    mount.mp = link
    state = mount.state
    result = run_cli(mount.command(foreground=False), tmp_path)
    assert result.returncode == 0, result
    assert mounted_in_table(real)
    assert "new" in os.listdir(link / "queue")
    pid = int((state / "daemon.pid").read_text().split()[0])
    result = run_cli([mount.binary, "unmount", link], tmp_path)
    assert result.returncode == 0, result
    assert not mounted_in_table(real)
    assert wait_pid_gone(pid, 2), "unmount returned before the daemon finished"


def test_r2_two_mounts_of_one_directory_at_once_one_wins(make_mount, tmp_path):
    """Two `mount MP` with different state dirs, started together: one
    mounts, the other fails as over any mount and leaves nothing behind —
    never two mounts stacked at MP, the lower one unreachable (R2)."""
    first = make_mount(start=False)
    second = make_mount(start=False, mountpoint=first.mp)
    first.mp.mkdir(parents=True)
    for round_ in range(3):
        procs = []
        for index, mount in enumerate((first, second)):
            out = tmp_path / f"race{round_}.{index}.err"
            with open(out, "wb") as err:
                procs.append((subprocess.Popen([str(a) for a in mount.command(foreground=False)], cwd=tmp_path,
                                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err),
                              out))
        codes = [proc.wait(timeout=60) for proc, _ in procs]
        errors = [out.read_text() for _, out in procs]
        assert sorted(code == 0 for code in codes) == [False, True], (codes, errors)
        loser = errors[codes.index(next(code for code in codes if code != 0))]
        assert one_line_message(loser) and "is already a mount point" in loser, loser
        assert _mounts_at(first.mp) == 1, f"round {round_}: {_mounts_at(first.mp)} mounts at {first.mp}"
        winner = first if codes[0] == 0 else second
        loser_state = (second if winner is first else first).state
        wait_until(lambda: not _daemons_using(loser_state), 10, "the losing daemon to be gone")
        result = winner.unmount_command()
        assert result.returncode == 0, result.stderr
        assert _mounts_at(first.mp) == 0


def test_the_background_daemons_log_file_stays_bounded(make_mount, nginx, nginx_file, tmp_path):
    """STATE/daemon.log (a background daemon's own lines) moves to
    daemon.log.1 past its limit (4 MiB; 4 KiB here) and starts again, so
    about 220 bytes per download do not grow it for ever."""
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    environment = dict(os.environ, DOWNLOADFS_DAEMON_LOG_BYTES="4096")
    assert run_cli(mount.command(foreground=False), tmp_path, env=environment).returncode == 0
    name, _ = nginx_file("bounded-log.bin", 100, seed=3)
    ids = mount.add("".join(f"{nginx.url('/' + name)}?n={n}\n" for n in range(100)))
    for task in ids:
        mount.wait_state(task, "completed")
    log, previous = mount.state / "daemon.log", mount.state / "daemon.log.1"
    wait_until(previous.exists, 10, f"daemon.log to be moved aside past its limit ({log.stat().st_size} bytes)")
    assert log.stat().st_size <= 4096 + 1024
    assert previous.stat().st_size <= 2 * 4096
    assert stat.S_IMODE(previous.stat().st_mode) == 0o600
    last = f"task {ids[-1]} completed"
    assert last in log.read_text() + previous.read_text(), "the newest lines are kept"
