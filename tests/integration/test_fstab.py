"""R8: mount(8) and fstab mount downloadfs, with its options as `-o name=value`.

mount(8) runs mount.fuse3, which runs `downloadfs STATE MNT -o OPTIONS`
through /bin/sh with a bare PATH. These tests go through the real mount(8)
with the fuse form `/ABSOLUTE/PATH/downloadfs#STATE` (what docs/usage.md
gives for a binary outside the system PATH), through a real fstab file
(`mount -T`), and through mount.fuse3 itself for the `fuse.downloadfs` type
with the binary found on PATH. mount(8) needs root; the mounts it makes are
background daemons, ended in teardown by the pid in their state dir.
"""

import os
import re
import subprocess

import pytest

from support.files import KiB, sha256_file, sha256_of
from support.waiting import wait_until

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mount(8) needs root")


def _run(args, env=None):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60, env=env)


def _mounted_type(path):
    with open("/proc/mounts") as table:
        for line in table:
            fields = line.split()
            if fields[1] == str(path):
                return fields[2]
    return None


def _settings(mount):
    """The settings the daemon logged when it mounted (STATE/daemon.log)."""
    log = wait_until(lambda: (text := (mount.state / "daemon.log").read_text()) and "mounted at" in text
                     and text, 5, "the daemon's mount line")
    return [line for line in log.splitlines() if "mounted at" in line][-1]


def _downloads(mount, faultserver, path):
    task = mount.add_one(faultserver.add(path, size=64 * KiB, seed=8))
    mount.wait_state(task, "completed")
    assert sha256_file(mount.mp / "files" / path.lstrip("/")) == sha256_of(8, 64 * KiB)


def test_r8_mount_t_fuse_with_the_binary_path_and_our_options(make_mount, downloadfs_bin, faultserver):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    result = _run(["mount", "-t", "fuse", f"{downloadfs_bin}#{mount.state}", mount.mp,
                   "-o", "max-active=2,speed-limit=1M,split=2,max-tries=5,x-systemd.automount,noauto"])
    assert result.returncode == 0, result.stderr
    assert _mounted_type(mount.mp) == "fuse.downloadfs"
    assert mount.ready()
    line = _settings(mount)
    for setting in ("max-active 2", "max-tries 5", "speed-limit 1.0 MiB/s", "split 2"):
        assert setting in line, line
    _downloads(mount, faultserver, "/fstab.bin")
    # Unmounted as any mount is; the daemon checkpoints and exits.
    assert _run([downloadfs_bin, "unmount", mount.mp]).returncode == 0
    assert _mounted_type(mount.mp) is None


def test_r8_an_fstab_line_mounts(make_mount, downloadfs_bin, faultserver, tmp_path):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    fstab = tmp_path / "fstab"
    fstab.write_text(f"# downloadfs\n{downloadfs_bin}#{mount.state} {mount.mp} fuse "
                     f"noauto,user,max_active=1,max-connections-per-host=3,x-systemd.automount 0 0\n")
    result = _run(["mount", "-T", fstab, mount.mp])
    assert result.returncode == 0, result.stderr
    assert _mounted_type(mount.mp) == "fuse.downloadfs"
    line = _settings(mount)
    assert "max-active 1" in line and "max-connections-per-host 3" in line, line
    _downloads(mount, faultserver, "/line.bin")


def _through_mount_fuse3(make_mount, downloadfs_bin, tmp_path, options):
    """Runs `mount.fuse3 STATE MNT -t fuse.downloadfs -o OPTIONS` as mount(8)
    hands it on (mount(8) itself would look for `downloadfs` in its own bare
    PATH); returns the mount and the result."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "downloadfs").symlink_to(downloadfs_bin)
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    env = dict(os.environ, PATH=f"{bindir}:/usr/sbin:/usr/bin:/sbin:/bin")
    return mount, _run(["mount.fuse3", mount.state, mount.mp, "-t", "fuse.downloadfs", "-o", options], env=env)


def test_r8_type_fuse_downloadfs_through_mount_fuse3(make_mount, downloadfs_bin, tmp_path):
    """`mount -t fuse.downloadfs STATE MNT -o …` as mount(8) hands it on."""
    mount, result = _through_mount_fuse3(make_mount, downloadfs_bin, tmp_path, "rw,nosuid,max-active=4,user,x-gvfs-show")
    assert result.returncode == 0, result.stderr
    assert _mounted_type(mount.mp) == "fuse.downloadfs"
    assert "max-active 4" in _settings(mount)


@pytest.mark.parametrize("options, words", [
    ("max-active=0", "-o max-active=0: must be at least 1"),
    ("speed-limit=2Mb", "is in bits"),
    ("max-active", "option max-active needs a value"),
    ("bogus_option", "bogus_option"),
])
def test_r8_a_bad_option_fails_the_mount_and_says_why(make_mount, downloadfs_bin, options, words):
    mount = make_mount(start=False)
    mount.mp.mkdir(parents=True)
    result = _run(["mount", "-t", "fuse", f"{downloadfs_bin}#{mount.state}", mount.mp, "-o", options])
    assert result.returncode != 0
    assert words in result.stderr, result.stderr
    assert _mounted_type(mount.mp) is None
    assert not re.search(r"Usage|USAGE", result.stderr), "one line, not the usage block"


# Issue 25: every own option's error names it as `-o name=value`, never as
# the flag it is translated into (`--split`), which the user never wrote.
OPTION_ERRORS = [
    ("split=99", "-o split=99: must be from 1 to 16"),
    ("split=two", "-o split=two: must be a whole number"),
    ("max-active=0", "-o max-active=0: must be at least 1"),
    ("max-active=-1", "-o max-active=-1: must be at least 1"),
    ("max_tries=0", "-o max-tries=0: must be at least 1"),
    ("max-connections-per-host=99", "-o max-connections-per-host=99: must be from 1 to 64"),
    ("speed-limit=fast", '-o speed-limit=fast: bad rate "fast"'),
    ("ca-certificate=/nonexistent/ca.pem", "-o ca-certificate=/nonexistent/ca.pem: no such file"),
]


@pytest.mark.parametrize("options, words", OPTION_ERRORS, ids=[o for o, _ in OPTION_ERRORS])
def test_r8_an_option_error_names_the_option_as_written(make_mount, downloadfs_bin, tmp_path, options, words):
    """Through mount.fuse3 as mount(8) runs it for `-t fuse.downloadfs`."""
    mount, result = _through_mount_fuse3(make_mount, downloadfs_bin, tmp_path, f"rw,{options}")
    assert result.returncode != 0, result
    assert words in result.stderr, result.stderr
    name = options.split("=")[0].replace("_", "-")
    assert f"--{name}" not in result.stderr, f"names a flag the user never wrote: {result.stderr!r}"
    assert _mounted_type(mount.mp) is None
