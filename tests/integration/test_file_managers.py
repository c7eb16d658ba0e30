"""R40: file managers and everyday tools work on files/."""

import os
import subprocess
import tarfile

from support.faultserver import DEFAULT_LAST_MODIFIED_EPOCH, http_date
from support.files import KiB, MiB, sha256_file, sha256_of

NEWER_EPOCH = 1600000000  # 2020-09-13


def _two_files(mount, faultserver):
    older = mount.add_one(faultserver.add("/older.bin", size=300 * KiB, seed=1))
    newer = mount.add_one(faultserver.add("/newer.bin", size=2 * MiB, seed=2,
                                          last_modified=http_date(NEWER_EPOCH)))
    mount.wait_state(older, "completed")
    mount.wait_state(newer, "completed")
    return {"older.bin": (1, 300 * KiB, DEFAULT_LAST_MODIFIED_EPOCH),
            "newer.bin": (2, 2 * MiB, NEWER_EPOCH)}


def _run(args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60,
                            **kwargs)
    assert result.returncode == 0, f"{args}: {result.stderr}"
    return result.stdout


def _gio_env():
    return dict(os.environ, GIO_USE_VFS="local", GIO_USE_VOLUME_MONITOR="unix")


def test_r40_gio_list_and_info(mount, faultserver):
    files = _two_files(mount, faultserver)
    listing = _run(["gio", "list", "-l", "-a", "standard::size,time::modified", mount.mp / "files"],
                   env=_gio_env())
    assert sorted(line.split("\t")[0] for line in listing.splitlines()) == sorted(files), listing
    for name, (_, size, mtime) in files.items():
        [line] = [line for line in listing.splitlines() if line.startswith(name + "\t")]
        assert f"\t{size}\t(regular)" in line, line
        assert f"time::modified={mtime}" in line, line
    info = _run(["gio", "info", mount.mp / "files" / "newer.bin"], env=_gio_env())
    assert "type: regular" in info, info
    assert f"standard::size: {2 * MiB}" in info, info
    assert f"time::modified: {NEWER_EPOCH}" in info, info
    assert "standard::content-type: application/octet-stream" in info, info
    # The tree a file manager opens first: every entry with its type.
    root = _run(["gio", "list", "-l", mount.mp], env=_gio_env())
    kinds = {line.split("\t")[0]: line.split("\t")[-1] for line in root.splitlines()}
    assert kinds == {"queue": "(directory)", "files": "(directory)", "status": "(regular)",
                     "ctl": "(regular)", "log": "(regular)"}, root


def test_r40_gio_content_type_from_the_name(mount, faultserver):
    task = mount.add_one(faultserver.add("/report.pdf", size=4 * KiB, content_type="application/pdf"))
    mount.wait_state(task, "completed")
    info = _run(["gio", "info", "-a", "standard::content-type", mount.mp / "files" / "report.pdf"],
                env=_gio_env())
    assert "standard::content-type: application/pdf" in info, info


def _assert_copied(dest, files):
    """Each copy is byte-identical and kept the server's mtime (R40)."""
    for name, (seed, size, mtime) in files.items():
        assert sha256_file(dest / name) == sha256_of(seed, size)
        assert int(os.stat(dest / name).st_mtime) == mtime


def test_r40_cp_a(mount, faultserver, tmp_path):
    files = _two_files(mount, faultserver)
    dest = tmp_path / "copy"
    dest.mkdir()
    _run(["cp", "-a", *(mount.mp / "files" / name for name in files), dest])
    _assert_copied(dest, files)


def test_r40_rsync_a(mount, faultserver, tmp_path):
    files = _two_files(mount, faultserver)
    dest = tmp_path / "rsynced"
    _run(["rsync", "-a", f"{mount.mp}/files/", f"{dest}/"])
    assert sorted(os.listdir(dest)) == sorted(files)
    _assert_copied(dest, files)


def test_r40_tar(mount, faultserver, tmp_path):
    files = _two_files(mount, faultserver)
    archive = tmp_path / "files.tar"
    _run(["tar", "cf", archive, "-C", mount.mp / "files", "."])
    out = tmp_path / "untarred"
    with tarfile.open(archive) as tar:
        tar.extractall(out)
    for name, (seed, size, _) in files.items():
        assert sha256_file(out / name) == sha256_of(seed, size)


def test_r40_find_newer(mount, faultserver, tmp_path):
    _two_files(mount, faultserver)
    reference = tmp_path / "reference"
    reference.write_text("")
    middle = (DEFAULT_LAST_MODIFIED_EPOCH + NEWER_EPOCH) // 2
    os.utime(reference, (middle, middle))
    found = _run(["find", mount.mp / "files", "-type", "f", "-newer", reference]).split()
    assert found == [str(mount.mp / "files" / "newer.bin")]
