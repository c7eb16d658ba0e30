"""Fixtures: the binary, servers to download from, and mounts that always come down."""

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import signal
import threading

from pathlib import Path

import pytest

from support.binary import find_binary, searched
from support.faultserver import FaultServer
from support.files import write_content
from support.mount import Mount
from support.nginx import Nginx, set_mtime


# A shell runs a command it puts in the background (`.ci/run &` in a
# script) with SIGINT ignored, and an ignored signal stays ignored through
# exec: every daemon and reader the tests start would then ignore the SIGINT
# the R3 and R22 tests send (libfuse installs no handler over SIG_IGN, as
# nohup expects). A handled signal goes back to the default at exec, so
# handling it here gives the children SIGINT as a terminal would.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def downloadfs_bin():
    """The binary under test; without one the whole session stops with a clear message."""
    path = find_binary()
    if path is None:
        tried = "\n  ".join(str(p) for p in searched())
        pytest.exit(f"downloadfs binary not found; tried:\n  {tried}\n"
                    "Build it (swift build -c release) or set DOWNLOADFS_BIN.", returncode=3)
    return path


@pytest.fixture
def make_mount(downloadfs_bin, tmp_path, request):
    """Factory: `make_mount("--max-active", "2", start=True)` → a started `Mount`.

    `env={"http_proxy": URL}` adds variables to the daemon's environment
    (merged over os.environ; a None value removes one).

    Every mount made here is unmounted (lazily if busy), its daemon ended by
    pid and its temp dirs removed when the test ends, pass or fail.
    """
    mounts = []
    user_bases = []
    request.node.downloadfs_mounts = mounts

    def make(*options, start=True, state_dir=None, mountpoint=None, env=None, user=None):
        base = tmp_path / f"m{len(mounts)}"
        if user is not None:
            # pytest's tmp_path is root's alone (0700 above it): a base the user owns.
            base = Path(tempfile.mkdtemp(prefix="downloadfs-user-"))
            os.chown(base, user.pw_uid, user.pw_gid)
            user_bases.append(base)
        mount = Mount(downloadfs_bin, base, options, state_dir=state_dir, mountpoint=mountpoint, env=env,
                      user=user)
        mounts.append(mount)
        if start:
            mount.start()
        return mount

    yield make
    problems = [problem for mount in reversed(mounts) if (problem := mount.teardown())]
    # Only once unmounted: removed earlier, the tree would be walked through
    # the live mount and the catalog gone before its check.
    for base in user_bases:
        shutil.rmtree(base, ignore_errors=True)
    if problems:
        pytest.fail("the catalog is not sound after the test:\n" + "\n".join(problems))


UNPRIVILEGED_USER = "downloadfs-test"


@pytest.fixture(scope="session")
def unprivileged_user():
    """A user without privilege, for mounts as nearly everyone makes them
    (no CAP_SYS_ADMIN: no FUSE passthrough, files/ read through the
    daemon). Made here when missing (a system account with no home and no
    login), with /dev/fuse 0666 as Debian ships it; needs root."""
    if os.geteuid() != 0:
        pytest.skip("making a mount as another user needs root")
    try:
        user = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", UNPRIVILEGED_USER], check=True, timeout=30)
        user = pwd.getpwnam(UNPRIVILEGED_USER)
    mode = os.stat("/dev/fuse").st_mode
    if mode & 0o006 != 0o006:
        os.chmod("/dev/fuse", stat.S_IMODE(mode) | 0o666)
    return user


@pytest.fixture
def mount(make_mount):
    """A mount with default options."""
    return make_mount()


@pytest.fixture
def faultserver(request):
    """A fresh in-process fault-injecting HTTP server."""
    server = FaultServer()
    request.node.downloadfs_faultservers = [server]
    yield server
    server.stop()


@pytest.fixture(scope="session")
def nginx(tmp_path_factory):
    """A private nginx for the session; tests put files in `nginx.docroot`."""
    root = tmp_path_factory.mktemp("nginx")
    server = Nginx(root / "prefix", root / "docroot").start()
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def nginx_file(nginx, request):
    """Factory: put deterministic content in nginx's docroot; return (name, sha256)."""
    made = []

    def make(name, size, seed, mtime=None):
        path = nginx.docroot / name
        digest = write_content(path, seed, size)
        if mtime is not None:
            set_mtime(path, mtime)
        made.append(path)
        return name, digest

    yield make
    for path in made:
        path.unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def _hang_watchdog(request):
    """If a test overruns its timeout, kill its daemons so blocked FUSE calls return.

    pytest-timeout (signal method) can only interrupt Python once the
    blocked system call returns; a hung daemon would keep it blocked forever.
    """
    marker = request.node.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker and marker.args else \
        float(request.config.getini("timeout") or 120)

    def fire():
        for mount in getattr(request.node, "downloadfs_mounts", []):
            mount.emergency_stop()

    timer = threading.Timer(limit + 10, fire)
    timer.daemon = True
    timer.start()
    yield
    timer.cancel()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On failure, attach each daemon's output and the servers' request logs."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for mount in getattr(item, "downloadfs_mounts", []):
        report.sections.append((f"downloadfs {mount.base.name}", mount.describe()[-30000:]))
    for server in getattr(item, "downloadfs_faultservers", []):
        lines = [f"{r.method} {r.path}?{r.query} conn={r.connection} range={r.range} "
                 f"if-range={r.if_range} -> {r.status} from={r.body_start} sent={r.sent} "
                 f"complete={r.complete} t={r.started:.2f}..{r.finished or 0:.2f}"
                 for r in server.requests()[-60:]]
        report.sections.append(("faultserver requests", "\n".join(lines)))
