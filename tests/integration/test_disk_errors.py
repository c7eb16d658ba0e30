"""R54: a full disk fails the task that hit it, and nothing else."""

import subprocess

import pytest

from support.files import KiB, MiB, sha256_file, sha256_of


@pytest.fixture
def small_tmpfs(tmp_path):
    """An 8 MiB tmpfs to put a state dir on; unmounted (lazily if busy) afterwards."""
    path = tmp_path / "small"
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(path)], check=True,
                   timeout=10)
    yield path
    if subprocess.run(["umount", str(path)], capture_output=True, timeout=10).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=10)


def test_r54_enospc_fails_only_that_task(small_tmpfs, make_mount, faultserver):
    mount = make_mount(state_dir=small_tmpfs / "state")
    done = mount.add_one(faultserver.add("/done.bin", size=512 * KiB, seed=1))
    mount.wait_state(done, "completed")
    ballast = small_tmpfs / "ballast"
    with open(ballast, "wb") as handle:
        handle.write(b"\x55" * (4 * MiB))
    size = 5 * MiB  # more than is left, less than is left once the ballast goes
    big = mount.add_one(faultserver.add("/big.bin", size=size, seed=2, throttle=MiB))
    status = mount.wait_state(big, "failed", timeout=30)
    assert "No space left on device" in status["error"], status["error"]
    assert mount.alive(), "the daemon died on ENOSPC"
    assert mount.status(done)["state"] == "completed"
    assert sha256_file(mount.mp / "files" / "done.bin") == sha256_of(1, 512 * KiB)
    assert mount.integrity_check() == ["ok"]
    ballast.unlink()
    mount.ctl(big, "resume")
    mount.wait_state(big, "completed", timeout=30)
    resumed = faultserver.gets("/big.bin")[-1]
    assert resumed.range_start and resumed.range_start > 0, \
        f"data up to the last checkpoint was not kept: {resumed.range!r}"
    assert sha256_file(mount.mp / "files" / "big.bin") == sha256_of(2, size)
    assert mount.integrity_check() == ["ok"]
    assert mount.unmount() == 0
    mount.remount()
    assert mount.files() == ["big.bin", "done.bin"]
