"""R6: what holds secrets is private, and a URL's password is never shown."""

import os
import sqlite3
import stat

from support.files import KiB
from support.waiting import wait_until


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_r6_state_dir_0700_and_catalog_0600(mount, faultserver):
    mount.add_one(faultserver.add("/private.bin", size=10 * KiB))
    assert _mode(mount.state) == 0o700
    for name in ("catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"):
        path = mount.state / name
        if path.exists():
            assert _mode(path) == 0o600, f"{name} is {oct(_mode(path))}"
    assert (mount.state / "catalog.sqlite").exists()
    assert "readable by other users" not in mount.log()


def test_r6_open_state_dir_made_private_at_mount(mount):
    assert mount.unmount() == 0
    os.chmod(mount.state, 0o755)
    os.chmod(mount.state / "catalog.sqlite", 0o644)
    mount.remount()
    assert _mode(mount.state) == 0o700
    assert _mode(mount.state / "catalog.sqlite") == 0o600
    log = mount.log()
    assert "readable by other users (mode 755); set to 700" in log, log
    assert "readable by other users (mode 644); set to 600" in log, log


def test_r6_password_shown_as_stars(make_mount, faultserver, tmp_path):
    hook = tmp_path / "hook-url"
    mount = make_mount("--on-complete", f'printf %s "$DOWNLOADFS_URL" > "{hook}"')
    faultserver.add("/secret.bin", size=10 * KiB)
    url = f"http://user:s3cr3t@127.0.0.1:{faultserver.port}/secret.bin"
    masked = f"http://user:***@127.0.0.1:{faultserver.port}/secret.bin"
    task = mount.add_one(url)
    mount.wait_state(task, "completed")
    assert mount.read(f"queue/{task}/url") == masked + "\n"
    assert os.stat(mount.task_dir(task) / "url").st_size == len(masked) + 1
    assert mount.status(task)["url"] == masked
    shown = [mount.read(f"queue/{task}/status"), mount.read("status"), mount.log(),
             mount.task_log(task), os.getxattr(mount.mp / "files" / "secret.bin",
                                               "user.xdg.origin.url").decode()]
    for text in shown:
        assert "s3cr3t" not in text, text
    assert masked in mount.log()
    # The catalog and the hook keep the real URL: they need it.
    with sqlite3.connect(f"file:{mount.state / 'catalog.sqlite'}?mode=ro", uri=True, timeout=5) as db:
        assert db.execute("SELECT url FROM task WHERE id = ?", (task,)).fetchone()[0] == url
    wait_until(lambda: hook.exists() and hook.read_text() == url, 5, "the hook to get the real URL")
