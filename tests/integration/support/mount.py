"""Start, drive and always tear down a downloadfs daemon on a temp mountpoint.

A `Mount` owns one mountpoint and one state dir (both fresh temp dirs) and
any number of daemon runs over them (remounts keep the state dir). Every
daemon runs as a foreground child whose stdout and stderr go to a log file
in the test's temp dir; `describe()` gathers those logs for failure reports.
"""

import contextlib
import errno
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from .cli import one_line_message, run_cli
from .status import read_status
from .waiting import wait_until, within

READY_TIMEOUT = 10
EXIT_TIMEOUT = 15
TERMINAL_STATES = ("completed", "failed")


def mounted_in_table(path):
    """True if `path` is a mount point in /proc/self/mountinfo (dead FUSE mounts included)."""
    target = os.path.realpath(path)
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point == target:
                return True
    return False


def processes(matches):
    """Pids of processes whose argument list (as bytes) `matches`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                args = handle.read().split(b"\0")
        except OSError:
            continue
        if args and matches(args):
            pids.append(int(entry))
    return pids


def parent_of(pid):
    """The parent pid of `pid`, None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def pid_alive(pid):
    """True if `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_pid_gone(pid, timeout):
    """Wait until `pid` is gone; True if it went in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)


def fusermount_unmount(path, attempts=3):
    """`fusermount3 -u` (lazy `-uz` when busy or dead) until nothing is mounted at `path`.

    Repeats because a mount wrongly stacked on another leaves one below.
    """
    for _ in range(attempts):
        for flags in ("-u", "-uz"):
            try:
                subprocess.run(["fusermount3", flags, str(path)], capture_output=True, timeout=10)
            except subprocess.TimeoutExpired:
                continue
            if not mounted_in_table(path):
                return True
    return not mounted_in_table(path)


def read_with_timeout(path, timeout=3.0, binary=False):
    """Read a file in a helper thread so a hung daemon cannot hang the reader."""
    data = within(lambda: Path(path).read_bytes(), timeout, f"reading {path}")
    return data if binary else data.decode("utf-8", errors="replace")


