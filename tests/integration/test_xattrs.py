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


def test_r41_a_content_type_longer_than_a_media_type_is_not_kept(mount, faultserver):
    """A media type has at most 255 characters (RFC 6838); a longer
    Content-Type is a server's junk. Kept, it would be on the mount but not
    on STATE/files' copy (ext4 holds about 4,000 bytes per attribute)."""
    longest = "application/" + "x" * 243
    faultserver.add("/long-type.bin", size=1000, content_type="application/" + "x" * 5000)
    faultserver.add("/longest-type.bin", size=1000, content_type=longest)
    for name in ("long-type.bin", "longest-type.bin"):
        mount.wait_state(mount.add_one(faultserver.url("/" + name)), "completed")
    long_path, longest_path = mount.mp / "files" / "long-type.bin", mount.mp / "files" / "longest-type.bin"
    assert "user.mime_type" not in os.listxattr(long_path)
    assert "user.mime_type" not in os.listxattr(mount.state / "files" / "long-type.bin")
    assert os.getxattr(longest_path, "user.mime_type").decode() == longest
    assert os.getxattr(mount.state / "files" / "longest-type.bin", "user.mime_type").decode() == longest
    result = subprocess.run(["getfattr", "-d", "-m", "-", str(long_path)], capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
