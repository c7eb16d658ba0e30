"""R41: freedesktop extended attributes on completed files."""

import os
import subprocess

from support.files import KiB


def test_r41_origin_url_and_mime_type(mount, faultserver):
    faultserver.add("/attr.bin", size=10 * KiB, content_type="application/x-downloadfs-test")
    url = f"http://user:secret@127.0.0.1:{faultserver.port}/attr.bin"
    task = mount.add_one(url)
    mount.wait_state(task, "completed")
    path = mount.mp / "files" / "attr.bin"
    clean = f"http://127.0.0.1:{faultserver.port}/attr.bin"
    assert os.getxattr(path, "user.xdg.origin.url").decode() == clean
    assert os.getxattr(path, "user.mime_type").decode() == "application/x-downloadfs-test"
    assert {"user.xdg.origin.url", "user.mime_type"} <= set(os.listxattr(path))
    result = subprocess.run(["getfattr", "-d", "-m", "-", str(path)], capture_output=True,
                            text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert f'user.xdg.origin.url="{clean}"' in result.stdout
    assert 'user.mime_type="application/x-downloadfs-test"' in result.stdout
    assert "secret" not in result.stdout


def test_r41_missing_attribute_is_enodata(mount, faultserver):
    task = mount.add_one(faultserver.add("/plain.bin", size=1000))
    mount.wait_state(task, "completed")
    result = subprocess.run(["getfattr", "-n", "user.nothing.here", str(mount.mp / "files" / "plain.bin")],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode != 0 and "No such attribute" in result.stderr, result