class Mount:
    """One mountpoint + state dir and the daemon runs over them."""

    def __init__(self, binary, base, options=(), state_dir=None, mountpoint=None, env=None, user=None):
        self.binary = Path(binary)
        # A `pwd` entry: the daemon runs as that user (a mount made without
        # privilege, as nearly every user makes one), else as we run.
        self.user = user
        self.base = Path(base)
        self.base.mkdir(parents=True, exist_ok=True)
        self.mp = Path(mountpoint) if mountpoint else self.base / "mnt"
        self.state = Path(state_dir) if state_dir else self.base / "state"
        self.options = [str(o) for o in options]
        # Extra environment for the daemon, merged over os.environ; a value
        # of None removes that variable. None: the daemon inherits ours.
        self.env = dict(env) if env else None
        self.proc = None
        self.runs = []  # log files, one per daemon run
        # Teardown checks the catalog is sound after whatever the test did
        # (issue 3: integrity after every fault); off only for a test that
        # damages the catalog on purpose.
        self.check_catalog = True

    # -- lifecycle -----------------------------------------------------------

    def command(self, foreground=True):
        cmd = [str(self.binary), "mount", str(self.mp), "--state-dir", str(self.state)]
        if foreground:
            cmd.append("--foreground")
        return cmd + self.options

    def environ(self):
        """The daemon's environment: None (inherit ours) or os.environ with `env` over it."""
        if self.env is None:
            return None
        merged = dict(os.environ)
        for key, value in self.env.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = str(value)
        return merged

    def start(self, timeout=READY_TIMEOUT):
        """Start a foreground daemon and wait until the mount is ready."""
        try:
            self.mp.mkdir(parents=True)
        except FileExistsError:  # also what a dead mount answers
            pass
        if self.user is not None and self.base in self.mp.parents:
            os.chown(self.mp, self.user.pw_uid, self.user.pw_gid)
        log_path = self.base / f"daemon.{len(self.runs) + 1}.log"
        self.runs.append(log_path)
        with open(log_path, "wb") as log:
            as_user = {} if self.user is None else {
                "user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": [],
                "env": {**(self.environ() or os.environ), "HOME": self.user.pw_dir, "USER": self.user.pw_name}}
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         **({"env": self.environ()} | as_user))
        wait_until(lambda: self.proc.poll() is not None or self.ready(), timeout,
                   f"mount at {self.mp} to be ready")
        if self.proc.poll() is not None:
            raise AssertionError(f"daemon exited with {self.proc.returncode} before the mount "
                                 f"was ready:\n{self.output()}")
        return self

    def assert_mount_refused(self, workdir):
        """`downloadfs mount` (background) must fail with one line and leave
        nothing mounted (R2); returns its Result for further checks."""
        result = run_cli(self.command(foreground=False), workdir, env=self.environ())
        assert result.returncode != 0, result
        assert one_line_message(result.stderr), f"want a one-line message, got {result.stderr!r}"
        assert not mounted_in_table(self.mp)
        return result

    def ready(self):
        """Mounted and answering. `stat` alone is not enough: the kernel
        answers it for a dead mount's root and cached names from its caches,
        while opening a directory always reaches the daemon."""
        if self.user is not None:
            # A mount without allow_other answers its owner alone, root included.
            return mounted_in_table(self.mp) and self.as_user(
                "import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)); "
                "sys.exit(not os.path.isdir(sys.argv[1] + '/queue'))", str(self.mp)).returncode == 0
        if not (os.path.ismount(self.mp) and os.path.isdir(self.mp / "queue")):
            return False
        try:
            os.close(os.open(self.mp, os.O_RDONLY | os.O_DIRECTORY))
        except OSError:
            return False
        return True

    def as_user(self, script, *args, timeout=60):
        """Runs a Python `script` as the mount's user (`user=`); its CompletedProcess."""
        return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                              timeout=timeout, user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[])

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid

    def wait_exit(self, timeout=EXIT_TIMEOUT):
        """Wait for the daemon to exit; return its exit code."""
        return self.proc.wait(timeout=timeout)

    def unmount(self, timeout=EXIT_TIMEOUT):
        """`fusermount3 -u` and wait for the daemon to finish; return its exit code."""
        result = subprocess.run(["fusermount3", "-u", str(self.mp)], capture_output=True,
                                text=True, timeout=10)
        assert result.returncode == 0, f"fusermount3 -u failed: {result.stderr}"
        return self.wait_exit(timeout)

    def unmount_command(self, timeout=30):
        """`downloadfs unmount MP`; return the CompletedProcess.

        Our foreground daemon is our child: reap it while the command runs,
        as the shell that started it would, so its exit is visible (a
        zombie still answers kill(pid, 0)).
        """
        cmd = [str(self.binary), "unmount", str(self.mp)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            if self.proc is not None:
                self.proc.poll()
            if time.monotonic() > deadline:
                proc.kill()
                proc.communicate(timeout=10)
                raise AssertionError(f"`downloadfs unmount` still running after {timeout}s")
            time.sleep(0.02)
        out, err = proc.communicate(timeout=10)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def kill9(self, settle=3.0):
        """SIGKILL the daemon (by pid) and reap it.

        libfuse's auto-unmount helper (a separate fusermount3 process) then
        unmounts the dead mount on its own; give it `settle` seconds, as a
        user would take before mounting again, so a remount does not race
        it. If it does not, the dead mount stays for `mount` to clear (R2).
        """
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        deadline = time.monotonic() + settle
        while mounted_in_table(self.mp) and time.monotonic() < deadline:
            time.sleep(0.05)

    def remount(self, timeout=READY_TIMEOUT):
        """Start a new daemon over the same mountpoint and state dir."""
        assert not self.alive(), "remount while the daemon still runs"
        return self.start(timeout)

    def _owned(self, path):
        """True for paths this Mount created (mountpoint or state dir of its own).

        A test may point a second Mount at another one's mountpoint or state
        dir (to check that mounting there is refused); its teardown must not
        unmount, kill or delete what belongs to the first.
        """
        return self.base in path.parents

    def _background_pid(self):
        """The pid in our own state dir's daemon.pid, if any."""
        if not self._owned(self.state):
            return None
        try:
            return int((self.state / "daemon.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def emergency_stop(self):
        """Last resort for a hung test: SIGKILL our daemon(s) by pid, detach the mount.

        A FUSE request blocked on a hung daemon only ends when the daemon
        dies or the connection goes; this lets the test's own timeout fire.
        """
        if self.alive():
            self.proc.kill()
        pid = self._background_pid()
        if pid is not None:
            _kill_if_downloadfs(pid, self.binary)
        if (self._owned(self.mp) or self.proc is not None) and mounted_in_table(self.mp):
            subprocess.run(["fusermount3", "-uz", str(self.mp)], capture_output=True, timeout=10)

    def teardown(self):
        """Always-safe cleanup: unmount, end the daemon, remove the temp dirs.

        Returns what is wrong with the catalog the daemon left, or None.
        """
        pids = {pid for pid in (self.proc.pid if self.proc else None, self._background_pid())
                if pid is not None}
        if (self._owned(self.mp) or self.proc is not None) and mounted_in_table(self.mp):
            fusermount_unmount(self.mp)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=EXIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pid in pids:
            if pid_alive(pid) and not wait_pid_gone(pid, EXIT_TIMEOUT):
                _kill_if_downloadfs(pid, self.binary)
        problem = self._catalog_problem()
        if not mounted_in_table(self.mp):
            for path in (self.mp, self.state):
                if self._owned(path):
                    shutil.rmtree(path, ignore_errors=True)
        return problem

    def _catalog_problem(self):
        catalog = self.state / "catalog.sqlite"
        if not self.check_catalog or not catalog.is_file():
            return None
        try:
            result = self.integrity_check()
        except sqlite3.Error as error:
            return f"{catalog}: {error}"
        return None if result == ["ok"] else f"{catalog}: integrity_check says {result}"

    # -- adding ----------------------------------------------------------------

    @property
    def new(self):
        return self.mp / "queue" / "new"

    def add(self, text, read_ids=True):
        """Write `text` to queue/new on one r+w handle; return the ids read back (R12)."""
        data = text.encode() if isinstance(text, str) else text
        fd = os.open(self.new, os.O_RDWR)
        try:
            write_all(fd, data)
            out = pread_all(fd) if read_ids else b""
        finally:
            os.close(fd)
        if not read_ids:
            return []
        return [int(line) for line in out.decode().split()]

    def add_one(self, url, *options):
        """Add one URL with option lines; return its id."""
        lines = [url] + [f"  {opt}" for opt in options]
        ids = self.add("\n".join(lines) + "\n")
        assert len(ids) == 1, f"expected one id for {url}, got {ids}"
        return ids[0]

    def write_new(self, data):
        """Write `data` to queue/new the way `echo URL > new` does (open, write, close)."""
        if isinstance(data, str):
            data = data.encode()
        fd = os.open(self.new, os.O_WRONLY)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)

    # -- reading ---------------------------------------------------------------

    def assert_refused_write(self, data):
        """One write of `data` to queue/new: EINVAL (R11), and nothing added."""
        before = self.task_ids()
        fd = os.open(self.new, os.O_WRONLY)
        try:
            expect_errno(errno.EINVAL, os.write, fd, data)
        finally:
            try:
                os.close(fd)
            except OSError:
                pass
        assert self.task_ids() == before, "a refused write added tasks"

    def task_ids(self):
        return sorted(int(n) for n in os.listdir(self.mp / "queue") if n.isdigit())

    def task_dir(self, task_id):
        return self.mp / "queue" / str(task_id)

    def status(self, task_id):
        return read_status(self.mp, task_id)

    def read(self, relpath):
        with open(self.mp / relpath, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def log(self):
        return self.read("log")

    def task_log(self, task_id):
        return self.read(f"queue/{task_id}/log")

    def root_status(self):
        return self.read("status")

    def files(self):
        return sorted(os.listdir(self.mp / "files"))

    def data_path(self, task_id):
        # A task named like a fixed entry (`status`) has its data under the
        # next free name there (docs/usage.md).
        name = self.status(task_id)["name"]
        if name in ("status", "url", "ctl", "log", "wait"):
            name += " (1)"
        return self.task_dir(task_id) / name

    def ctl(self, task_id, command):
        write_command(self.task_dir(task_id) / "ctl", command)

    def root_ctl(self, command):
        write_command(self.mp / "ctl", command)

    def wait_state(self, task_id, states, timeout=30):
        """Poll until the task's state is one of `states`; return its status.

        Fails at once if the task reaches a terminal state not asked for.
        """
        if isinstance(states, str):
            states = (states,)
        seen = {}

        def check():
            seen["status"] = self.status(task_id)
            state = seen["status"]["state"]
            if state in states:
                return seen["status"]
            if state in TERMINAL_STATES:
                raise AssertionError(f"task {task_id} ended {state} while waiting for "
                                     f"{states}: {seen['status']}")
            return None

        deadline = time.monotonic() + timeout
        while True:
            try:
                result = check()
            except FileNotFoundError:
                result = None
            if result:
                return result
            if time.monotonic() >= deadline:
                raise AssertionError(f"task {task_id} not {states} after {timeout}s: "
                                     f"{seen.get('status')}")
            time.sleep(0.05)

    def wait_downloaded(self, task_id, at_least, timeout=30):
        """Poll until the task has `at_least` bytes; return its status."""
        def check():
            status = self.status(task_id)
            assert status["state"] not in TERMINAL_STATES or int(status["downloaded"]) >= at_least, \
                f"task {task_id} ended early: {status}"
            return status if int(status["downloaded"]) >= at_least else None
        return wait_until(check, timeout, f"task {task_id} to have {at_least} bytes")

    def integrity_check(self):
        """`PRAGMA integrity_check` on the catalog, opened read-only."""
        db = sqlite3.connect(f"file:{self.state / 'catalog.sqlite'}?mode=ro", uri=True,
                             timeout=10)
        try:
            return [row[0] for row in db.execute("PRAGMA integrity_check")]
        finally:
            db.close()

    def output(self):
        """Everything every daemon run printed."""
        parts = []
        for path in self.runs:
            try:
                text = path.read_text(errors="replace")
            except OSError:
                text = "(missing)"
            parts.append(f"--- {path.name} ---\n{text}")
        return "\n".join(parts)

    def describe(self):
        """Daemon output and the mount's log, for a failure report."""
        text = self.output()
        if self.alive():
            try:
                text += "\n--- MOUNT/log ---\n" + read_with_timeout(self.mp / "log")[-20000:]
                text += "\n--- MOUNT/status ---\n" + read_with_timeout(self.mp / "status")[-5000:]
            except (OSError, TimeoutError) as exc:
                text += f"\n(could not read the mount: {exc})"
        return text


@contextlib.contextmanager
def opened(path, flags):
    """An fd on `path`, closed when the block ends (its close errors propagate)."""
    fd = os.open(path, flags)
    try:
        yield fd
    finally:
        os.close(fd)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def pread_all(fd):
    chunks, offset = [], 0
    while True:
        chunk = os.pread(fd, 65536, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def write_command(path, command):
    """One command per write, newline-terminated like `echo CMD > ctl`."""
    data = command if isinstance(command, bytes) else (command + "\n").encode()
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def expect_errno(codes, fn, *args, **kwargs):
    """Call fn and assert it raises OSError with one of `codes`; return the errno."""
    if isinstance(codes, int):
        codes = (codes,)
    try:
        result = fn(*args, **kwargs)
    except OSError as exc:
        assert exc.errno in codes, (f"{fn.__name__}{args}: expected "
                                    f"{[errno.errorcode[c] for c in codes]}, got {exc!r}")
        return exc.errno
    if fn is os.open:
        os.close(result)
    raise AssertionError(f"{fn.__name__}{args} succeeded; expected "
                         f"{[errno.errorcode[c] for c in codes]}")


def _kill_if_downloadfs(pid, binary):
    """SIGKILL `pid` only if it still runs our binary (pids can be reused)."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return
    if os.path.basename(exe).startswith(binary.name):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_pid_gone(pid, 10)
